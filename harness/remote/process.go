package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bindrace/bindrace/harness/internal/procfs"
)

// ProcessSpec is a long-running command for Session.Start.
type ProcessSpec struct {
	// Name labels the process's files and errors ("server", "load"); letters, digits, '.', '_'
	// and '-'. The session appends a sequence number, so names repeat freely.
	Name string
	// Argv is the command: Argv[0] is looked up on the host's PATH, or is a path (such as
	// Session.Path of a copied binary).
	Argv []string
	// Env holds KEY=VALUE pairs added to the host's environment for the command.
	Env []string
	// Dir is the working directory on the host; "" is the session directory.
	Dir string
	// SeparateStdout sends stdout to its own file (Process.Out, read by Output), for a command
	// whose stdout is a result (a load generator's JSON); otherwise stdout and stderr share Log.
	SeparateStdout bool
	// Stdin is what the command reads on its standard input (a load generator's config), kept
	// in a file beside its log; nil: nothing (end of file at once).
	Stdin []byte
}

// Process is a command running on a host in its own process group (its own session, through
// setsid), under a small supervising shell that records its exit status. Its methods mirror
// targets.Server's: Usage, Exited, ExitError, Stop.
type Process struct {
	Host    Host
	Name    string    // unique in the session: spec name and sequence number, "server-3"
	Pid     int       // the command's pid on the host
	Pgid    int       // its process group: the supervising shell is the group leader
	Log     string    // its stderr (and stdout unless SeparateStdout) on the host
	Out     string    // its stdout on the host (the same file as Log unless SeparateStdout)
	Started time.Time // when the host reported it running

	s        *Session
	tag      string
	file     string // path prefix of its .pid and .status files
	stopOnce sync.Once
	stopErr  error
	watch    sync.Once
	endOnce  sync.Once
	ended    chan struct{}
	endCode  int   // exit status, -1 when unknown (valid once ended is closed)
	endErr   error // why it ended, when not by exiting on its own
}

var (
	namePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,40}$`)
	envPattern  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	errStopped  = errors.New("stopped")
)

const startScript = `
cd @WORKDIR@ || exit 1
BINDRACE_PROC=@TAGVALUE@; export BINDRACE_PROC
@EXPORTS@
if ! command -v @ARGV0@ >/dev/null 2>&1; then echo @ARGV0Q@": not found (PATH=$PATH)" >&2; exit 127; fi
f=@FILE@
rm -f "$f.pid" "$f.status"
cat >"$f.in" || exit 1
setsid sh -c '"$@" <"$0.in" & echo "$$ $!" >"$0.pid"; wait $!; echo $? >"$0.status"' "$f" @ARGV@ </dev/null @REDIRECT@ &
i=0
while [ ! -s "$f.pid" ]; do
  if [ $i -ge 100 ]; then echo "no pid file after 5s" >&2; tail -n 5 @LOG@ >&2; exit 1; fi
  sleep 0.05; i=$((i+1))
done
cat "$f.pid"
`

// Start runs spec on h in the background, in its own process group, and returns once the host
// reports its pid. Like targets.Target.Start, ctx covers the process's whole life: cancelling
// it stops the process. Whatever happens, Session.Close stops it.
func (s *Session) Start(ctx context.Context, h Host, spec ProcessSpec) (*Process, error) {
	if err := spec.check(); err != nil {
		return nil, &Error{Host: h, Op: "start " + spec.Name, Kind: err, ExitCode: -1}
	}
	if err := s.Open(ctx, h); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, &Error{Host: h, Op: "start " + spec.Name, Kind: errClosed, ExitCode: -1}
	}
	s.seq++
	seq := s.seq
	s.mu.Unlock()

	name := fmt.Sprintf("%s-%d", spec.Name, seq)
	p := &Process{Host: h, Name: name, s: s, tag: processTag(s.ID, seq), file: s.Path(name),
		Log: s.Path(name + ".log"), ended: make(chan struct{}), endCode: -1}
	script, stdin := s.startCommand(spec, p)
	out, err := s.run(ctx, h, "start "+name+" ("+abbrev(strings.Join(spec.Argv, " "))+")", script, stdin)
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return nil, &Error{Host: h, Op: "start " + name, Kind: ErrCommand, ExitCode: -1, Detail: fmt.Sprintf("unexpected pid report %q", out)}
	}
	p.Pgid, _ = strconv.Atoi(f[0])
	p.Pid, _ = strconv.Atoi(f[1])
	if p.Pgid <= 1 || p.Pid <= 1 {
		return nil, &Error{Host: h, Op: "start " + name, Kind: ErrCommand, ExitCode: -1, Detail: fmt.Sprintf("unexpected pid report %q", out)}
	}
	p.Started = time.Now()
	s.mu.Lock()
	s.procs = append(s.procs, p)
	s.mu.Unlock()
	go func() {
		select {
		case <-ctx.Done():
			p.Stop()
		case <-p.ended:
		case <-s.done:
		}
	}()
	return p, nil
}

// startCommand is the script that starts spec as p, and what it reads on its own stdin: the
// command's input, which it saves beside the log for the command to read. (An asynchronous
// command of a shell script reads /dev/null unless its stdin is redirected, so the command
// reads the file, not the script's stdin.)
func (s *Session) startCommand(spec ProcessSpec, p *Process) (string, io.Reader) {
	p.Out = p.Log
	redirect := ">" + Quote(p.Log) + " 2>&1"
	if spec.SeparateStdout {
		p.Out = s.Path(p.Name + ".out")
		redirect = ">" + Quote(p.Out) + " 2>" + Quote(p.Log)
	}
	workdir := spec.Dir
	if workdir == "" {
		workdir = s.Dir
	}
	var exports []string
	for _, kv := range spec.Env {
		exports = append(exports, "export "+Quote(kv))
	}
	return fill(startScript,
		"WORKDIR", Quote(workdir),
		"TAGVALUE", Quote(strings.TrimPrefix(p.tag, tagVar+"=")),
		"EXPORTS", strings.Join(exports, "\n"),
		"ARGV0Q", Quote(spec.Argv[0]),
		"ARGV0", Quote(spec.Argv[0]),
		"FILE", Quote(p.file),
		"ARGV", Command(spec.Argv...),
		"REDIRECT", redirect,
		"LOG", Quote(p.Log)), bytes.NewReader(spec.Stdin)
}

func (spec ProcessSpec) check() error {
	if !namePattern.MatchString(spec.Name) {
		return fmt.Errorf("process name %q: want 1-40 of A-Z a-z 0-9 . _ -", spec.Name)
	}
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return errors.New("empty command")
	}
	for _, kv := range spec.Env {
		if !envPattern.MatchString(kv) {
			return fmt.Errorf("environment entry %q: want KEY=VALUE", kv)
		}
		if strings.HasPrefix(kv, tagVar+"=") {
			return fmt.Errorf("environment entry %q: %s is the session's own", kv, tagVar)
		}
	}
	if spec.Dir != "" && !strings.HasPrefix(spec.Dir, "/") {
		return fmt.Errorf("working directory %q: want an absolute path", spec.Dir)
	}
	return nil
}

func (p *Process) op(what string) string {
	return what + " " + p.Name + " (pid " + strconv.Itoa(p.Pid) + ")"
}

// markEnded records how the process ended, once.
func (p *Process) markEnded(code int, err error) {
	p.endOnce.Do(func() {
		p.endCode, p.endErr = code, err
		close(p.ended)
	})
}

// Alive reports whether the command still runs on the host.
func (p *Process) Alive(ctx context.Context) (bool, error) {
	script := fill(`if grep -qsaz -e @TAG@ /proc/@PID@/environ; then echo alive; else echo gone; fi`,
		"TAG", Quote(tagPattern(p.tag)), "PID", strconv.Itoa(p.Pid))
	out, err := p.s.run(ctx, p.Host, p.op("check"), script, nil)
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(string(out)) == "alive", nil
}

// Exited is closed when the command has ended: it exited, it was stopped, its session closed,
// or the connection to its host was lost (ExitError tells which). The first call starts a
// watcher: one ssh connection that lasts as long as the process.
func (p *Process) Exited() <-chan struct{} {
	p.watch.Do(func() { go p.watchExit() })
	return p.ended
}

func (p *Process) watchExit() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-p.ended:
		case <-p.s.done:
		}
		cancel()
	}()
	// The supervising shell writes .status right after the command ends, but not at the same
	// instant: wait for it (5 s at most) so a command that exited on its own is never taken for
	// one killed from outside.
	script := fill(`while grep -qsaz -e @TAG@ /proc/@PID@/environ; do sleep 0.2; done
i=0; while [ ! -s @FILE@.status ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
cat @FILE@.status 2>/dev/null; exit 0`,
		"TAG", Quote(tagPattern(p.tag)), "PID", strconv.Itoa(p.Pid), "FILE", Quote(p.file))
	out, err := p.s.run(ctx, p.Host, p.op("watch"), script, nil)
	if ctx.Err() != nil {
		return // ended otherwise: stopped or the session closed
	}
	code, convErr := strconv.Atoi(strings.TrimSpace(string(out)))
	if (err != nil || convErr != nil) && p.s.isClosed() {
		p.markEnded(-1, errClosed) // Close's clean-up ended it, or the connection with it
		return
	}
	if err != nil {
		p.markEnded(-1, err)
		return
	}
	if convErr != nil {
		p.markEnded(-1, &Error{Host: p.Host, Op: p.op("watch"), Kind: ErrCommand, ExitCode: -1,
			Detail: "it ended without an exit status (killed by a signal from outside the session?)"})
		return
	}
	p.markEnded(code, nil)
}

// Wait waits until the command ends and returns its exit status; the error is non-nil when it
// ended otherwise (stopped, session closed, connection lost) or ctx ended first.
func (p *Process) Wait(ctx context.Context) (int, error) {
	select {
	case <-p.Exited():
		return p.endCode, p.endErr
	case <-ctx.Done():
		return -1, ctx.Err()
	}
}

// ExitError describes how the command ended; nil while it runs.
func (p *Process) ExitError() error {
	select {
	case <-p.ended:
	default:
		return nil
	}
	if p.endErr != nil {
		return fmt.Errorf("%s on %s: %w", p.Name, p.Host, p.endErr)
	}
	return fmt.Errorf("%s on %s exited with status %d (log: %s)", p.Name, p.Host, p.endCode, p.Log)
}

const stopScript = procLib + `
if [ -z "$(tagged @TAG@)" ]; then
  echo "gone $(cat @FILE@.status 2>/dev/null)"
  tail -n 10 @LOG@ 2>/dev/null
  exit 0
fi
stop @TAG@ @GRACE@ || exit 3
`

// Stop sends SIGTERM to the process group (and to any process of the command that left it),
// waits up to the session's StopGrace, then sends SIGKILL, and confirms that no process of the
// command is left on the host. It is idempotent. The error is nil when the command ended on
// SIGTERM or had exited with status 0; it says so when the command needed SIGKILL, had died
// with another status before (a crash, with its log's tail), or could not be reached.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() {
		select {
		case <-p.ended:
			if p.endErr == errClosed {
				return // Session.Close stopped it and confirmed so
			}
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), p.s.r.o.CommandTimeout+p.s.o.StopGrace)
		defer cancel()
		script := fill(stopScript, "TAG", Quote(tagPattern(p.tag)), "FILE", Quote(p.file), "LOG", Quote(p.Log),
			"GRACE", tenths(p.s.o.StopGrace))
		out, err := p.s.run(ctx, p.Host, p.op("stop"), script, nil)
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		switch first := strings.TrimSpace(lines[0]); {
		case err != nil && p.s.isClosed():
			// Close ran meanwhile and took the connection down; it stops the process and
			// reports on its own.
			p.markEnded(-1, errClosed)
		case err != nil:
			var e *Error
			if errors.As(err, &e) && e.Kind == ErrCommand && e.ExitCode == 3 {
				e.Detail = "processes survived SIGKILL: " + first
			}
			p.stopErr = err
			p.markEnded(-1, err)
		case first == "stopped":
			p.markEnded(-1, errStopped)
		case first == "killed":
			p.stopErr = &Error{Host: p.Host, Op: p.op("stop"), Kind: ErrCommand, ExitCode: -1,
				Detail: fmt.Sprintf("ignored SIGTERM for %s and was killed", p.s.o.StopGrace)}
			p.markEnded(-1, errStopped)
		case strings.HasPrefix(first, "gone"):
			status := strings.TrimSpace(strings.TrimPrefix(first, "gone"))
			logTail := lastLines(strings.Join(lines[1:], "\n"), 10)
			code, convErr := strconv.Atoi(status)
			switch {
			case convErr == nil && code == 0:
				p.markEnded(0, nil)
			case convErr == nil:
				p.markEnded(code, nil)
				p.stopErr = &Error{Host: p.Host, Op: p.op("stop"), Kind: ErrCommand, ExitCode: -1,
					Detail: fmt.Sprintf("had already exited (exit status %d); its log ends: %s", code, logTail)}
			case p.s.isClosed():
				p.markEnded(-1, errClosed) // the session's clean-up, running meanwhile, ended it
			default:
				p.stopErr = &Error{Host: p.Host, Op: p.op("stop"), Kind: ErrCommand, ExitCode: -1,
					Detail: "had already ended without an exit status (killed by a signal from outside the session?); its log ends: " + logTail}
				p.markEnded(-1, p.stopErr)
			}
		default:
			p.stopErr = &Error{Host: p.Host, Op: p.op("stop"), Kind: ErrCommand, ExitCode: -1, Detail: fmt.Sprintf("unexpected report %q", out)}
			p.markEnded(-1, p.stopErr)
		}
	})
	return p.stopErr
}

// Usage reads /proc/<pid>/stat and /proc/<pid>/status on the host and parses them as
// procfs.ReadUsage does locally: CPU seconds (user + system, all threads), RSS now and its peak.
func (p *Process) Usage() (procfs.Usage, error) { return p.UsageOf(p.Pid) }

// LogTail returns the last n lines of the process's log on the host.
func (p *Process) LogTail(ctx context.Context, n int) (string, error) {
	out, err := p.s.run(ctx, p.Host, p.op("read log of"), "tail -n "+strconv.Itoa(max(n, 1))+" "+Quote(p.Log), nil)
	return string(out), err
}

// Output returns the content of the process's stdout file on the host (with SeparateStdout,
// the command's result; otherwise the shared log), up to MaxOutput bytes: more is an error, so
// a command that prints without end cannot fill this process's memory.
func (p *Process) Output(ctx context.Context) ([]byte, error) {
	out, err := p.s.run(ctx, p.Host, p.op("read output of"), "head -c "+strconv.Itoa(MaxOutput+1)+" "+Quote(p.Out), nil)
	if err == nil && len(out) > MaxOutput {
		return out[:MaxOutput], &Error{Host: p.Host, Op: p.op("read output of"), Kind: ErrCommand, ExitCode: -1,
			Detail: fmt.Sprintf("it printed over %d bytes", MaxOutput)}
	}
	return out, err
}

// MaxOutput bounds what Output reads: a load's JSON with its histograms is a few KiB.
const MaxOutput = 1 << 20
