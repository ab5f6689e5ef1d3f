// Command binding-server serves the bindrace scenarios on the binding (targets binding,
// binding-plain and, with --static, binding-static).
//
//	binding-server --port 3000 [--threads 2] [--static] [--own-p] [--cgo-wait] [--cpuprofile FILE]
//	binding-server --build-info   (which native core it links, as JSON)
//
// The database routes use the pool named by $BINDRACE_DB_URL and $BINDRACE_DB_POOL
// (harness/db.QueriesFromEnv); without them they answer 503.
//
// With --static, ping, the video and the ws-echo messages are answered entirely in C++
// (App.Static, App.StaticBody, App.StaticWebSocketEcho); params and json need per-request work
// and stay Go handlers in every mode.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/bindrace/bindrace/binding"
	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/internal/interrupt"
)

func main() {
	port := flag.Int("port", 0, "port to listen on (required)")
	threads := flag.Int("threads", 1, "event loop threads")
	static := flag.Bool("static", false, "answer ping, the video and ws-echo in C++ only")
	ownP := flag.Bool("own-p", false, "give each event loop a Go processor of its own (binding.Config.OwnProcessor; target binding-ownp)")
	cgoWait := flag.Bool("cgo-wait", false, "idle event loops wait inside the cgo step, never in the raw wait (binding.Config.CgoWait)")
	host := flag.String("host", listenHost(), "address to listen on (default $BINDRACE_LISTEN_HOST, else 127.0.0.1)")
	buildInfo := flag.Bool("build-info", false, "print which native core this binary links (JSON) and exit")
	cpuProfile := flag.String("cpuprofile", "", "write Go's CPU profile to this file from start to shutdown (Go PGO training)")
	flag.Parse()
	if *buildInfo {
		b := binding.NativeBuild()
		b["go"] = runtime.Version()
		json.NewEncoder(os.Stdout).Encode(b)
		return
	}
	if *port <= 0 {
		fmt.Fprintln(os.Stderr, "binding-server: --port P is required")
		os.Exit(2)
	}
	q, err := db.QueriesFromEnv(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "binding-server:", err)
		os.Exit(2)
	}
	if q != nil {
		defer q.Close()
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "binding-server:", err)
		os.Exit(2)
	}
	defer stopProfile()
	app, err := newApp(binding.Config{OwnProcessor: *ownP, CgoWait: *cgoWait}, *static, *threads, q)
	if err != nil {
		fmt.Fprintln(os.Stderr, "binding-server:", err)
		os.Exit(1)
	}
	if err := app.Listen(fmt.Sprintf("%s:%d", *host, *port), *threads); err != nil {
		fmt.Fprintln(os.Stderr, "binding-server:", err)
		os.Exit(1)
	}
	stopped, stop := interrupt.Context(interrupt.Commands, interrupt.Handlers{})
	defer stop()
	<-stopped.Done()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := app.Shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "binding-server: shutdown:", err)
	}
}

// listenHost is --host's default: $BINDRACE_LISTEN_HOST (a remote server host listens on
// 0.0.0.0, set by the harness through `bindrace serve`), else loopback.
func listenHost() string {
	if h := os.Getenv("BINDRACE_LISTEN_HOST"); h != "" {
		return h
	}
	return "127.0.0.1"
}
