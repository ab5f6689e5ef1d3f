package remote

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// SessionOptions shape a session.
type SessionOptions struct {
	// ID names the session directory (<BaseDir>/bindrace-<ID>) and tags its processes;
	// letters, digits, '.', '_' and '-'. "" generates one from the time, pid and a random part.
	ID string
	// BaseDir is the absolute directory on every host that holds the session directory;
	// "" means /tmp.
	BaseDir string
	// StopGrace is the time from SIGTERM to SIGKILL when a process is stopped; 0 means 3 s.
	StopGrace time.Duration
	// Heartbeat is how often the session tells each host it is alive; 0 means 5 s.
	Heartbeat time.Duration
	// Silence is how long a host waits for a heartbeat before it ends the session's processes
	// and removes its directory by itself (the harness died or the connection broke); 0 means
	// 30 s. It must exceed Heartbeat by at least a second.
	Silence time.Duration
}

// Session is one harness run's presence on its hosts: a directory on each host, the processes
// it started there, and a lifeline connection per host. Close ends all of it.
//
// The lifeline is an ssh connection per host whose remote end reads heartbeats; when it ends
// (Close closes it, the harness dies, the connection drops, or heartbeats stop for Silence),
// the host itself stops every process of the session and removes its directory. So a session
// leaves nothing running even when the harness cannot reach the host any more. The lifeline is
// also the ssh master connection (ControlMaster) that the session's other commands and copies
// to that host share, so they skip the key exchange and authentication of a new connection.
type Session struct {
	ID  string
	Dir string // the session directory, the same path on every host

	r      *Runner
	o      SessionOptions
	mu     sync.Mutex
	hosts  map[string]*hostState
	procs  []*Process
	seq    int
	closed bool
	done   chan struct{} // closed by Close: process watchers and lifelines stop
	result error
	ctlDir string // private local directory of the ssh control sockets
}

type hostState struct {
	h     Host
	ctl   string        // the control socket of the lifeline's master connection
	ready chan struct{} // closed when the lifeline said ready or failed
	err   error         // why the host cannot be used (valid once ready is closed)

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	ended  chan struct{} // closed when the lifeline's ssh exited
	endErr error         // its failure, if any (valid once ended is closed)
	report []string      // lines the remote end printed after "ready"
	stderr *tailBuffer

	usage *usageReader // the server's usage reads, over a channel of their own
}

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// NewSession prepares a session; hosts are contacted when first used (Open, Copy, Start).
func (r *Runner) NewSession(o SessionOptions) (*Session, error) {
	if o.ID == "" {
		o.ID = fmt.Sprintf("%s-%d-%04x", time.Now().UTC().Format("20060102T150405"), os.Getpid(), rand.N(1<<16))
	}
	if !sessionIDPattern.MatchString(o.ID) || strings.Trim(o.ID, ".") == "" {
		return nil, fmt.Errorf("session id %q: want 1-64 of A-Z a-z 0-9 . _ -", o.ID)
	}
	o.BaseDir = cmp.Or(o.BaseDir, "/tmp")
	if !path.IsAbs(o.BaseDir) || strings.ContainsAny(o.BaseDir, "\n\x00") {
		return nil, fmt.Errorf("session base directory %q: want an absolute path", o.BaseDir)
	}
	o.StopGrace = positiveOr(o.StopGrace, 3*time.Second)
	o.Heartbeat = positiveOr(o.Heartbeat, 5*time.Second)
	o.Silence = positiveOr(o.Silence, 30*time.Second)
	if o.Silence < o.Heartbeat+time.Second {
		return nil, fmt.Errorf("session silence %s must exceed the heartbeat %s by at least 1s", o.Silence, o.Heartbeat)
	}
	return &Session{
		ID:    o.ID,
		Dir:   path.Join(path.Clean(o.BaseDir), "bindrace-"+o.ID),
		r:     r,
		o:     o,
		hosts: map[string]*hostState{},
		done:  make(chan struct{}),
	}, nil
}

// Path is the path on the hosts of name inside the session directory.
func (s *Session) Path(name string) string { return path.Join(s.Dir, name) }

// Hosts lists the hosts the session has opened.
func (s *Session) Hosts() []Host {
	s.mu.Lock()
	defer s.mu.Unlock()
	hs := make([]Host, 0, len(s.hosts))
	for _, st := range s.hosts {
		hs = append(hs, st.h)
	}
	return hs
}

// Processes lists every process the session started, stopped ones included.
func (s *Session) Processes() []*Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Process(nil), s.procs...)
}

var errClosed = errors.New("session is closed")

func (s *Session) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Open makes the session directory on h and starts the host's lifeline. It is idempotent;
// Copy and Start call it. A host whose lifeline ended cannot be used again in this session.
func (s *Session) Open(ctx context.Context, h Host) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return &Error{Host: h, Op: "open session " + s.ID, Kind: errClosed, ExitCode: -1}
	}
	st, ok := s.hosts[h.String()]
	if !ok {
		if s.ctlDir == "" {
			dir, err := os.MkdirTemp("", "bindrace-ssh-")
			if err != nil {
				s.mu.Unlock()
				return &Error{Host: h, Op: "open session " + s.ID, Kind: err, ExitCode: -1}
			}
			s.ctlDir = dir
		}
		st = &hostState{h: h, usage: &usageReader{h: h}, ready: make(chan struct{}), ended: make(chan struct{}), stderr: &tailBuffer{max: 4 << 10},
			ctl: filepath.Join(s.ctlDir, strconv.Itoa(len(s.hosts)))}
		s.hosts[h.String()] = st
	}
	s.mu.Unlock()
	if !ok {
		st.err = s.startLifeline(ctx, st)
		close(st.ready)
	}
	select {
	case <-st.ready:
	case <-ctx.Done():
		return &Error{Host: h, Op: "open session " + s.ID, Kind: ctx.Err(), ExitCode: -1}
	}
	if st.err != nil {
		return st.err
	}
	select {
	case <-st.ended:
		return &Error{Host: h, Op: "session " + s.ID, Kind: ErrLost, ExitCode: -1,
			Detail: "the session's lifeline to this host ended, so the host stopped the session's processes there: " + describeEnd(st)}
	default:
		return nil
	}
}

func (s *Session) startLifeline(ctx context.Context, st *hostState) error {
	op := "lifeline of session " + s.ID
	script := fill(lifelineScript, "DIR", Quote(s.Dir), "TAG", Quote(tagPattern(sessionTag(s.ID))),
		"GRACE", tenths(s.o.StopGrace), "SILENCE", seconds(s.o.Silence))
	master := []string{"-o", "ControlMaster=yes", "-o", "ControlPersist=no", "-o", "ControlPath=" + st.ctl}
	cmd := exec.Command(s.r.o.SSH, append(s.r.sshArgs(st.h, master...), s.r.remoteCommand(script))...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = st.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return &Error{Host: st.h, Op: op, Kind: ErrSSH, ExitCode: -1, Detail: err.Error()}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return &Error{Host: st.h, Op: op, Kind: ErrSSH, ExitCode: -1, Detail: err.Error()}
	}
	if err := cmd.Start(); err != nil {
		return &Error{Host: st.h, Op: op, Kind: ErrSSH, ExitCode: -1, Detail: err.Error()}
	}
	st.cmd, st.stdin = cmd, stdin
	readyLine := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		first := true
		for sc.Scan() {
			if first {
				readyLine <- sc.Text() == "ready"
				first = false
				continue
			}
			st.report = append(st.report, sc.Text())
		}
		if first {
			readyLine <- false
		}
		err := cmd.Wait()
		if err != nil {
			code := -1
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			e := newError(st.h, op, code, st.stderr.String())
			if code == 255 && e.Kind == ErrCommand {
				// The lifeline's own script never exits 255: ssh did, silently (LogLevel
				// above INFO hides "Timeout, server not responding").
				e.Kind, e.ExitCode, e.Detail = ErrLost, -1, "ssh ended the connection (exit status 255)"
			}
			st.endErr = e
		}
		close(st.ended)
	}()
	go s.heartbeat(st)

	limit := time.NewTimer(s.r.o.ConnectTimeout + s.r.o.CommandTimeout)
	defer limit.Stop()
	select {
	case ok := <-readyLine:
		if ok {
			return nil
		}
		<-st.ended
		if st.endErr != nil {
			return st.endErr
		}
		return &Error{Host: st.h, Op: op, Kind: ErrCommand, ExitCode: -1, Detail: "the host did not make " + s.Dir}
	case <-ctx.Done():
		cmd.Process.Kill()
		<-st.ended
		return &Error{Host: st.h, Op: op, Kind: ctx.Err(), ExitCode: -1}
	case <-limit.C:
		cmd.Process.Kill()
		<-st.ended
		return &Error{Host: st.h, Op: op, Kind: ErrUnreachable, ExitCode: -1, Detail: "no answer within " + (s.r.o.ConnectTimeout + s.r.o.CommandTimeout).String()}
	}
}

// heartbeat feeds the lifeline until the session closes or the lifeline ends.
func (s *Session) heartbeat(st *hostState) {
	t := time.NewTicker(s.o.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if _, err := st.stdin.Write([]byte{'.'}); err != nil {
				return
			}
		case <-st.ended:
			return
		case <-s.done:
			return
		}
	}
}

// mux returns the ssh options that send a command over h's lifeline connection while it is
// up; without it (not opened yet, or gone) ssh connects on its own.
func (s *Session) mux(h Host) []string {
	s.mu.Lock()
	st := s.hosts[h.String()]
	s.mu.Unlock()
	if st == nil {
		return nil
	}
	select {
	case <-st.ended:
		return nil
	default:
	}
	if _, err := os.Stat(st.ctl); err != nil {
		return nil
	}
	return []string{"-o", "ControlMaster=no", "-o", "ControlPath=" + st.ctl}
}

// Run runs a POSIX sh script on h like Runner.Run, over the session's connection to h when
// the session has opened h.
func (s *Session) Run(ctx context.Context, h Host, script string) ([]byte, error) {
	return s.run(ctx, h, "run "+abbrev(script), script, nil)
}

func (s *Session) run(ctx context.Context, h Host, op, script string, in io.Reader) ([]byte, error) {
	out, err := s.r.run(ctx, h, op, script, in, s.mux(h)...)
	s.mu.Lock()
	st := s.hosts[h.String()]
	s.mu.Unlock()
	return out, dropped(st, err)
}

// dropped names a lost connection for what it is: a command through the lifeline of st whose
// ssh exited 255 without a word, as the lifeline ended too, was cut off with it (the mux client
// says nothing when its master connection drops).
func dropped(st *hostState, err error) error {
	var e *Error
	if st == nil || !errors.As(err, &e) || e.Kind != ErrCommand || e.ExitCode != 255 || e.Detail != "" {
		return err
	}
	select {
	case <-st.ended:
	case <-time.After(2 * time.Second):
		return err
	}
	e.Kind, e.ExitCode, e.Detail = ErrLost, -1, "the session's connection to the host dropped"
	return e
}

func describeEnd(st *hostState) string {
	if st.endErr != nil {
		return st.endErr.Error()
	}
	return strings.Join(st.report, "; ")
}

// Close stops every process the session started on every host, confirms none is left, and
// removes the session directories, host by host in parallel. It takes no context, so it
// still works after a Ctrl-C cancelled the harness's; its own time is bounded by the runner's
// CommandTimeout plus the stop grace. A host that cannot be reached is reported by name; the
// others are cleaned up all the same, and the lost host ends the session's processes by itself
// once the lifeline is gone (at the latest Silence after the last heartbeat). Close is
// idempotent: later calls return the first result.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.done
		return s.result
	}
	s.closed = true
	hosts := make([]*hostState, 0, len(s.hosts))
	for _, st := range s.hosts {
		hosts = append(hosts, st)
	}
	procs := append([]*Process(nil), s.procs...)
	s.mu.Unlock()

	errs := make([]error, len(hosts))
	var wg sync.WaitGroup
	for i, st := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.closeHost(st)
		}()
	}
	wg.Wait()
	for _, p := range procs {
		p.markEnded(-1, errClosed)
	}
	if s.ctlDir != "" {
		errs = append(errs, os.RemoveAll(s.ctlDir))
	}
	s.result = errors.Join(errs...)
	close(s.done)
	return s.result
}

func (s *Session) closeHost(st *hostState) error {
	<-st.ready
	if st.err != nil {
		return nil // Open failed (and said so): nothing was started on this host
	}
	op := "close session " + s.ID
	limit := s.r.o.CommandTimeout + s.o.StopGrace
	st.usage.close()
	// Closing the lifeline's stdin is the signal: the host cleans up and reports.
	st.stdin.Close()
	select {
	case <-st.ended:
	case <-time.After(limit):
		st.cmd.Process.Kill()
		<-st.ended
	}
	if st.endErr == nil {
		return checkReport(st.h, op, st.report)
	}
	// The lifeline broke earlier or now (a lost connection): try a fresh connection.
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	script := fill(cleanupScript, "DIR", Quote(s.Dir), "TAG", Quote(tagPattern(sessionTag(s.ID))), "GRACE", tenths(s.o.StopGrace))
	out, err := s.r.run(ctx, st.h, op, script, nil)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Kind == ErrCommand && e.ExitCode == 3 {
			return checkReport(st.h, op, strings.Split(strings.TrimSpace(string(out)), "\n"))
		}
		return fmt.Errorf("%w; the host ends the session's processes by itself when it notices the lifeline is gone (within %s of the last heartbeat); first failure: %v",
			err, s.o.Silence, describeEnd(st))
	}
	return checkReport(st.h, op, strings.Split(strings.TrimSpace(string(out)), "\n"))
}

// checkReport reads the clean-up's last line: "clean", or "left <pids>".
func checkReport(h Host, op string, lines []string) error {
	last := ""
	if len(lines) > 0 {
		last = strings.TrimSpace(lines[len(lines)-1])
	}
	if last == "clean" {
		return nil
	}
	if pids, ok := strings.CutPrefix(last, "left"); ok {
		return &Error{Host: h, Op: op, Kind: ErrCommand, ExitCode: -1,
			Detail: "processes survived SIGKILL: pids" + pids}
	}
	return &Error{Host: h, Op: op, Kind: ErrCommand, ExitCode: -1, Detail: fmt.Sprintf("unexpected clean-up report %q", strings.Join(lines, "; "))}
}
