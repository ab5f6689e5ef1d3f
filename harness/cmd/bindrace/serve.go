package main

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/internal/interrupt"
	"github.com/bindrace/bindrace/harness/kinds"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

// serveCommand is `bindrace serve --target T --port P [--threads N] [--listen ADDR]`: one
// target's scenario server in the foreground until SIGTERM or SIGINT, then a graceful shutdown
// and exit 0. It listens on loopback unless --listen asks for another address (a remote race's
// server host: 0.0.0.0). Once it listens, stdout gets one JSON line (targets.Ready).
func serveCommand(args []string, stdout, stderr io.Writer) int {
	fs := newServerFlagSet("serve", "Usage: bindrace serve --target T --port P [--threads N] [--listen ADDR]\n\n"+
		"Runs one target's scenario server in the foreground; SIGTERM or SIGINT shuts it down.\n"+
		"It listens on 127.0.0.1 unless --listen names another address of this host.\n"+
		"Once it listens, stdout gets one JSON line: {\"target\", \"host\", \"port\", \"pid\", \"started_ms\"}.\n\n", stderr)
	target := fs.StringP("target", "t", "", "target to serve: "+targets.TargetHelp())
	addTargetFlags(fs)
	port := fs.IntP("port", "p", 0, "TCP port to listen on (0: a free one, printed)")
	threads := fs.Int("threads", 0, "server threads: event loops for binding, GOMAXPROCS for fasthttp/nethttp (0: default)")
	listen := fs.String("listen", "127.0.0.1", "IP address to listen on: loopback unless other hosts must reach the server (0.0.0.0: every IPv4 address)")
	if code, done := parseServerFlags(fs, args, stderr); done {
		return code
	}
	if _, err := netip.ParseAddr(*listen); err != nil {
		fmt.Fprintf(stderr, "bindrace serve: --listen %q: want an IP address of this host (127.0.0.1, 0.0.0.0, ...)\n", *listen)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bindrace serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *target == "" {
		fmt.Fprintln(stderr, "bindrace serve: --target is required ("+targets.TargetHelp()+")")
		return 2
	}
	if *port < 0 || *port > 65535 || *threads < 0 {
		fmt.Fprintln(stderr, "bindrace serve: --port must be 0-65535 and --threads >= 0")
		return 2
	}
	t, err := targets.Resolve(*target)
	if err != nil {
		fmt.Fprintln(stderr, "bindrace serve:", err)
		return 2
	}
	ctx, stop := interrupt.Context(interrupt.Servers, interrupt.Handlers{})
	defer stop()
	err = targets.Serve(ctx, t, targets.ServeOptions{Port: *port, Threads: *threads, Log: stderr, Ready: stdout, Listen: *listen})
	if err != nil {
		fmt.Fprintln(stderr, "bindrace serve:", err)
		return 2
	}
	return 0
}

// newServerFlagSet makes serve's and verify's flag set: --help prints usage, then the flags, on
// stderr.
func newServerFlagSet(name, usage string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseServerFlags parses serve's or verify's args; it returns (exit, done): done with exit 0
// after --help, 2 on a bad flag.
func parseServerFlags(fs *pflag.FlagSet, args []string, stderr io.Writer) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0, true
		}
		fmt.Fprintf(stderr, "bindrace %s: %v (see --help)\n", fs.Name(), err)
		return 2, true
	}
	return 0, false
}

// lookUpAll looks every name up, stopping at the first unknown one.
func lookUpAll[T any](names []string, lookUp func(string) (T, error)) ([]T, error) {
	var found []T
	for _, n := range names {
		v, err := lookUp(n)
		if err != nil {
			return nil, err
		}
		found = append(found, v)
	}
	return found, nil
}

// verifyCommand is `bindrace verify --target T[,T…] [--scenario S,…]`: each target is started
// fresh, every scenario checked, the server stopped. Exit 0 when all pass, 2 otherwise.
func verifyCommand(args []string, stdout, stderr io.Writer) int {
	fs := newServerFlagSet("verify", "Usage: bindrace verify --target T[,T…] [--scenario S,…]\n\n"+
		"Starts each target fresh, checks every scenario's status, content type, headers and body, stops it.\n"+
		"Exit 0 when all pass, 2 on any mismatch or error.\n\n", stderr)
	tnames := fs.StringSliceP("target", "t", nil, "targets to verify, comma-separated: "+targets.TargetHelp())
	addTargetFlags(fs)
	snames := fs.StringSliceP("scenario", "s", scenario.Names(), "scenarios to check (the database scenarios "+strings.Join(scenario.DBNames(), ", ")+" start PostgreSQL and are checked against it)")
	cpus := fs.String("cpus", "", "taskset CPU list for the server (default: not pinned)")
	dbo := addDBFlags(fs)
	if code, done := parseServerFlags(fs, args, stderr); done {
		return code
	}
	if len(*tnames) == 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "bindrace verify: --target is required ("+targets.TargetHelp()+")")
		return 2
	}
	// Resolve all first: a typo in the last name should not cost the first targets' runs.
	scs, err := lookUpAll(*snames, scenario.ByName)
	if err != nil {
		fmt.Fprintln(stderr, "bindrace verify:", err)
		return 2
	}
	ts, err := lookUpAll(*tnames, targets.Resolve)
	if err != nil {
		fmt.Fprintln(stderr, "bindrace verify:", err)
		return 2
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	ctx, stop := interrupt.Context(interrupt.Servers, interrupt.Handlers{})
	defer stop()
	dbo.Log = stderr
	out := newSessionOutput(stderr)
	defer out.done()
	res, err := kinds.Verify(ctx, kinds.VerifyOptions{Targets: names, Scenarios: scs, CPUs: *cpus, DB: *dbo, Events: out.event,
		ScenariosGiven: fs.Changed("scenario"),
		Skipped: func(target, scen string) {
			fmt.Fprintf(stdout, "skip  %s/%s: its definition does not claim it\n", target, scen)
		},
		Report: func(target, scen string, err error) {
			switch {
			case scen == "":
				fmt.Fprintln(stderr, "bindrace verify:", err)
			case err == nil:
				fmt.Fprintf(stdout, "ok    %s/%s\n", target, scen)
			default:
				fmt.Fprintf(stdout, "FAIL  %s/%s\n", target, scen)
				for _, m := range targets.Mismatches(err) {
					fmt.Fprintln(stderr, "mismatch:", m)
				}
			}
		}})
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "bindrace verify: interrupted")
		return 2
	case err != nil:
		return fail(stderr, "verify", err)
	}
	var failures error
	if n := res.Summary.Failed; n > 0 {
		failures = fmt.Errorf("%d failure(s)", n)
	}
	return finish("verify", false, res.Summary, func() {}, 0, stdout, stderr, failures)
}
