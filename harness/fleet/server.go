package fleet

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/remote"
	"github.com/bindrace/bindrace/harness/targets"
)

// Server is a target's scenario server on the server host: `bindrace serve --listen 0.0.0.0`
// there, listening on every IPv4 address of that host (the clients and this harness dial it by
// the host's name), for the server's life only; Pid is the serving process (the binding-server, go-server or node that
// `bindrace serve` spawned), whose CPU and RSS Usage reads from the host's /proc.
type Server struct {
	Target  string
	Host    remote.Host
	Port    int
	Pid     int
	Startup time.Duration

	proc *remote.Process
}

// StartServer copies what target needs to the server host (prepareTarget) and starts it with
// threads threads; it returns once the server's ready line says where it listens. ctx covers
// the server's life.
func (f *Fleet) StartServer(ctx context.Context, target string, threads int, startTimeout time.Duration) (*Server, error) {
	if f.Server == nil {
		return nil, fmt.Errorf("fleet: no server host")
	}
	h := *f.Server
	serve, err := f.prepareTarget(ctx, h, target)
	if err != nil {
		return nil, err
	}
	argv := []string{f.bindrace(), "serve", "--target", serve, "--port", "0", "--listen", everyAddress}
	if threads > 0 {
		argv = append(argv, "--threads", strconv.Itoa(threads))
	}
	t0 := time.Now()
	p, err := f.s.Start(ctx, h, remote.ProcessSpec{Name: "server", Argv: argv, SeparateStdout: true,
		Env: []string{"BINDRACE_ROOT=" + f.s.Dir}})
	if err != nil {
		return nil, err
	}
	srv := &Server{Target: target, Host: h, proc: p}
	if startTimeout <= 0 {
		startTimeout = 30 * time.Second
	}
	if err := srv.awaitReady(ctx, startTimeout); err != nil {
		p.Stop()
		return nil, err
	}
	srv.Startup = time.Since(t0)
	// Open the host's usage reader now: its first read starts an ssh channel (and the login
	// shell's rc files, seconds on a loaded host), which at a window's open would land after
	// the window and leave its CPU measured over another interval (a first run read 0%).
	srv.Usage()
	return srv, nil
}

// everyAddress is what a remote server listens on: other hosts must reach it.
const everyAddress = "0.0.0.0"

// prepareTarget copies what target runs from to h (targets.Target.ForHost), after checking
// that h has the Node it needs, if any; it returns what `bindrace serve --target` names there.
func (f *Fleet) prepareTarget(ctx context.Context, h remote.Host, target string) (string, error) {
	if err := f.copySelf(ctx, h); err != nil {
		return "", err
	}
	t, err := targets.Resolve(target)
	if err != nil {
		return "", err
	}
	needs, err := t.ForHost()
	if err != nil {
		return "", fmt.Errorf("host %s: %w", h, err)
	}
	if needs.NodeMajor > 0 {
		if err := f.r.RequireNode(ctx, h, needs.NodeMajor); err != nil {
			return "", err
		}
	}
	for _, file := range needs.Files {
		if err := f.copyFrom(ctx, h, file.Local, filepath.ToSlash(file.Rel)); err != nil {
			return "", err
		}
	}
	if needs.DefinitionAt == "" {
		return target, nil // a built-in target: the host knows it by name
	}
	serve := f.s.Path(filepath.ToSlash(needs.DefinitionAt))
	if t.CPUQuotaPct > 0 { // capped there as here
		serve += fmt.Sprintf("@cpu%d", t.CPUQuotaPct)
	}
	return serve, nil
}

// awaitReady reads the server's stdout until its ready line (targets.Ready) names its port
// and pid.
func (s *Server) awaitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if out, err := s.proc.Output(ctx); err == nil {
			r, ok, err := targets.ParseReady(out)
			if err == nil && ok {
				err = s.expect(r)
			}
			if err != nil {
				return fmt.Errorf("host %s: target %s: %w", s.Host, s.Target, err)
			}
			if ok {
				s.Port, s.Pid = r.Port, r.Pid
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

// expect checks that a sane ready line is the one asked for: this target, listening where
// the clients can reach it.
func (s *Server) expect(r targets.Ready) error {
	if r.Target != s.Target {
		return fmt.Errorf("ready line names target %q", r.Target)
	}
	if r.Host != everyAddress {
		return fmt.Errorf("ready line: host %q, want %s: the clients could not reach it", r.Host, everyAddress)
	}
	return nil
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
