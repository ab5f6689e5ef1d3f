package fleet

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/remote"
	"github.com/bindrace/bindrace/harness/targets"
)

// Server is a target's scenario server on the server host: `bindrace serve` there, listening
// on every address; Pid is the serving process (the spawned binding-server or node for those
// targets, bindrace itself for the Go targets), whose CPU and RSS Usage reads from the host's
// /proc.
type Server struct {
	Target  string
	Host    remote.Host
	Port    int
	Pid     int
	Startup time.Duration

	proc *remote.Process
}

var listeningLine = regexp.MustCompile(`listening on :(\d+) \(pid (\d+)`)

// StartServer copies what target needs to the server host (binding-server, or for uws its
// server source and node_modules after checking the host has Node 20) and starts it with
// threads threads; it returns once the server says it listens. ctx covers the server's life.
func (f *Fleet) StartServer(ctx context.Context, target string, threads int, startTimeout time.Duration) (*Server, error) {
	if f.Server == nil {
		return nil, fmt.Errorf("fleet: no server host")
	}
	h := *f.Server
	if err := f.prepareTarget(ctx, h, target); err != nil {
		return nil, err
	}
	argv := []string{f.bindrace(), "serve", "--target", target, "--port", "0"}
	if threads > 0 {
		argv = append(argv, "--threads", strconv.Itoa(threads))
	}
	t0 := time.Now()
	p, err := f.s.Start(ctx, h, remote.ProcessSpec{Name: "server", Argv: argv, SeparateStdout: true,
		Env: []string{"BINDRACE_ROOT=" + f.s.Dir, "BINDRACE_LISTEN_HOST=0.0.0.0"}})
	if err != nil {
		return nil, err
	}
	srv := &Server{Target: target, Host: h, proc: p}
	if startTimeout <= 0 {
		startTimeout = 30 * time.Second
	}
	if err := srv.awaitListening(ctx, startTimeout); err != nil {
		p.Stop()
		return nil, err
	}
	srv.Startup = time.Since(t0)
	return srv, nil
}

// prepareTarget copies what target runs from on h.
func (f *Fleet) prepareTarget(ctx context.Context, h remote.Host, target string) error {
	if err := f.copySelf(ctx, h); err != nil {
		return err
	}
	switch {
	case target == "binding" || target == "binding-static":
		return f.copy(ctx, h, filepath.Join("bin", "binding-server"))
	case target == "binding-plain":
		return f.copy(ctx, h, filepath.Join("bin", "binding-server-plain"))
	case target == "uws":
		if err := f.r.RequireNode(ctx, h, 20); err != nil {
			return err
		}
		return f.copy(ctx, h, filepath.Join("harness", "targets", "uws"))
	case strings.HasPrefix(target, "cmd:"):
		return fmt.Errorf("host %s: a cmd: target cannot run on a server host (its command is local)", h)
	}
	return nil
}

// awaitListening reads the server's stdout until it names its port and pid.
func (s *Server) awaitListening(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		out, err := s.proc.Output(ctx)
		if err == nil {
			if m := listeningLine.FindSubmatch(out); m != nil {
				s.Port, _ = strconv.Atoi(string(m[1]))
				s.Pid, _ = strconv.Atoi(string(m[2]))
				return nil
			}
		}
		select {
		case <-s.proc.Exited():
			tail, _ := s.proc.LogTail(context.Background(), 5)
			return fmt.Errorf("host %s: target %s exited while starting: %v %s", s.Host, s.Target, s.proc.ExitError(), strings.TrimSpace(tail))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("host %s: target %s not listening after %s", s.Host, s.Target, timeout)
		}
	}
}

// Addr is host:port as the clients and the harness dial it.
func (s *Server) Addr() string { return net.JoinHostPort(s.Host.Name, strconv.Itoa(s.Port)) }

// Usage reads the serving process's CPU time and RSS from the host's /proc.
func (s *Server) Usage() (procfs.Usage, error) { return s.proc.UsageOf(s.Pid) }

// Info asks the server for its heap and threads (targets.InfoAt).
func (s *Server) Info() (targets.Info, error) { return targets.InfoAt(s.Target, s.Addr()) }

// Exited is closed when the server's process has ended.
func (s *Server) Exited() <-chan struct{} { return s.proc.Exited() }

// ExitError says how it ended.
func (s *Server) ExitError() error { return s.proc.ExitError() }

// Stop stops it (SIGTERM, grace, SIGKILL) and confirms nothing of it is left on the host.
func (s *Server) Stop() error { return s.proc.Stop() }
