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
	"slices"
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

// Command is `bindrace load` for HTTP: args are what follows "load" on the command line. (The
// CLI hands ws:// URLs and WebSocket scenarios to harness/wsload's Command instead.)
func Command(args []string, stdout, stderr io.Writer) int {
	fs, cf := NewFlagSet(usage, "requests", stderr)
	var (
		scen    string
		method  string
		headers []string
		body    string
	)
	fs.StringVar(&scen, "scenario", "", "HTTP scenario whose request to send: "+strings.Join(httpNames(), ", ")+" (default ping)")
	fs.StringVar(&method, "method", "", "request method (overrides the scenario's)")
	fs.StringArrayVarP(&headers, "header", "H", nil, `extra request header "Name: value" (repeatable)`)
	fs.StringVar(&body, "body", "", "request body (sent with Content-Length)")
	if code, done := cf.Parse(fs, args); done {
		return code
	}
	cfg := Config{}
	sh, err := cf.Check(fs)
	if err != nil {
		return Bad(stderr, "%v", err)
	}
	cfg.setShape(sh)
	u, addr, err := ParseURL(fs.Arg(0), "http", "http")
	if err != nil {
		return Bad(stderr, "%v", err)
	}
	var bodyp *string
	if fs.Changed("body") {
		bodyp = &body
	}
	req, err := buildRequest(u.Host, u.RequestURI(), scen, method, headers, bodyp)
	if err != nil {
		return Bad(stderr, "%v", err)
	}
	cfg.Addr, cfg.Requests = addr, [][]byte{req}
	return cf.Run(stdout, stderr, sh, Summary{Target: u.String(), Unit: "rps", Noun: "requests", Rate: "Requests/sec",
		Pipeline: fmt.Sprintf("pipelining %d", sh.Pipelining)},
		func(ctx context.Context, h Hooks) (*Result, error) { return Run(ctx, cfg, h) })
}

// Bad prints a `bindrace load` usage error and returns exit status 2.
func Bad(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "bindrace load: "+format+"\n", a...)
	return 2
}

// CommonFlags are the flags both forms of `bindrace load` (HTTP here, WebSocket in
// harness/wsload) take with the same names and defaults: how the load is driven, and --json.
type CommonFlags struct {
	Shape                     Shape
	duration, warmup, timeout secondsValue
	JSON                      bool
	usage                     string
	stderr                    io.Writer
}

// NewFlagSet makes `bindrace load`'s flag set with the common flags; what names what is sent
// ("requests", "messages"). The command adds its own flags, then calls Parse.
func NewFlagSet(usage, what string, stderr io.Writer) (*pflag.FlagSet, *CommonFlags) {
	fs := pflag.NewFlagSet("load", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	cf := &CommonFlags{duration: secondsValue(10 * time.Second), warmup: secondsValue(2 * time.Second),
		timeout: secondsValue(DefaultTimeout), usage: usage, stderr: stderr}
	s := &cf.Shape
	fs.IntVarP(&s.Connections, "connections", "c", 100, "connections to keep open")
	fs.IntVar(&s.Pipelining, "pipelining", 10, what+" in flight per connection, written in one batch")
	fs.VarP(&cf.duration, "duration", "d", "measured window (e.g. 10s; a bare number means seconds)")
	fs.Var(&cf.warmup, "warmup", "warm-up before the window, excluded from every figure")
	fs.IntVarP(&s.Workers, "workers", "t", runtime.GOMAXPROCS(0), "event-loop goroutines (default: CPUs this process may use)")
	fs.Int64Var(&s.Count, "count", 0, "send exactly N "+what+" in all, no warm-up, then stop (deterministic runs)")
	fs.Var(&cf.timeout, "timeout", "connect and per-batch timeout")
	fs.BoolVar(&cf.JSON, "json", false, "print one JSON object on stdout and nothing else")
	fs.Bool("latency", false, "accepted for wrk compatibility; latency is always reported")
	fs.Lookup("latency").Hidden = true
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs, cf
}

// Parse parses args; done says the command is over (after --help, exit 0, or a bad flag, 2).
func (cf *CommonFlags) Parse(fs *pflag.FlagSet, args []string) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0, true
		}
		return Bad(cf.stderr, "%v", err), true
	}
	return 0, false
}

// Check validates the common flags and the one URL argument, and returns the shape asked for
// (normalized the way Run will: workers capped by connections and count; no warm-up in Count
// mode).
func (cf *CommonFlags) Check(fs *pflag.FlagSet) (Shape, error) {
	s := cf.Shape
	if fs.NArg() != 1 {
		return s, fmt.Errorf("want exactly one URL, got %d arguments (see --help)", fs.NArg())
	}
	switch {
	case s.Connections < 1:
		return s, errors.New("--connections must be at least 1")
	case s.Pipelining < 1:
		return s, errors.New("--pipelining must be at least 1")
	case s.Workers < 1:
		return s, errors.New("--workers must be at least 1")
	case s.Count < 0:
		return s, errors.New("--count must not be negative")
	case s.Count == 0 && cf.duration <= 0:
		return s, errors.New("--duration must be positive")
	case cf.warmup < 0:
		return s, errors.New("--warmup must not be negative")
	}
	s.Duration, s.Warmup, s.Timeout = time.Duration(cf.duration), time.Duration(cf.warmup), time.Duration(cf.timeout)
	return s.Normalized()
}

// Run measures with run (Run or wsload.Run bound to their configuration) until the window
// closes or SIGINT/SIGTERM, showing progress on stderr, then prints the --json object or the
// human summary on stdout. It returns the command's exit status: 0, or 2 when nothing could be
// measured or the run is incomplete.
func (cf *CommonFlags) Run(stdout, stderr io.Writer, sh Shape, sum Summary, run func(context.Context, Hooks) (*Result, error)) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	pl := NewProgressLine(stderr, sh.Warmup, sum.Unit)
	res, err := run(ctx, Hooks{Progress: pl.Update})
	pl.Done()
	if res == nil { // nothing measured: bad configuration or the target is unreachable
		return Bad(stderr, "%s", strings.TrimPrefix(err.Error(), "load: "))
	}
	if cf.JSON {
		if werr := writeJSON(stdout, res, sh, sum, err); werr != nil {
			return Bad(stderr, "%v", werr)
		}
	} else {
		writeHuman(stdout, res, sh, sum, err)
	}
	if err != nil {
		return Bad(stderr, "%s", strings.TrimPrefix(err.Error(), "load: "))
	}
	return 0
}

// ParseURL accepts scheme://host[:port][/path] for one of the schemes given (a missing scheme
// means def) and returns the URL and the address to dial (port 80 when none is given).
func ParseURL(raw, def string, schemes ...string) (*url.URL, string, error) {
	s := raw
	if !strings.Contains(s, "://") {
		s = def + "://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, "", fmt.Errorf("bad URL %q: %v", raw, err)
	}
	if !slices.Contains(schemes, u.Scheme) {
		return nil, "", fmt.Errorf("bad URL %q: only %s:// is supported", raw, strings.Join(schemes, ":// or "))
	}
	if u.Hostname() == "" {
		return nil, "", fmt.Errorf("bad URL %q: no host", raw)
	}
	port := u.Port()
	if port == "" {
		port = "80"
	} else if p, perr := strconv.Atoi(port); perr != nil || p < 1 || p > 65535 {
		return nil, "", fmt.Errorf("bad URL %q: bad port %q", raw, port)
	}
	return u, net.JoinHostPort(u.Hostname(), port), nil
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
