package wsload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
)

const usage = `Usage: bindrace load --scenario ws-echo ws://HOST:PORT/ws [flags]

Drives WebSocket echo load at URL (scenario ws-echo): a closed loop over --connections
connections, each with --pipelining binary messages of --size bytes written in one batch and
in flight together; the next batch leaves when every echo is back. Only complete echoes equal
to what was sent count; throughput is in messages/s. Warm-up is excluded from every figure.
The path defaults to /ws; the scheme may be ws:// or http:// (wss:// is not supported).

Exit status: 0 done, 2 bad flags or URL, target unreachable or not upgrading, or run
incomplete.

Flags:
`

// Command is the ws-echo form of `bindrace load`: args are what follows "load" on the command
// line. It takes load's flags with the same names and defaults (plus --size), so harness/load
// can hand its arguments over unchanged when the URL is ws:// or the scenario is ws-echo, and
// prints the same --json object with "unit": "messages/s".
func Command(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("load", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	var (
		cfg      Config
		duration = secondsValue(10 * time.Second)
		warmup   = secondsValue(2 * time.Second)
		timeout  = secondsValue(DefaultTimeout)
		scen     string
		asJSON   bool
	)
	fs.IntVarP(&cfg.Connections, "connections", "c", 100, "connections to keep open")
	fs.IntVar(&cfg.Pipelining, "pipelining", 10, "messages in flight per connection, written in one batch")
	fs.VarP(&duration, "duration", "d", "measured window (e.g. 10s; a bare number means seconds)")
	fs.Var(&warmup, "warmup", "warm-up before the window, excluded from every figure")
	fs.IntVarP(&cfg.Workers, "workers", "t", runtime.GOMAXPROCS(0), "event-loop goroutines (default: CPUs this process may use)")
	fs.StringVar(&scen, "scenario", "ws-echo", "scenario: only ws-echo here")
	fs.IntVar(&cfg.Size, "size", DefaultSize, "payload bytes per message")
	fs.Int64Var(&cfg.Count, "count", 0, "send exactly N messages in all, no warm-up, then stop (deterministic runs)")
	fs.Var(&timeout, "timeout", "connect, upgrade and per-batch echo timeout")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object on stdout and nothing else")
	fs.Bool("latency", false, "accepted for wrk compatibility; latency is always reported")
	fs.Lookup("latency").Hidden = true
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "bindrace load: %v\n", err)
		return 2
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "bindrace load: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() != 1 {
		return bad("want exactly one URL, got %d arguments (see --help)", fs.NArg())
	}
	switch {
	case scen != "ws-echo":
		return bad("scenario %q is not a WebSocket scenario (only ws-echo is)", scen)
	case cfg.Connections < 1:
		return bad("--connections must be at least 1")
	case cfg.Pipelining < 1:
		return bad("--pipelining must be at least 1")
	case cfg.Workers < 1:
		return bad("--workers must be at least 1")
	case cfg.Size < 1 || cfg.Size > maxSize:
		return bad("--size must be between 1 and %d", maxSize)
	case cfg.Count < 0:
		return bad("--count must not be negative")
	case cfg.Count == 0 && duration <= 0:
		return bad("--duration must be positive")
	case warmup < 0:
		return bad("--warmup must not be negative")
	}
	cfg.Duration, cfg.Warmup, cfg.Timeout = time.Duration(duration), time.Duration(warmup), time.Duration(timeout)
	target, err := ParseURL(fs.Arg(0))
	if err != nil {
		return bad("%v", err)
	}
	cfg.Addr, cfg.Host, cfg.Path = target.Addr, target.Host, target.Path
	if cfg.Count > 0 {
		cfg.Warmup = 0
		cfg.Workers = int(min(int64(cfg.Workers), cfg.Count))
	}
	cfg.Workers = min(cfg.Workers, cfg.Connections)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	pl := &progressLine{w: stderr, warmup: cfg.Warmup}
	res, err := Run(ctx, cfg, Hooks{Progress: pl.update})
	if res == nil {
		switch {
		case errors.Is(err, ErrConnect):
			return bad("nothing could connect: %v", err)
		case errors.Is(err, ErrHandshake):
			return bad("not a WebSocket echo endpoint: %v", err)
		}
		return bad("%v", err)
	}
	if asJSON {
		if werr := writeJSON(stdout, res, cfg, err); werr != nil {
			return bad("%v", werr)
		}
	} else {
		writeHuman(stdout, res, cfg, target.Shown, err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "bindrace load: %v\n", err)
		return 2
	}
	return 0
}

// URL is a parsed ws-echo target.
type URL struct {
	Shown string // the URL as printed
	Addr  string // host:port to dial
	Host  string // Host header
	Path  string // upgrade path
}

// ParseURL accepts ws://host[:port][/path] (http:// and a missing scheme mean the same: the
// upgrade is an HTTP request). An empty or "/" path means DefaultPath, the scenario's.
func ParseURL(raw string) (URL, error) {
	s := raw
	if !strings.Contains(s, "://") {
		s = "ws://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return URL{}, fmt.Errorf("bad URL %q: %v", raw, err)
	}
	switch u.Scheme {
	case "ws", "http":
	default:
		return URL{}, fmt.Errorf("bad URL %q: only ws:// (or http://) is supported", raw)
	}
	if u.Hostname() == "" {
		return URL{}, fmt.Errorf("bad URL %q: no host", raw)
	}
	port := u.Port()
	if port == "" {
		port = "80"
	} else if p, perr := strconv.Atoi(port); perr != nil || p < 1 || p > 65535 {
		return URL{}, fmt.Errorf("bad URL %q: bad port %q", raw, port)
	}
	path := u.RequestURI()
	if path == "/" {
		path = DefaultPath
	}
	return URL{Shown: "ws://" + u.Host + path, Addr: net.JoinHostPort(u.Hostname(), port), Host: u.Host, Path: path}, nil
}

// jsonResult is `load --json`'s object with the same field names, plus the unit and size.
type jsonResult struct {
	RPS          float64          `json:"rps"`
	Responses    int64            `json:"responses"`
	P50          float64          `json:"p50_ms"`
	P95          float64          `json:"p95_ms"`
	P99          float64          `json:"p99_ms"`
	P999         float64          `json:"p999_ms"`
	Max          float64          `json:"max_ms"`
	Mean         float64          `json:"mean_ms"`
	Errors       int64            `json:"errors"`
	ErrorsByKind map[string]int64 `json:"errors_by_kind"`
	DurationS    float64          `json:"duration_s"`
	Connections  int              `json:"connections"`
	Pipelining   int              `json:"pipelining"`
	Workers      int              `json:"workers"`
	BytesRead    int64            `json:"bytes_read"`
	Count        int64            `json:"count,omitempty"`
	Incomplete   string           `json:"incomplete,omitempty"`
	Unit         string           `json:"unit"`
	Scenario     string           `json:"scenario"`
	Size         int              `json:"size"`
}

func writeJSON(w io.Writer, res *Result, cfg Config, runErr error) error {
	j := jsonResult{
		RPS: round(res.RPS, 1), Responses: res.Responses,
		P50: res.Latency.P50, P95: res.Latency.P95, P99: res.Latency.P99, P999: res.Latency.P999,
		Max: res.Latency.Max, Mean: round(res.Latency.Mean, 3),
		Errors: res.ErrorCount(), ErrorsByKind: res.Errors,
		DurationS:   round(res.Elapsed.Seconds(), 6),
		Connections: cfg.Connections, Pipelining: cfg.Pipelining, Workers: cfg.Workers,
		BytesRead: res.BytesRead, Count: cfg.Count, Unit: Unit, Scenario: "ws-echo", Size: cfg.Size,
	}
	if runErr != nil {
		j.Incomplete = runErr.Error()
	}
	return json.NewEncoder(w).Encode(j)
}

// writeHuman prints a wrk-like summary.
func writeHuman(w io.Writer, res *Result, cfg Config, target string, runErr error) {
	if cfg.Count > 0 {
		fmt.Fprintf(w, "Sent %d messages of %d bytes @ %s\n", cfg.Count, cfg.Size, target)
	} else {
		fmt.Fprintf(w, "Running %s ws-echo test @ %s (warm-up %s, excluded)\n", cfg.Duration, target, cfg.Warmup)
	}
	fmt.Fprintf(w, "  %d workers and %d connections, %d messages of %d bytes in flight each\n",
		cfg.Workers, cfg.Connections, cfg.Pipelining, cfg.Size)
	l := res.Latency
	fmt.Fprintf(w, "  Latency %10s %10s %10s %10s %10s %10s\n", "p50", "p95", "p99", "p99.9", "max", "mean")
	fmt.Fprintf(w, "          %10s %10s %10s %10s %10s %10s\n", ms(l.P50), ms(l.P95), ms(l.P99), ms(l.P999), ms(l.Max), ms(l.Mean))
	fmt.Fprintf(w, "  %d messages echoed in %.2fs, %d bytes read\n", res.Responses, res.Elapsed.Seconds(), res.BytesRead)
	if n := res.ErrorCount(); n > 0 {
		kinds := make([]string, 0, len(res.Errors))
		for k := range res.Errors {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%s %d", k, res.Errors[k])
		}
		fmt.Fprintf(w, "  Errors: %d (%s)\n", n, strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "Messages/sec: %12.2f\n", res.RPS)
	if runErr != nil {
		fmt.Fprintf(w, "INCOMPLETE: %v\n", runErr)
	}
}

func ms(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.2fs", v/1000)
	case v >= 1:
		return fmt.Sprintf("%.2fms", v)
	default:
		return fmt.Sprintf("%.0fus", v*1000)
	}
}

func round(v float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	if v < 0 {
		return -float64(int64(-v*p+0.5)) / p
	}
	return float64(int64(v*p+0.5)) / p
}

// progressLine reports a running load on stderr as plain log lines (the orchestrator and CI
// logs read them; harness/load rewrites one line on a terminal, which is cosmetic).
type progressLine struct {
	w      io.Writer
	warmup time.Duration
}

func (p *progressLine) update(pr Progress) {
	what := fmt.Sprintf("%s %.1fs", pr.Phase, pr.Elapsed.Seconds())
	if pr.Phase == "measure" {
		what = fmt.Sprintf("warmup %.1fs / measure %.1fs", p.warmup.Seconds(), pr.Elapsed.Seconds())
	}
	fmt.Fprintf(p.w, "load: %s  %.0f messages/s\n", what, pr.Rate)
}

// secondsValue is a duration flag that also takes wrk's bare numbers ("-d 5" is 5 seconds).
type secondsValue time.Duration

func (d *secondsValue) String() string { return time.Duration(*d).String() }
func (d *secondsValue) Type() string   { return "duration" }
func (d *secondsValue) Set(s string) error {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		*d = secondsValue(f * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("bad duration %q (e.g. 10s, 500ms, 2m)", s)
	}
	*d = secondsValue(v)
	return nil
}
