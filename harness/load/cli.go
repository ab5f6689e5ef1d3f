package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/spf13/pflag"
)

const usage = `Usage: bindrace load URL [flags]

Drives HTTP/1.1 load at URL like wrk: a closed loop over --connections connections, each
with --pipelining requests written in one batch and in flight together. Warm-up is excluded
from every figure. URL gives host:port; the request is --scenario's (default ping), or a GET
of URL's path when it has one and no --scenario is given.

Exit status: 0 done, 2 bad flags or URL, target unreachable, or run incomplete.

Flags:
`

// Command is `bindrace load`: args are what follows "load" on the command line.
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
		method   string
		headers  []string
		body     string
		asJSON   bool
	)
	fs.IntVarP(&cfg.Connections, "connections", "c", 100, "connections to keep open")
	fs.IntVar(&cfg.Pipelining, "pipelining", 10, "requests in flight per connection, written in one batch")
	fs.VarP(&duration, "duration", "d", "measured window (e.g. 10s; a bare number means seconds)")
	fs.Var(&warmup, "warmup", "warm-up before the window, excluded from every figure")
	fs.IntVarP(&cfg.Workers, "workers", "t", runtime.GOMAXPROCS(0), "event-loop goroutines (default: CPUs this process may use)")
	fs.StringVar(&scen, "scenario", "", "HTTP scenario whose request to send: "+strings.Join(httpNames(), ", ")+" (default ping)")
	fs.StringVar(&method, "method", "", "request method (overrides the scenario's)")
	fs.StringArrayVarP(&headers, "header", "H", nil, `extra request header "Name: value" (repeatable)`)
	fs.StringVar(&body, "body", "", "request body (sent with Content-Length)")
	fs.Int64Var(&cfg.Count, "count", 0, "send exactly N requests in all, no warm-up, then stop (deterministic runs)")
	fs.Var(&timeout, "timeout", "connect and per-batch response timeout")
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
	case cfg.Connections < 1:
		return bad("--connections must be at least 1")
	case cfg.Pipelining < 1:
		return bad("--pipelining must be at least 1")
	case cfg.Workers < 1:
		return bad("--workers must be at least 1")
	case cfg.Count < 0:
		return bad("--count must not be negative")
	case cfg.Count == 0 && duration <= 0:
		return bad("--duration must be positive")
	case warmup < 0:
		return bad("--warmup must not be negative")
	}
	cfg.Duration, cfg.Warmup, cfg.Timeout = time.Duration(duration), time.Duration(warmup), time.Duration(timeout)

	target, addr, host, path, err := parseURL(fs.Arg(0))
	if err != nil {
		return bad("%v", err)
	}
	var bodyp *string
	if fs.Changed("body") {
		bodyp = &body
	}
	req, err := buildRequest(host, path, scen, method, headers, bodyp)
	if err != nil {
		return bad("%v", err)
	}
	cfg.Addr, cfg.Requests = addr, [][]byte{req}
	if cfg.Count > 0 {
		cfg.Warmup = 0
	}
	cfg.Workers = min(cfg.Workers, cfg.Connections)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	pl := newProgressLine(stderr, cfg.Warmup)
	res, err := Run(ctx, cfg, Hooks{Progress: pl.update})
	pl.done()
	if res == nil { // nothing measured: bad configuration or the target is unreachable
		return bad("%s", strings.TrimPrefix(err.Error(), "load: "))
	}
	if cfg.Count > 0 {
		cfg.Workers = int(min(int64(cfg.Workers), cfg.Count))
	}
	if asJSON {
		if werr := writeJSON(stdout, res, cfg, err); werr != nil {
			return bad("%v", werr)
		}
	} else {
		writeHuman(stdout, res, cfg, target, err)
	}
	if err != nil {
		return bad("%s", strings.TrimPrefix(err.Error(), "load: "))
	}
	return 0
}

// parseURL accepts http://host[:port][/path] (the scheme may be left out) and returns the
// URL as shown, the address to dial, the Host header and the request target.
func parseURL(raw string) (shown, addr, host, path string, err error) {
	s := raw
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", "", "", "", fmt.Errorf("bad URL %q: %v", raw, err)
	}
	if u.Scheme != "http" {
		return "", "", "", "", fmt.Errorf("bad URL %q: only http:// is supported", raw)
	}
	if u.Hostname() == "" {
		return "", "", "", "", fmt.Errorf("bad URL %q: no host", raw)
	}
	port := u.Port()
	if port == "" {
		port = "80"
	} else if p, perr := strconv.Atoi(port); perr != nil || p < 1 || p > 65535 {
		return "", "", "", "", fmt.Errorf("bad URL %q: bad port %q", raw, port)
	}
	return u.String(), net.JoinHostPort(u.Hostname(), port), u.Host, u.RequestURI(), nil
}

// buildRequest renders the request bytes: a scenario's (or a GET of path), with the method,
// headers and body overrides applied. A Host header given with -H replaces the URL's.
func buildRequest(host, path, scen, method string, headers []string, body *string) ([]byte, error) {
	var sc scenario.Scenario
	switch {
	case scen != "":
		s, err := scenario.ByName(scen)
		if err != nil {
			return nil, err
		}
		if s.Kind != scenario.KindHTTP {
			return nil, fmt.Errorf("scenario %q is %s; bindrace load drives HTTP request scenarios (%s)",
				scen, s.Kind, strings.Join(httpNames(), ", "))
		}
		sc = s
	case path != "" && path != "/":
		sc = scenario.Scenario{Name: "url", Method: "GET", Path: path}
	default:
		s, err := scenario.ByName("ping")
		if err != nil {
			return nil, err
		}
		sc = s
	}
	if method != "" {
		sc.Method = strings.ToUpper(method)
	}
	sc.Header = append([][2]string(nil), sc.Header...)
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") || strings.ContainsAny(value, "\r\n") {
			return nil, fmt.Errorf("bad header %q: want \"Name: value\"", h)
		}
		if strings.EqualFold(name, "host") {
			host = value
			continue
		}
		sc.Header = append(sc.Header, [2]string{name, value})
	}
	if body != nil {
		sc.Body = []byte(*body)
	}
	return sc.Request(host), nil
}

func httpNames() []string {
	var names []string
	for _, s := range scenario.HTTP() {
		names = append(names, s.Name)
	}
	return names
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
