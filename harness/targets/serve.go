package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/pflag"
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
	os.Exit(ServeCommand(os.Args[2:], os.Stdout, os.Stderr))
}

// shutdownGrace bounds the wait for in-flight requests; it stays below Stop's 3 s so that a
// client holding a half-sent request cannot turn a graceful stop into a SIGKILL.
const shutdownGrace = 1500 * time.Millisecond

// ServeGo serves the in-process Go target name (fasthttp or nethttp) on ln until ctx is
// cancelled, then shuts down gracefully: stop accepting, finish in-flight requests, close. A
// connection still busy after shutdownGrace is closed, which is not an error.
func ServeGo(ctx context.Context, name string, ln net.Listener) error {
	var serve func() error
	var shutdown func(context.Context) error
	switch name {
	case "fasthttp":
		s := newFastHTTP()
		serve = func() error { return s.Serve(ln) }
		shutdown = s.ShutdownWithContext
	case "nethttp":
		s := newNetHTTP()
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

// ServeCommand is `bindrace serve --target T --port P [--threads N]`: one target's scenario
// server in the foreground until SIGTERM or SIGINT, then a graceful shutdown and exit 0.
func ServeCommand(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.StringP("target", "t", "", "target to serve: "+targetHelp())
	port := fs.IntP("port", "p", 0, "TCP port to listen on (0: a free one, printed)")
	threads := fs.Int("threads", 0, "server threads: event loops for binding, GOMAXPROCS for fasthttp/nethttp (0: default)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: bindrace serve --target T --port P [--threads N]\n\n"+
			"Runs one target's scenario server in the foreground; SIGTERM or SIGINT shuts it down.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "bindrace serve: %v (see --help)\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bindrace serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *target == "" {
		fmt.Fprintln(stderr, "bindrace serve: --target is required ("+targetHelp()+")")
		return 2
	}
	if *port < 0 || *port > 65535 || *threads < 0 {
		fmt.Fprintln(stderr, "bindrace serve: --port must be 0-65535 and --threads >= 0")
		return 2
	}
	t, err := Resolve(*target)
	if err != nil {
		fmt.Fprintln(stderr, "bindrace serve:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	if t.Kind == KindGo {
		return serveInProcess(ctx, t.Name, *port, *threads, stdout, stderr)
	}
	return serveSpawned(ctx, t, *port, *threads, stdout, stderr)
}

func serveInProcess(ctx context.Context, name string, port, threads int, stdout, stderr io.Writer) int {
	if threads > 0 {
		// Goroutine-per-connection servers have no loop count: the scheduler's width is the knob.
		runtime.GOMAXPROCS(threads)
	}
	ln, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			fmt.Fprintf(stderr, "bindrace serve: port %d is in use\n", port)
		} else {
			fmt.Fprintf(stderr, "bindrace serve: listening on port %d: %v\n", port, err)
		}
		return 2
	}
	fmt.Fprintf(stdout, "bindrace serve: %s listening on :%d (pid %d)\n", name, ln.Addr().(*net.TCPAddr).Port, os.Getpid())
	if err := ServeGo(ctx, name, ln); err != nil {
		fmt.Fprintf(stderr, "bindrace serve: %s: %v\n", name, err)
		return 2
	}
	return 0
}

// serveSpawned runs an external target in the foreground; signals reach it through Stop, which
// signals its whole process group (it runs in its own, so a terminal's Ctrl-C would miss it).
func serveSpawned(ctx context.Context, t *Target, port, threads int, stdout, stderr io.Writer) int {
	s, err := t.Start(ctx, StartOptions{Port: port, Threads: threads, Log: stderr})
	if err != nil {
		fmt.Fprintln(stderr, "bindrace serve:", err)
		return 2
	}
	fmt.Fprintf(stdout, "bindrace serve: %s listening on :%d (pid %d, started in %s)\n",
		t.Name, s.Port, s.Pid, s.Startup.Round(time.Millisecond))
	select {
	case <-ctx.Done():
		if err := s.Stop(); err != nil {
			fmt.Fprintln(stderr, "bindrace serve:", err)
			return 2
		}
		return 0
	case <-s.Exited():
		fmt.Fprintf(stderr, "bindrace serve: %s exited on its own: %v\n", t.Name, s.ExitError())
		s.Stop()
		return 2
	}
}

func targetHelp() string {
	names := Names()
	out := ""
	for _, n := range names {
		out += n + ", "
	}
	return out + "cmd:<command with {port}>"
}
