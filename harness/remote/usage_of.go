package remote

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bindrace/bindrace/harness/internal/procfs"
)

// UsageOf is Usage for pid, a descendant of the process (a server that `bindrace serve`
// spawned): it carries the process's tag in its environment, so a reused pid is never read.
// The read goes through the host's usage reader, and its At is the host's clock.
func (p *Process) UsageOf(pid int) (procfs.Usage, error) {
	op := p.op("usage of")
	if pid != p.Pid {
		op = p.op("usage of pid " + strconv.Itoa(pid) + " of")
	}
	p.s.mu.Lock()
	st := p.s.hosts[p.Host.String()]
	p.s.mu.Unlock()
	if st == nil {
		return procfs.Usage{}, &Error{Host: p.Host, Op: op, Kind: errClosed, ExitCode: -1}
	}
	return st.usage.read(p.s, op, pid, tagPattern(p.tag))
}

// usageReader reads processes' usage on one host through one long-lived ssh channel: a shell
// loop there answers each "PID PATTERN" line with the host's clock and the process's stat,
// status and threads. A fresh ssh command per read would start a session on the host, and with it the
// login shell's rc files: 0.8 s for root's on the test lab when idle, seconds while the server
// and the load generator hold both CPUs, so a window's closing read landed after the window
// and its CPU figure measured another interval (a race read 0% and then 128,452%).
type usageReader struct {
	h      Host
	mu     sync.Mutex
	cmd    *exec.Cmd // nil until the first read, and after the channel broke
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *tailBuffer
}

// usageEnd ends each answer; no line of a stat or status file can be it.
const usageEnd = "@@bindrace-usage-end@@"

// usageLoop is the host's side. The pattern is checked before the files are read, and the
// clock is read between the check and the files, so a reused pid is never read. The loop is
// exec'd with the tag already exported: /proc/PID/environ shows a process's environment as it
// was exec'd. A NUL byte goes before the process's stat, its status and each thread's stat and
// schedstat: a thread's name may hold a newline (stat prints it raw) but never a NUL. A
// process of more threads than procfs.MaxThreads sends their count instead of their files.
const usageLoop = `BINDRACE_PROC=@TAGVALUE@; export BINDRACE_PROC; exec sh -c '
while IFS=" " read -r pid pattern; do
	if grep -qsaz -e "$pattern" /proc/"$pid"/environ; then
		date +%s%N; printf "\\000"; cat /proc/"$pid"/stat; printf "\\000"; cat /proc/"$pid"/status
		set -- /proc/"$pid"/task/*
		if [ $# -le @MAXTHREADS@ ]; then
			for d; do printf "\\000"; cat "$d"/stat; printf "\\000"; cat "$d"/schedstat; done
		else
			printf "\\000threads %d\\n" $#
		fi
	else
		echo gone
	fi 2>/dev/null
	echo ` + usageEnd + `
done'`

// maxUsageAnswer bounds an answer: a status file is about 1.5 KiB, and procfs.MaxThreads
// stat files of at most 1.2 KiB each with their schedstat lines of at most 60 bytes.
const maxUsageAnswer = 1 << 20

func (u *usageReader) read(s *Session, op string, pid int, pattern string) (procfs.Usage, error) {
	fail := func(kind error, detail string) (procfs.Usage, error) {
		return procfs.Usage{}, &Error{Host: u.h, Op: op, Kind: kind, ExitCode: -1, Detail: detail}
	}
	if pid <= 0 || strings.ContainsAny(pattern, " \n") {
		return fail(ErrCommand, fmt.Sprintf("pid %d, pattern %q: not a process to read", pid, pattern))
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if s.isClosed() {
		return fail(errClosed, "")
	}
	if u.cmd == nil {
		if err := u.start(s); err != nil {
			return fail(ErrSSH, err.Error())
		}
	}
	// A host that stops answering is cut off: the read fails, and the next one reconnects.
	cmd := u.cmd
	timer := time.AfterFunc(s.r.o.CommandTimeout, func() { cmd.Process.Kill() })
	answer, err := u.exchange(pid, pattern)
	if !timer.Stop() {
		err = fmt.Errorf("no answer within %s", s.r.o.CommandTimeout)
	}
	if err != nil {
		u.stop()
		detail := fmt.Sprintf("the usage reader's channel broke: %v", err)
		if tail := strings.TrimSpace(u.stderr.String()); tail != "" {
			detail += ": " + tail
		}
		return fail(ErrLost, detail)
	}
	if answer == "gone\n" {
		return fail(ErrCommand, "the process has exited")
	}
	usage, err := parseUsage(answer)
	if err != nil {
		return fail(ErrCommand, err.Error())
	}
	return usage, nil
}

// parseUsage reads usageLoop's answer about a live process: the host's clock, the process's
// stat and status, its threads. Threads that cannot be read leave the rest of the reading
// standing: ThreadsErr says why.
func parseUsage(answer string) (procfs.Usage, error) {
	parts := strings.Split(answer, "\x00")
	ns, errClock := strconv.ParseInt(strings.TrimSpace(parts[0]), 10, 64)
	if len(parts) < 3 || errClock != nil {
		return procfs.Usage{}, fmt.Errorf("unexpected answer %q", abbrev(answer))
	}
	usage, err := procfs.ParseUsage([]byte(parts[1]), []byte(parts[2]))
	if err != nil {
		return procfs.Usage{}, err
	}
	usage.At = time.Unix(0, ns)
	usage.Threads, usage.ThreadsErr = parseThreads(parts[3:])
	return usage, nil
}

// parseThreads reads the threads' part of an answer: their stat and schedstat files, or how
// many there were when they were too many to send.
func parseThreads(parts []string) ([]procfs.Thread, error) {
	if count, ok := strings.CutPrefix(strings.Join(parts, ""), "threads "); ok && len(parts) == 1 {
		if n, err := strconv.Atoi(strings.TrimSpace(count)); err == nil {
			return nil, procfs.TooManyThreads(n)
		}
	}
	return procfs.ParseThreads(parts)
}

// exchange sends one request and reads its answer up to usageEnd.
func (u *usageReader) exchange(pid int, pattern string) (string, error) {
	if _, err := fmt.Fprintf(u.in, "%d %s\n", pid, pattern); err != nil {
		return "", err
	}
	var b strings.Builder
	for b.Len() <= maxUsageAnswer {
		line, err := u.out.ReadString('\n')
		if err != nil {
			return "", err
		}
		if line == usageEnd+"\n" {
			return b.String(), nil
		}
		b.WriteString(line)
	}
	return "", fmt.Errorf("an answer of over %d bytes", maxUsageAnswer)
}

// start opens the channel, over the host's lifeline connection, tagged as the session's so
// the host's clean-up ends it with the rest if the harness is gone.
func (u *usageReader) start(s *Session) error {
	h := u.h
	script := fill(usageLoop, "TAGVALUE", Quote(s.ID+"/usage;"), "MAXTHREADS", strconv.Itoa(procfs.MaxThreads))
	cmd := exec.Command(s.r.o.SSH, append(s.r.sshArgs(h, s.mux(h)...), s.r.remoteCommand(script))...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	u.stderr = &tailBuffer{max: 4 << 10}
	cmd.Stderr = u.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	u.cmd, u.in, u.out = cmd, in, bufio.NewReader(out)
	return nil
}

// stop closes the channel (the loop ends at its end of input) and reaps the ssh.
func (u *usageReader) stop() {
	if u.cmd == nil {
		return
	}
	u.in.Close()
	done := make(chan struct{})
	go func() { u.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		u.cmd.Process.Kill()
		<-done
	}
	u.cmd = nil
}

// close is stop for the session's Close.
func (u *usageReader) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.stop()
}
