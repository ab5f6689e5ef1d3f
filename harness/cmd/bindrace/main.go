// Command bindrace is the harness CLI: it serves and verifies the scenario servers, drives load,
// races a candidate against a reference in balanced AB/BA pairs, runs shuffled matrices, reads
// per-response counters, and renders and gates the saved sessions.
//
// Exit status: 0 ok/PASS, 1 FAIL, 2 error (bad flag, missing profile, a target that fails to
// start or verify or dies mid-run, an interrupted session), 3 INCONCLUSIVE.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
)

// version is set by the Makefile with -ldflags "-X main.version=...".
var version = ""

type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) int
}

var commands = []command{
	{"serve", "run one target's scenario server in the foreground", serveCommand},
	{"verify", "check every scenario on each target", verifyCommand},
	{"target", "the targets' definitions: list them, prepare them", targetCommand},
	{"race", "race two targets in balanced AB/BA pairs, gate, write reports", raceCommand},
	{"matrix", "N targets, shuffled order per round, position-bias check", matrixCommand},
	{"sweep", "latency at a series of fixed rates per target, and the rate under an SLO", sweepCommand},
	{"scale", "thread-scaling curves: targets at several server thread counts", scaleCommand},
	{"counters", "hardware/software counters per response (perf or cachegrind)", countersCommand},
	{"load", "the built-in load generator alone, like wrk (HTTP, or WebSocket ws-echo)", loadCommand},
	{"report", "render a saved session (md, html, csv, json, benchfmt)", reportCommand},
	{"gate", "re-apply the gate to a saved session (and hold it to a baseline)", gateCommand},
	{"baseline", "write a session's deterministic counts to a baseline file (baseline write DIR)", baselineCommand},
	{"noise", "take run-to-run variance apart: slices, windows, processes", noiseCommand},
	{"calibrate", "what the gate catches here: A/A races and races against a known slowdown", calibrateCommand},
	{"version", "print the version", versionCommand},
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: bindrace COMMAND [flags]

bindrace races a Go HTTP binding over a native core against a pinned upstream and gates its
releases.

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run 'bindrace COMMAND --help' for a command's flags.

Exit status: 0 ok/PASS, 1 FAIL, 2 error or incomplete session, 3 INCONCLUSIVE.
`)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			return run([]string{args[1], "--help"}, stdout, stderr)
		}
		usage(stdout)
		return 0
	case "--version", "-version":
		return versionCommand(nil, stdout, stderr)
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "bindrace: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func versionCommand(args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "--help" {
			fmt.Fprintln(stdout, "Usage: bindrace version\n\nPrints the harness version, its git revision and Go version.")
			return 0
		}
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "bindrace version: unexpected argument %q\n", args[0])
		return 2
	}
	v, rev, dirty := version, "", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
	}
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	line := "bindrace " + v
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		line += " (" + rev + dirty + ")"
	}
	fmt.Fprintf(stdout, "%s %s %s/%s\n", line, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}
