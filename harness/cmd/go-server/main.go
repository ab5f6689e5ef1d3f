// Command go-server serves the bindrace scenarios on one of the Go targets' libraries (targets
// fasthttp and nethttp), as binding-server serves them on the binding.
//
//	go-server --target fasthttp|nethttp --port 3000 [--threads 2] [--host ADDR]
//
// It listens on --host, by default $BINDRACE_LISTEN_HOST (set by the harness), else loopback.
// --threads sets GOMAXPROCS: goroutine-per-connection servers have no loop count, the
// scheduler's width is the knob. The database routes use the pool named by $BINDRACE_DB_URL
// and $BINDRACE_DB_POOL (harness/db.QueriesFromEnv); without them they answer 503. SIGTERM,
// SIGINT or SIGHUP shut it down gracefully (exit 0).
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"syscall"

	"github.com/bindrace/bindrace/harness/goservers"
	"github.com/bindrace/bindrace/harness/internal/interrupt"
)

func main() {
	target := flag.String("target", "", "the library to serve on: fasthttp or nethttp")
	port := flag.Int("port", 0, "port to listen on (required)")
	threads := flag.Int("threads", 0, "GOMAXPROCS (0: the runtime's default)")
	host := flag.String("host", listenHost(), "address to listen on (default $BINDRACE_LISTEN_HOST, else 127.0.0.1)")
	flag.Parse()
	if err := serve(*target, *host, *port, *threads); err != nil {
		fmt.Fprintln(os.Stderr, "go-server:", err)
		os.Exit(2)
	}
}

// listenHost is --host's default: $BINDRACE_LISTEN_HOST, else loopback.
func listenHost() string {
	if h := os.Getenv("BINDRACE_LISTEN_HOST"); h != "" {
		return h
	}
	return "127.0.0.1"
}

func serve(target, host string, port, threads int) error {
	switch {
	case !slices.Contains(goservers.Names, target):
		return fmt.Errorf("--target %q: want one of %v", target, goservers.Names)
	case port <= 0 || port > 65535:
		return fmt.Errorf("--port %d: want 1-65535", port)
	case threads < 0:
		return fmt.Errorf("--threads %d: want 0 or more", threads)
	}
	if threads > 0 {
		runtime.GOMAXPROCS(threads)
	}
	network := "tcp"
	if ip := net.ParseIP(host); ip != nil && ip.To4() != nil {
		network = "tcp4" // 0.0.0.0 is every IPv4 address, as for the other targets (Go's "tcp" adds IPv6)
	}
	ln, err := net.Listen(network, net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("port %d is in use", port)
		}
		return fmt.Errorf("listening on port %d: %v", port, err)
	}
	ctx, stop := interrupt.Context(interrupt.Servers, interrupt.Handlers{})
	defer stop()
	if err := goservers.Serve(ctx, target, ln); err != nil {
		return fmt.Errorf("%s: %v", target, err)
	}
	return nil
}
