package wsload

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
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
// line. The CLI hands it the arguments when the URL is ws:// or the scenario is a WebSocket
// one. It takes load's flags with the same names and defaults (plus --size), and prints the
// same --json object with "unit": "messages/s", "scenario" and "size".
func Command(args []string, stdout, stderr io.Writer) int {
	fs, cf := load.NewFlagSet(usage, "messages", stderr)
	var (
		cfg  Config
		scen string
	)
	fs.StringVar(&scen, "scenario", "ws-echo", "WebSocket scenario: "+strings.Join(wsNames(), ", "))
	fs.IntVar(&cfg.Size, "size", scenario.WSMessageSize, "payload bytes per message")
	if code, done := cf.Parse(fs, args); done {
		return code
	}
	sc, err := scenario.ByName(scen)
	if err == nil && !sc.WebSocket() {
		err = fmt.Errorf("scenario %q is not a WebSocket scenario (%s are)", scen, strings.Join(wsNames(), ", "))
	}
	if err != nil {
		return load.Bad(stderr, "%v", err)
	}
	if cfg.Size < 1 || cfg.Size > scenario.WSMaxMessage {
		return load.Bad(stderr, "--size must be between 1 and %d", scenario.WSMaxMessage)
	}
	sh, err := cf.Check(fs)
	if err != nil {
		return load.Bad(stderr, "%v", err)
	}
	target, err := ParseURL(fs.Arg(0))
	if err != nil {
		return load.Bad(stderr, "%v", err)
	}
	cfg.Addr, cfg.Host, cfg.Path = target.Addr, target.Host, target.Path
	cfg.Connections, cfg.Pipelining, cfg.Workers, cfg.Warmup = sh.Connections, sh.Pipelining, sh.Workers, sh.Warmup
	cfg.Duration, cfg.Count, cfg.Timeout = sh.Duration, sh.Count, sh.Timeout
	sum := load.Summary{Target: target.Shown, Unit: Unit, Noun: fmt.Sprintf("messages of %d bytes", cfg.Size),
		Answers: "messages echoed", Rate: "Messages/sec", Test: sc.Name,
		Pipeline: fmt.Sprintf("%d messages of %d bytes in flight each", sh.Pipelining, cfg.Size),
		Scenario: sc.Name, Size: cfg.Size}
	return cf.Run(stdout, stderr, sh, sum, func(ctx context.Context, h Hooks) (*Result, error) { return Run(ctx, cfg, h) })
}

func wsNames() []string {
	var names []string
	for _, n := range scenario.Names() {
		if s, err := scenario.ByName(n); err == nil && s.WebSocket() {
			names = append(names, n)
		}
	}
	return names
}

// URL is a parsed ws-echo target.
type URL struct {
	Shown string // the URL as printed
	Addr  string // host:port to dial
	Host  string // Host header
	Path  string // upgrade path
}

// ParseURL accepts ws://host[:port][/path] (http:// and a missing scheme mean the same: the
// upgrade is an HTTP request). An empty or "/" path means scenario.WSPath, the scenario's.
func ParseURL(raw string) (URL, error) {
	u, addr, err := load.ParseURL(raw, "ws", "ws", "http")
	if err != nil {
		return URL{}, err
	}
	path := u.RequestURI()
	if path == "/" {
		path = scenario.WSPath
	}
	return URL{Shown: "ws://" + u.Host + path, Addr: addr, Host: u.Host, Path: path}, nil
}
