package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
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

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/setting"
)

const loadUsageHTTP = `Usage: bindrace load URL [flags]
       bindrace load --config FILE|- [--json] [--client-hosts H,…]

Drives HTTP/1.1 load at URL like wrk: a closed loop over --connections connections, each
with --pipelining requests written in one batch and in flight together. With --rate it is an
open loop instead, like wrk2: --rate requests per second in all, each with an intended send
time (--arrival uniform or poisson), over the same connections, each carrying up to
--pipelining requests in flight (default 1 then); a request whose connection is busy waits,
and its latency counts from its intended time. The generator reports how late it sent (send
lag) and its CPU; a lag p99 above --lag-tolerance marks the run generator-bound. Warm-up is
excluded from every figure. URL gives host:port; the request is --scenario's (default ping),
or a GET of URL's path when it has one and no --scenario is given. A ws:// URL or a WebSocket
--scenario drives WebSocket echoes instead (bindrace load --scenario ws-echo --help).
--config reads the whole load as one JSON object instead of the URL and the load flags
({"addr": "host:port", "requests": ["GET / HTTP/1.1\r\n…"], "connections": 100,
"duration": "10s", "rate": 1000, …}; - reads it from stdin).

Exit status: 0 done, 2 bad flags or URL, target unreachable, or run incomplete.

Flags:
`

const loadUsageWS = `Usage: bindrace load --scenario ws-echo ws://HOST:PORT/ws [flags]

Drives WebSocket echo load at URL (scenario ws-echo): a closed loop over --connections
connections, each with --pipelining binary messages of --size bytes written in one batch and
in flight together; the next batch leaves when every echo is back. Only complete echoes equal
to what was sent count; throughput is in messages/s. --rate makes it an open loop, as for
HTTP (bindrace load --help). Warm-up is excluded from every figure. The path defaults to /ws;
the scheme may be ws:// or http:// (wss:// is not supported).

Exit status: 0 done, 2 bad flags or URL, target unreachable or not upgrading, or run
incomplete.

Flags:
`

// loadCommand is `bindrace load`: WebSocket load for a ws:// URL or a --scenario naming a
// WebSocket scenario (ws-echo), HTTP otherwise. Both take the same flags (plus each its own)
// and print the same JSON object.
func loadCommand(args []string, stdout, stderr io.Writer) int {
	ws := isWebSocketLoad(args)
	lf := newLoadFlags(ws, stderr)
	if err := lf.fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		return loadBad(stderr, "%v", err)
	}
	cfg, sum, err := lf.config()
	if err != nil {
		return loadBad(stderr, "%s", flagWords(err))
	}
	if lf.remote.clients != "" {
		return runRemoteLoad(stdout, stderr, lf, cfg, sum)
	}
	if err := lf.remote.waitStart(); err != nil {
		return loadBad(stderr, "%v", err)
	}
	return runLoad(stdout, stderr, cfg, sum, lf.json)
}

// isWebSocketLoad says whether args ask for WebSocket load: a ws:// (or wss://, refused later)
// URL, or a WebSocket scenario.
func isWebSocketLoad(args []string) bool {
	for i, a := range args {
		var scen string
		switch {
		case strings.HasPrefix(a, "ws://"), strings.HasPrefix(a, "wss://"):
			return true
		case a == "--scenario" && i+1 < len(args):
			scen = args[i+1]
		case strings.HasPrefix(a, "--scenario="):
			scen = strings.TrimPrefix(a, "--scenario=")
		default:
			continue
		}
		if sc, err := scenario.ByName(scen); err == nil && sc.WebSocket() {
			return true
		}
	}
	return false
}

// loadFlags are `bindrace load`'s flags: how the load is driven, the same for both protocols,
// and what is sent, per protocol.
type loadFlags struct {
	fs                        *pflag.FlagSet
	ws                        bool
	cfg                       load.Config
	duration, warmup, timeout secondsValue
	json                      bool
	rate                      float64 // open loop
	arrival                   string
	lagTolerance              secondsValue
	scen                      string
	method, body              string // HTTP
	headers                   []string
	remote                    remoteLoadFlags
	configFile                string // --config: the whole load as JSON
	workersGiven              bool   // --workers, or workers in the --config JSON
}

func newLoadFlags(ws bool, stderr io.Writer) *loadFlags {
	fs := pflag.NewFlagSet("load", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	lf := &loadFlags{fs: fs, ws: ws, duration: secondsValue(10 * time.Second), warmup: secondsValue(2 * time.Second),
		timeout: secondsValue(5 * time.Second), lagTolerance: secondsValue(time.Millisecond)}
	what, usage := "requests", loadUsageHTTP
	if ws {
		what, usage = "messages", loadUsageWS
	}
	c := &lf.cfg
	fs.IntVarP(&c.Connections, "connections", "c", 100, "connections to keep open")
	fs.IntVar(&c.Pipelining, "pipelining", 10, what+" in flight per connection, written in one batch")
	fs.VarP(&lf.duration, "duration", "d", "measured window (e.g. 10s; a bare number means seconds)")
	fs.Var(&lf.warmup, "warmup", "warm-up before the window, excluded from every figure")
	fs.IntVarP(&c.Workers, "workers", "t", runtime.GOMAXPROCS(0), "event-loop goroutines (default: CPUs this process may use)")
	fs.Int64Var(&c.Count, "count", 0, "send exactly N "+what+" in all, no warm-up, then stop (deterministic runs)")
	fs.Var(&lf.timeout, "timeout", "connect and per-batch timeout")
	fs.Float64Var(&lf.rate, "rate", 0, "open loop: "+what+" per second in all, each with an intended send time (default: closed loop)")
	fs.StringVar(&lf.arrival, "arrival", "uniform", "open loop: how intended send times are spaced, uniform or poisson")
	fs.Var(&lf.lagTolerance, "lag-tolerance", "open loop: send lag p99 above which the run is marked generator-bound")
	fs.BoolVar(&lf.json, "json", false, "print one JSON object on stdout and nothing else")
	fs.StringVar(&lf.configFile, "config", "", "read the whole load from this JSON file (- for stdin), instead of a URL and the load flags")
	lf.remote.add(fs)
	fs.Bool("latency", false, "accepted for wrk compatibility; latency is always reported")
	fs.Lookup("latency").Hidden = true
	if ws {
		fs.StringVar(&lf.scen, "scenario", "ws-echo", "WebSocket scenario: "+strings.Join(scenarioNames(true), ", "))
		fs.IntVar(&c.Size, "size", scenario.WSMessageSize, "payload bytes per message")
	} else {
		fs.StringVar(&lf.scen, "scenario", "", "HTTP scenario whose request to send: "+strings.Join(scenarioNames(false), ", ")+" (default ping)")
		fs.StringVar(&lf.method, "method", "", "request method (overrides the scenario's)")
		fs.StringArrayVarP(&lf.headers, "header", "H", nil, `extra request header "Name: value" (repeatable)`)
		fs.StringVar(&lf.body, "body", "", "request body (sent with Content-Length)")
	}
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		withBounds(fs)
		fs.PrintDefaults()
	}
	return lf
}

// config checks the flags and the one URL argument, and returns the load to run (normalized
// the way Run will) and how to print it.
func (lf *loadFlags) config() (load.Config, loadSummary, error) {
	c := lf.cfg
	var sum loadSummary
	fs := lf.fs
	if fs.Changed("config") {
		return lf.fromConfigFile()
	}
	lf.workersGiven = fs.Changed("workers")
	if fs.NArg() != 1 {
		return c, sum, fmt.Errorf("want exactly one URL, got %d arguments (see --help)", fs.NArg())
	}
	switch {
	case c.Connections < 1:
		return c, sum, errors.New("--connections must be at least 1")
	case c.Pipelining < 1:
		return c, sum, errors.New("--pipelining must be at least 1")
	case c.Workers < 1:
		return c, sum, errors.New("--workers must be at least 1")
	case c.Count < 0:
		return c, sum, errors.New("--count must not be negative")
	case c.Count == 0 && lf.duration <= 0:
		return c, sum, errors.New("--duration must be positive")
	case lf.warmup < 0:
		return c, sum, errors.New("--warmup must not be negative")
	}
	c.Duration, c.Warmup, c.Timeout = time.Duration(lf.duration), time.Duration(lf.warmup), time.Duration(lf.timeout)
	if err := lf.openLoop(&c); err != nil {
		return c, sum, err
	}
	var err error
	if lf.ws {
		sum, err = lf.webSocket(&c)
	} else {
		sum, err = lf.http(&c)
	}
	if err != nil {
		return c, sum, err
	}
	c, err = c.Normalized()
	return c, sum, err
}

// configFlags are the flags that may come with --config: they say how to run and print the
// load, not what it is.
var configFlags = map[string]bool{"config": true, "json": true, "start-at": true, "client-hosts": true, "ssh-config": true, "latency": true}

// fromConfigFile reads the whole load from --config (load.DecodeConfig's JSON), normalized the
// way Run will; a URL or another load flag beside it is an error, so the file says it all.
func (lf *loadFlags) fromConfigFile() (load.Config, loadSummary, error) {
	var extra []string
	lf.fs.Visit(func(f *pflag.Flag) {
		if !configFlags[f.Name] {
			extra = append(extra, "--"+f.Name)
		}
	})
	if len(extra) > 0 || lf.fs.NArg() > 0 {
		return load.Config{}, loadSummary{}, fmt.Errorf("--config gives the whole load: drop %s", strings.Join(append(extra, lf.fs.Args()...), " "))
	}
	in := io.Reader(os.Stdin)
	if lf.configFile != "-" {
		f, err := os.Open(lf.configFile)
		if err != nil {
			return load.Config{}, loadSummary{}, fmt.Errorf("--config: %w", err)
		}
		defer f.Close()
		in = f
	}
	c, err := load.DecodeConfig(in)
	if err != nil {
		return c, loadSummary{}, fmt.Errorf("--config %s: %w", lf.configFile, err)
	}
	lf.workersGiven = c.Workers > 0
	if c, err = c.Normalized(); err != nil { // the file's field, not a flag
		return c, loadSummary{}, fmt.Errorf("--config %s: %w", lf.configFile, plainSetting{err})
	}
	target := "http://" + c.Addr
	if c.Protocol == load.WebSocket {
		target = "ws://" + c.Host + c.Path
	}
	return c, describeLoad(c, target, ""), nil
}

// openLoop applies --rate, --arrival and --lag-tolerance: an open loop when --rate is given,
// and never a silent closed loop when they are wrong.
func (lf *loadFlags) openLoop(c *load.Config) error {
	fs := lf.fs
	if !fs.Changed("rate") {
		if fs.Changed("arrival") || fs.Changed("lag-tolerance") {
			return errors.New("--arrival and --lag-tolerance are for an open loop: give --rate too")
		}
		return nil
	}
	if !(lf.rate > 0) || math.IsInf(lf.rate, 0) {
		return fmt.Errorf("--rate must be a positive number of requests per second, not %v", lf.rate)
	}
	switch lf.arrival {
	case "uniform":
		c.Arrival = load.Uniform
	case "poisson":
		c.Arrival = load.Poisson
	default:
		return fmt.Errorf("--arrival must be uniform or poisson, not %q", lf.arrival)
	}
	if lf.lagTolerance <= 0 {
		return errors.New("--lag-tolerance must be positive")
	}
	if !fs.Changed("pipelining") {
		c.Pipelining = 1
	}
	c.Rate, c.LagTolerance = lf.rate, time.Duration(lf.lagTolerance)
	return nil
}

func (lf *loadFlags) http(c *load.Config) (loadSummary, error) {
	u, addr, err := parseLoadURL(lf.fs.Arg(0), "http", "http")
	if err != nil {
		return loadSummary{}, err
	}
	var bodyp *string
	if lf.fs.Changed("body") {
		if err := setting.Check("body", float64(len(lf.body))); err != nil {
			return loadSummary{}, err
		}
		bodyp = &lf.body
	}
	req, err := buildRequest(u.Host, u.RequestURI(), lf.scen, lf.method, lf.headers, bodyp)
	if err != nil {
		return loadSummary{}, err
	}
	c.Protocol, c.Addr, c.Requests = load.HTTP, addr, [][]byte{req}
	return describeLoad(*c, u.String(), ""), nil
}

func (lf *loadFlags) webSocket(c *load.Config) (loadSummary, error) {
	sc, err := scenario.ByName(lf.scen)
	if err == nil && !sc.WebSocket() {
		err = fmt.Errorf("scenario %q is not a WebSocket scenario (%s are)", lf.scen, strings.Join(scenarioNames(true), ", "))
	}
	if err != nil {
		return loadSummary{}, err
	}
	if err := setting.Check("size", float64(c.Size)); err != nil {
		return loadSummary{}, err
	}
	target, err := parseWSURL(lf.fs.Arg(0))
	if err != nil {
		return loadSummary{}, err
	}
	c.Protocol, c.Addr, c.Host, c.Path = load.WebSocket, target.Addr, target.Host, target.Path
	return describeLoad(*c, target.Shown, sc.Name), nil
}

// loadBad prints a `bindrace load` usage error and returns exit status 2.
func loadBad(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "bindrace load: "+format+"\n", a...)
	return 2
}

// runLoad measures cfg until the window closes or SIGINT/SIGTERM, showing progress on stderr,
// then prints the --json object or the human summary on stdout. It returns the command's exit
// status: 0, or 2 when nothing could be measured or the run is incomplete.
func runLoad(stdout, stderr io.Writer, cfg load.Config, sum loadSummary, asJSON bool) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	pl := newLoadProgress(stderr, cfg.Warmup, sum.Unit)
	res, err := load.Run(ctx, cfg, load.Hooks{Progress: pl.update})
	pl.done()
	if res == nil { // nothing measured: bad configuration or the target is unreachable
		return loadBad(stderr, "%s", strings.TrimPrefix(err.Error(), "load: "))
	}
	return printLoad(stdout, stderr, res, cfg, sum, asJSON, err)
}

// printLoad prints a measured load, the --json object or the human summary, and returns the
// exit status: 2 when runErr left it incomplete or nothing valid came back (named on stderr), 0
// otherwise.
func printLoad(stdout, stderr io.Writer, res *load.Result, cfg load.Config, sum loadSummary, asJSON bool, runErr error) int {
	if runErr == nil && res.Responses == 0 {
		runErr = nothingMeasured(res, sum)
	}
	if asJSON {
		if werr := writeLoadJSON(stdout, res, cfg, sum, runErr); werr != nil {
			return loadBad(stderr, "%v", werr)
		}
	} else {
		writeLoadHuman(stdout, res, cfg, sum, runErr)
	}
	if runErr != nil {
		return loadBad(stderr, "%s", strings.TrimPrefix(runErr.Error(), "load: "))
	}
	return 0
}

// parseLoadURL accepts scheme://host[:port][/path] for one of the schemes given (a missing
// scheme means def) and returns the URL and the address to dial (port 80 when none is given).
func parseLoadURL(raw, def string, schemes ...string) (*url.URL, string, error) {
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

// wsURL is a parsed ws-echo target.
type wsURL struct {
	Shown string // the URL as printed
	Addr  string // host:port to dial
	Host  string // Host header
	Path  string // upgrade path
}

// parseWSURL accepts ws://host[:port][/path] (http:// and a missing scheme mean the same: the
// upgrade is an HTTP request). An empty or "/" path means scenario.WSPath, the scenario's.
func parseWSURL(raw string) (wsURL, error) {
	u, addr, err := parseLoadURL(raw, "ws", "ws", "http")
	if err != nil {
		return wsURL{}, err
	}
	path := u.RequestURI()
	if path == "/" {
		path = scenario.WSPath
	}
	return wsURL{Shown: "ws://" + u.Host + path, Addr: addr, Host: u.Host, Path: path}, nil
}

// buildRequest renders the request bytes: a scenario's (or a GET of path), with the method,
// headers and body overrides applied. A Host header given with -H replaces the URL's.
func buildRequest(host, path, scen, method string, headers []string, body *string) ([]byte, error) {
	var sc scenario.Scenario
	switch {
	case scen != "":
		s, err := scenario.ByName(scen) // a WebSocket one went to the WebSocket load (isWebSocketLoad)
		if err != nil {
			return nil, err
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

// scenarioNames lists the WebSocket scenarios (ws) or the HTTP request ones.
func scenarioNames(ws bool) []string {
	var names []string
	if !ws {
		for _, s := range scenario.HTTP() {
			names = append(names, s.Name)
		}
		return names
	}
	for _, n := range scenario.Names() {
		if s, err := scenario.ByName(n); err == nil && s.WebSocket() {
			names = append(names, n)
		}
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
