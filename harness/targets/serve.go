package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/internal/interrupt"
)

// init turns a re-run of any executable linking this package into a Go target's server: Start
// runs fasthttp and nethttp as `<this executable> serve --target T …` with inprocEnv set. That
// way bin/bindrace, and the test binaries of every package that starts targets, can serve them
// without a separate server binary and without their own main knowing.
func init() {
	if os.Getenv(inprocEnv) != "1" || len(os.Args) < 2 || os.Args[1] != "serve" {
		return
	}
	os.Unsetenv(inprocEnv)
	os.Exit(serveChild(os.Args[2:]))
}

// serveChild serves the Go target Start asked for, from the arguments command() wrote
// ("--target T --port P [--threads N]"), until SIGTERM, SIGINT or SIGHUP; it returns the exit
// status.
func serveChild(args []string) int {
	var name string
	var port, threads int
	for i := 0; i+1 < len(args); i += 2 {
		switch v := args[i+1]; args[i] {
		case "--target":
			name = v
		case "--port":
			port, _ = strconv.Atoi(v)
		case "--threads":
			threads, _ = strconv.Atoi(v)
		}
	}
	ctx, stop := interrupt.Context(interrupt.Servers, interrupt.Handlers{})
	defer stop()
	err := serveInProcess(ctx, name, ServeOptions{Port: port, Threads: threads, Ready: os.Stdout})
	if err != nil {
		fmt.Fprintln(os.Stderr, "bindrace serve:", err)
		return 2
	}
	return 0
}

// shutdownGrace bounds the wait for in-flight requests; it stays below Stop's 3 s so that a
// client holding a half-sent request cannot turn a graceful stop into a SIGKILL.
const shutdownGrace = 1500 * time.Millisecond

// ServeGo serves the in-process Go target name (fasthttp or nethttp) on ln until ctx is
// cancelled, then shuts down gracefully: stop accepting, finish in-flight requests, close. A
// connection still busy after shutdownGrace is closed, which is not an error. The database
// routes use the pool $BINDRACE_DB_URL names (db.QueriesFromEnv).
func ServeGo(ctx context.Context, name string, ln net.Listener) error {
	q, err := db.QueriesFromEnv(ctx)
	if err != nil {
		ln.Close()
		return err
	}
	if q != nil {
		defer q.Close()
	}
	var serve func() error
	var shutdown func(context.Context) error
	switch name {
	case "fasthttp":
		s := newFastHTTP(q)
		serve = func() error { return s.Serve(ln) }
		shutdown = s.ShutdownWithContext
	case "nethttp":
		s := newNetHTTP(q)
		serve = func() error {
			if err := s.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		}
		shutdown = func(ctx context.Context) error {
			err := s.Shutdown(ctx)
			if err != nil {
				s.Close()
			}
			return err
		}
	default:
		ln.Close()
		return fmt.Errorf("target %q is not an in-process Go target (fasthttp, nethttp)", name)
	}
	errc := make(chan error, 1)
	go func() { errc <- serve() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	select {
	case err := <-errc:
		return err
	case <-sctx.Done():
		return nil // fasthttp's Serve may wait on the stuck connection; the process exits anyway
	}
}

// ServeOptions say how Serve runs a target in the foreground.
type ServeOptions struct {
	Port    int       // 0: a free port
	Threads int       // event loops for binding, GOMAXPROCS for fasthttp/nethttp; 0: the default
	Log     io.Writer // a spawned server's output
	// Ready, if set, gets the ready line (Ready) once the server listens.
	Ready io.Writer
}

// Serve runs t's scenario server in the foreground until ctx is cancelled, then shuts it down
// gracefully. An in-process Go target (fasthttp, nethttp) serves in this process; any other,
// and a capped Go target (its cap is a cgroup around a process of its own), is spawned and
// stopped with Stop.
func Serve(ctx context.Context, t *Target, o ServeOptions) error {
	if t.Kind == KindGo && t.CPUQuotaPct == 0 {
		return serveInProcess(ctx, t.Name, o)
	}
	return serveSpawned(ctx, t, o)
}

// ready prints the ready line, if o asks for it.
func (o ServeOptions) ready(r Ready) error {
	if o.Ready == nil {
		return nil
	}
	return r.write(o.Ready)
}

func serveInProcess(ctx context.Context, name string, o ServeOptions) error {
	if o.Threads > 0 {
		// Goroutine-per-connection servers have no loop count: the scheduler's width is the knob.
		runtime.GOMAXPROCS(o.Threads)
	}
	ln, err := net.Listen("tcp", ":"+strconv.Itoa(o.Port))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("port %d is in use", o.Port)
		}
		return fmt.Errorf("listening on port %d: %v", o.Port, err)
	}
	if err := o.ready(newReady(name, ln.Addr().(*net.TCPAddr).Port, os.Getpid(), 0)); err != nil {
		ln.Close()
		return err
	}
	if err := ServeGo(ctx, name, ln); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	return nil
}

// serveSpawned runs an external target in the foreground; signals reach it through Stop, which
// signals its whole process group (it runs in its own, so a terminal's Ctrl-C would miss it).
func serveSpawned(ctx context.Context, t *Target, o ServeOptions) error {
	s, err := t.Start(ctx, StartOptions{Port: o.Port, Threads: o.Threads, Log: o.Log})
	if err != nil {
		return err
	}
	if err := o.ready(newReady(t.Name, s.Port, s.Pid, s.Startup)); err != nil {
		s.Stop()
		return err
	}
	select {
	case <-ctx.Done():
		return s.Stop()
	case <-s.Exited():
		err := fmt.Errorf("%s exited on its own: %v", t.Name, s.ExitError())
		s.Stop()
		return err
	}
}

// TargetHelp lists the target names for a flag's help.
func TargetHelp() string {
	names := Names()
	out := ""
	for _, n := range names {
		out += n + ", "
	}
	return out + "cmd:<command with {port}>"
}
