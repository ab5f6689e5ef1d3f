package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bindrace/bindrace/harness/internal/child"
	"github.com/bindrace/bindrace/harness/internal/machine"
)

// StartOptions shape one server process.
type StartOptions struct {
	Port         int           // 0: a free port is picked
	Threads      int           // server threads/event loops; 0: the server's default
	CPUs         string        // taskset CPU list ("1", "2-3"); "" = not pinned
	Wrap         []string      // command prefix, e.g. valgrind; the server stays the measured pid
	StartTimeout time.Duration // 0: the definition's start.timeout_s or 10 s; 2 min when wrapped
	Log          io.Writer     // server stdout/stderr are copied here when set
	Env          []string      // more environment, e.g. the database's (harness/db.EnvURL, EnvPool)
	// Listen is the IP address the server listens on; "": loopback (127.0.0.1). A server
	// others must reach (on a remote race's server host) is given 0.0.0.0.
	Listen string

	nodeDir string // a node server's NodeRuntime.Dir, for its command
}

// Server is one running server process.
type Server struct {
	Target  string
	Port    int
	Pid     int
	Startup time.Duration // spawn to first valid ping response
	Listen  string        // the address it listens on
	// Node is where a node target's threads hand over their runtime figures (nil for the
	// other kinds).
	Node *NodeRuntime
	// GC reads a traced Go server's collections from its output (nil unless Target.TracesGC).
	GC *GCTrace

	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error // set before exited is closed
	out     *child.Tail
	stop    sync.Once
	stopErr error
	quota   *cpuQuota // the cgroup capping a "T@cpuNN" server, removed with it
}

const (
	defaultStartTimeout = 10 * time.Second
	wrappedStartTimeout = 2 * time.Minute // valgrind's start-up is 20-50x slower
	stopGrace           = 3 * time.Second
	pollEvery           = 3 * time.Millisecond
)

// live holds every started server that is not stopped yet, for StopAll.
var live = struct {
	sync.Mutex
	m map[*Server]struct{}
}{m: map[*Server]struct{}{}}

// StopAll stops every server this process started and has not stopped; the CLI calls it when
// interrupted so no server outlives the harness.
func StopAll() error {
	live.Lock()
	servers := make([]*Server, 0, len(live.m))
	for s := range live.m {
		servers = append(servers, s)
	}
	live.Unlock()
	var errs []error
	for _, s := range servers {
		errs = append(errs, s.Stop())
	}
	return errors.Join(errs...)
}

// Start spawns a fresh server in its own process group and waits until GET / answers "hi".
// ctx covers the server's whole life, like exec.CommandContext: cancelling it stops the server.
func (t *Target) Start(ctx context.Context, o StartOptions) (*Server, error) {
	if o.Port != 0 {
		if err := checkPortFree(o.Port); err != nil {
			return nil, fmt.Errorf("target %s: %w", t.Name, err)
		}
		return t.start(ctx, o, o.Port)
	}
	// A port picked here is free only until someone else binds it, and a slow start-up (valgrind,
	// node) leaves seconds for that; when another process took it, a fresh port is tried.
	for attempt := 1; ; attempt++ {
		port, err := pickPort()
		if err != nil {
			return nil, fmt.Errorf("target %s: picking a free port: %w", t.Name, err)
		}
		s, err := t.start(ctx, o, port)
		if err == nil || !errors.Is(err, errPortTaken) || attempt == 3 {
			return s, err
		}
	}
}

// errPortTaken: another process listens on the server's port, so the server could not bind it
// or a ping reached the other process instead.
var errPortTaken = errors.New("port taken by another process")

func (t *Target) start(ctx context.Context, o StartOptions, port int) (*Server, error) {
	var node *NodeRuntime
	if t.Runtime == RuntimeNode {
		node = newNodeRuntime()
		o.nodeDir = node.Dir
	}
	argv, env, err := t.command(port, o)
	if err != nil {
		node.remove()
		return nil, err
	}
	timeout := t.startTimeout(o)

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = t.startDir()
	cmd.Env = append(append(os.Environ(), env...), o.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid: true, // own group: Stop signals the server and anything it spawned
		// A safety net if the harness itself is killed: the server gets SIGKILL too.
		Pdeathsig: syscall.SIGKILL,
	}
	out, gc, w := t.outputs(o)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.WaitDelay = time.Second // a grandchild holding the pipes must not hang Wait

	spawned := time.Now()
	if err := child.Start(cmd); err != nil {
		node.remove()
		return nil, fmt.Errorf("target %s: starting %s: %w", t.Name, argv[0], err)
	}
	s := &Server{Target: t.Name, Port: port, Pid: cmd.Process.Pid, Listen: o.listen(), Node: node, GC: gc, cmd: cmd, out: out,
		exited: make(chan struct{})}
	go func() {
		s.waitErr = cmd.Wait()
		node.remove()
		close(s.exited)
	}()
	live.Lock()
	live.m[s] = struct{}{}
	live.Unlock()
	go func() {
		select {
		case <-ctx.Done():
			s.Stop()
		case <-s.exited:
		}
	}()
	if t.CPUQuotaPct > 0 {
		cpus := o.Threads
		if o.CPUs != "" {
			cpus = machine.CountCPUs(o.CPUs)
		}
		if s.quota, err = capCPU(s.Pid, t.CPUQuotaPct, cpus); err != nil {
			s.Stop()
			return nil, fmt.Errorf("target %s: %w", t.Name, err)
		}
	}

	err = s.waitReady(ctx, timeout)
	if (err == nil && !s.ownsListener()) || (err != nil && s.exitedEarly() && checkPortFree(port) != nil) {
		err = fmt.Errorf("%w: port %d%s", errPortTaken, port, s.out.LastLines(15))
	}
	if err != nil {
		s.Stop()
		return nil, fmt.Errorf("target %s (%s): %w", t.Name, strings.Join(argv, " "), err)
	}
	s.Startup = time.Since(spawned)
	return s, nil
}

// outputs is where a server's stdout and stderr go: the tail its errors quote, its collector's
// trace when the harness reads one, and the caller's log.
func (t *Target) outputs(o StartOptions) (*child.Tail, *GCTrace, io.Writer) {
	out := &child.Tail{Max: 8 << 10}
	var gc *GCTrace
	ws := []io.Writer{out}
	if t.TracesGC {
		gc = &GCTrace{}
		ws = append(ws, gc)
	}
	if o.Log != nil {
		ws = append(ws, o.Log)
	}
	if len(ws) == 1 {
		return out, gc, out
	}
	return out, gc, &child.Locked{W: io.MultiWriter(ws...)}
}

// startTimeout bounds a start: the caller's, else valgrind's, else the definition's or 10 s.
func (p *placed) startTimeout(o StartOptions) time.Duration {
	switch {
	case o.StartTimeout > 0:
		return o.StartTimeout
	case len(o.Wrap) > 0:
		return wrappedStartTimeout
	case p.def != nil && p.def.Start.TimeoutS > 0:
		return time.Duration(p.def.Start.TimeoutS) * time.Second
	}
	return defaultStartTimeout
}

// waitReady polls GET / until it answers 200 "hi". Connection refused returns at once, so a
// few-millisecond poll measures start-up to about that resolution.
func (s *Server) waitReady(ctx context.Context, timeout time.Duration) error {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil}}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(timeout)
	url := "http://" + s.Addr() + "/"
	var last, answered error // answered: the last wrong answer, which says more than a timeout
	var wrongSince time.Time // the first of the wrong answers in a row
	for {
		select {
		case <-s.exited:
			return fmt.Errorf("server exited during start-up (%v)%s", s.waitErr, s.out.LastLines(15))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		remaining := time.Until(deadline)
		if remaining <= 0 {
			if answered != nil {
				last = answered
			}
			return fmt.Errorf("no valid answer to GET / within %s (last: %v)%s", timeout, last, s.out.LastLines(15))
		}
		rctx, cancel := context.WithTimeout(ctx, min(remaining, 2*time.Second))
		last = pingOnce(rctx, client, url)
		cancel()
		if last == nil {
			return nil
		}
		if !errors.Is(last, errWrongAnswer) {
			wrongSince = time.Time{}
		} else if answered = last; wrongSince.IsZero() {
			wrongSince = time.Now()
		} else if time.Since(wrongSince) >= wrongAnswerGrace {
			return fmt.Errorf("%w, for %s in a row%s", answered, wrongAnswerGrace, s.out.LastLines(15))
		}
		time.Sleep(pollEvery)
	}
}

var errWrongAnswer = errors.New("not a scenario server")

// wrongAnswerGrace is how long a server may answer GET / wrongly before its start fails: a
// server may answer before its routes are in place, but one that still answers wrongly after
// this is not a scenario server (python's http.server, another program on the port), and waiting
// out the whole start timeout would only delay saying so.
const wrongAnswerGrace = 2 * time.Second

func pingOnce(ctx context.Context, client *http.Client, url string) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64))
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 || string(body) != "hi" {
		return fmt.Errorf("%w: GET / answered %d %q, want 200 \"hi\"", errWrongAnswer, resp.StatusCode, body)
	}
	return nil
}

// Addr is the address clients here use: the one it listens on, loopback when that is every
// address.
func (s *Server) Addr() string {
	host := s.Listen
	if ip, err := netip.ParseAddr(host); err != nil || ip.IsUnspecified() {
		host = loopbackAddr
	}
	return net.JoinHostPort(host, strconv.Itoa(s.Port))
}

// loopback is where a server listens unless asked otherwise.
const loopbackAddr = "127.0.0.1"

// listen is the address the server is told to listen on.
func (o StartOptions) listen() string {
	if o.Listen == "" {
		return loopbackAddr
	}
	return o.Listen
}

// Exited is closed when the server process has died, for whatever reason.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// ExitError describes how the process ended; valid once Exited is closed.
func (s *Server) ExitError() error {
	select {
	case <-s.exited:
		if s.waitErr == nil {
			return errors.New("exited with status 0")
		}
		return fmt.Errorf("%v%s", s.waitErr, s.out.LastLines(15))
	default:
		return nil
	}
}

// Stop sends SIGTERM to the server's process group, waits up to 3 s, then SIGKILLs the group.
// It is idempotent; it returns an error when the server had already died (a crash) or needed
// SIGKILL or exited with a failure status, which a graceful shutdown must not.
func (s *Server) Stop() error {
	s.stop.Do(func() {
		defer func() {
			live.Lock()
			delete(live.m, s)
			live.Unlock()
			s.quota.remove()
		}()
		select {
		case <-s.exited:
			// Died before being asked: a crash. Reap the rest of the group anyway.
			syscall.Kill(-s.Pid, syscall.SIGKILL)
			s.stopErr = fmt.Errorf("target %s (pid %d) had already exited: %v%s", s.Target, s.Pid, s.waitErr, s.out.LastLines(10))
			return
		default:
		}
		syscall.Kill(-s.Pid, syscall.SIGTERM)
		select {
		case <-s.exited:
			// Children the server left in its group (helpers, shells) go too.
			syscall.Kill(-s.Pid, syscall.SIGKILL)
			s.stopErr = gracefulExit(s.waitErr)
			if s.stopErr != nil {
				s.stopErr = fmt.Errorf("target %s (pid %d) on SIGTERM: %w%s", s.Target, s.Pid, s.stopErr, s.out.LastLines(10))
			}
		case <-time.After(stopGrace):
			syscall.Kill(-s.Pid, syscall.SIGKILL)
			<-s.exited
			s.stopErr = fmt.Errorf("target %s (pid %d) ignored SIGTERM for %s and was killed", s.Target, s.Pid, stopGrace)
		}
	})
	return s.stopErr
}

// gracefulExit accepts exit status 0 and death by the SIGTERM we sent (servers without a
// handler, such as python's http.server); anything else is a failed shutdown.
func gracefulExit(err error) error {
	if err == nil {
		return nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM {
			return nil
		}
	}
	return err
}

var pickPort = freePort // tests hand out a taken port through it

// freePort asks the kernel for a port nobody listens on. Another process could take it before
// the server binds; Start notices and picks another.
func freePort() (int, error) { return machine.FreePort("") }

// checkPortFree binds the port without SO_REUSEPORT: servers that set it (uSockets, the native
// core) would otherwise share the port with whoever holds it and split the load silently, and a
// foreign server answering "hi" would pass for ours.
func checkPortFree(port int) error {
	ln, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("port %d is in use", port)
		}
		return fmt.Errorf("port %d cannot be bound: %w", port, err)
	}
	return ln.Close()
}
