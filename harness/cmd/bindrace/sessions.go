package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/report"
	"github.com/bindrace/bindrace/harness/session"
)

const gateUsage = `Usage: bindrace gate DIR [--baseline FILE|DIR] [--threshold ...] [--pool]

Re-applies the gate to a saved race session (or each sub-session of a multi-race session) and
prints the reasons and the headline. Thresholds are those stored in the session unless
--threshold overrides them. A set raced under a pooled profile (db) prints its pooled
throughput check too; --pool re-gates a set of fixed designs that way (one set saved before its
profile pooled, say): each race's throughput becomes a FAIL-only guard and the pooled check
over all of them decides throughput.

With --baseline (a file written by 'bindrace baseline write', e.g. baselines/ci.json, or a saved
session directory), the candidate's deterministic counts (cachegrind instructions per response)
must not grow by more than counter_max_growth_pct (default +1%) over the baseline's. A baseline
of another target, build kind, PGO profile, counters mode, scenario, connections or pipelining
is refused (exit 2, naming what differs). Throughput is only noted beside the baseline's: it is
always judged by the ratios measured inside DIR, never by a figure carried from another session.

Exit status: 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 error or incomplete session.`

// gateCommand is `bindrace gate`.
func gateCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gate", stderr)
	baseline := fs.String("baseline", "", "baseline file (bindrace baseline write) or a saved session directory")
	var ths []string
	fs.StringArrayVar(&ths, "threshold", nil, "override a threshold (as for race): a number = min_median_delta_pct, or name=value")
	asJSON := fs.Bool("json", false, "print the re-gated summary.json on stdout")
	pool := fs.Bool("pool", false, `re-gate a race set's throughput pooled, as a profile with "pooled" does: one pooled check, each race a FAIL-only guard`)
	if code, done := parse(fs, "gate", gateUsage, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "bindrace gate: give exactly one session directory\nRun 'bindrace gate --help' for usage.")
		return 2
	}
	regated, verdict, err := gate.Regate(fs.Arg(0), ths, *baseline, *pool)
	if err != nil {
		return fail(stderr, "gate", err)
	}
	if *asJSON {
		if len(regated) == 1 {
			session.PrintJSON(stdout, regated[0].Summary)
		} else {
			outs := make([]*session.Summary, len(regated))
			for i, r := range regated {
				outs[i] = r.Summary
			}
			session.PrintJSON(stdout, outs)
		}
		return gate.ExitCode(verdict)
	}
	for _, r := range regated {
		if r.Name != "" {
			fmt.Fprintf(stdout, "[%s]\n", r.Name)
		}
		for _, reason := range r.Summary.Reasons {
			fmt.Fprintf(stdout, "  %s\n", reason)
		}
		fmt.Fprintln(stdout, r.Summary.Headline)
	}
	if c := gate.PoolOf(regated); c != nil {
		fmt.Fprintf(stdout, "[pooled]\n  %s: %s\n", c.Reason, c.Verdict)
	}
	if len(regated) > 1 {
		fmt.Fprintf(stdout, "overall %s\n", verdict)
	}
	return gate.ExitCode(verdict)
}

const baselineUsage = `Usage: bindrace baseline write DIR [--out FILE] [--force]

Writes the candidate's deterministic counts (cachegrind instructions and the other counts per
response) of a saved race session, per scenario and shape, to a baseline file that
'bindrace gate DIR --baseline FILE' holds later sessions to. The session must have counted with
cachegrind (--counters cachegrind, or a profile with "counters": "cachegrind"), like the ci
profile. The file also names the build (kind, PGO profile hash) it is valid for.

Default --out: baselines/<profile>.json in the repository. An existing file is replaced only
when it is a baseline (its kind is "bindrace-baseline"), or with --force; a file of DIR itself
never is.`

// baselineCommand is `bindrace baseline write`.
func baselineCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("baseline", stderr)
	out := fs.String("out", "", "baseline file to write (default baselines/<profile>.json)")
	var force bool
	fs.BoolVar(&force, "force", false, "replace an --out file that is not a baseline (never a file of DIR's session)")
	if code, done := parse(fs, "baseline", baselineUsage, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() != 2 || fs.Arg(0) != "write" {
		fmt.Fprintln(stderr, "bindrace baseline: want 'write DIR'\nRun 'bindrace baseline --help' for usage.")
		return 2
	}
	bad := func(err error) int { return fail(stderr, "baseline", err) }
	dir := session.DirOf(fs.Arg(1))
	sums, err := session.LoadRaceSummaries(dir)
	if err != nil {
		return bad(err)
	}
	b, err := gate.NewBaseline(sums, dir)
	if err != nil {
		return bad(err)
	}
	path := *out
	if path == "" {
		name := session.SafeName(sums[0].Shape.Profile)
		root, _ := machine.RepoRoot()
		path = filepath.Join(root, "baselines", name+".json")
	}
	target := session.File{Path: path, Setting: "out", Kind: session.BaselineKind, Inputs: session.Files(dir)}
	if err := target.Check(force); err != nil {
		return bad(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return bad(err)
	}
	if err := session.WriteJSON(path, b); err != nil {
		return bad(err)
	}
	for _, e := range b.Entries {
		calls := ""
		if e.Syscalls != nil {
			calls = fmt.Sprintf(", %.3f system calls per response (paced, kernel %s)", e.Syscalls.PerResponse["syscalls"], e.Syscalls.Kernel)
		}
		fmt.Fprintf(stdout, "%s %s (%d connections, pipelining %d): %.1f instructions per response%s\n",
			b.Target, e.Scenario, e.Connections, e.Pipelining, e.Counters["instructions"], calls)
	}
	fmt.Fprintf(stdout, "wrote %s (build %s, profile %s; counted on %s)\n", path, b.Build["kind"], orNone(b.Build["profile_sha256"]), b.CPU.Describe())
	return 0
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

const reportUsage = `Usage: bindrace report DIR [--format md|html|csv|json|benchfmt]

Renders a saved session on stdout. Without --format it (re)writes summary.md, summary.csv and
report.html into DIR, and only into a folder bindrace wrote: one whose summary.json (or a race
set's index.json) carries bindrace's kind and decodes, every sub-session checked before any
file is written.`

// reportCommand is `bindrace report`.
func reportCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("report", stderr)
	format := fs.String("format", "", "md, html, csv, json or benchfmt (default: rewrite the report files)")
	if code, done := parse(fs, "report", reportUsage, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "bindrace report: give exactly one session directory\nRun 'bindrace report --help' for usage.")
		return 2
	}
	dir := session.DirOf(fs.Arg(0))
	if _, err := session.Kind(dir); err != nil {
		fmt.Fprintf(stderr, "bindrace report: %v\n", err)
		return 2
	}
	switch *format {
	case "":
		if err := report.RewriteSession(dir); err != nil {
			return fail(stderr, "report", err)
		}
		fmt.Fprintf(stdout, "wrote the reports in %s\n", dir)
		return 0
	case "md", "html", "csv", "json", "benchfmt":
	default:
		fmt.Fprintf(stderr, "bindrace report: bad flag value --format %q (want md, html, csv, json or benchfmt)\n", *format)
		return 2
	}
	if err := report.RenderSession(stdout, dir, *format); err != nil {
		fmt.Fprintf(stderr, "bindrace report: %v\n", err)
		return 2
	}
	return 0
}
