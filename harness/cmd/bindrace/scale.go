package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/kinds"
)

const scaleUsage = `Usage: bindrace scale --targets T1,T2,... --threads 1,2,4,... [--rounds R] [--profile NAME] [flags]

Draws thread-scaling curves: each target at each server thread count (the race's equal-threads
rule: binding event loops, Go GOMAXPROCS, uWebSockets.js apps in worker threads), one fresh
server per run, the targets' order reversed every round and point (AB, BA, ...). Per point:
responses/s, responses per server CPU-second, speed-up and efficiency against one thread (or
the smallest count), server CPU and the load generator's own CPU. A point whose load generator
used 90% or more of its cores is marked client-bound; a point whose server CPUs overlap the
load generator's is marked (on 2 CPUs only the 1-thread point is disjoint).

Writes results/<session>/ (summary.json, raw.json, manifest.json, summary.md, summary.csv,
report.html with the curves).

Exit status: 0 done, 2 bad input (an empty list, a thread count under 1 or above the CPUs, an
unknown target), an error or an incomplete session (partial results are saved).`

// scaleCommand is `bindrace scale`.
func scaleCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("scale", stderr)
	list := fs.String("targets", "", "comma-separated targets")
	addTargetFlags(fs)
	threads := fs.String("threads", "", "comma-separated server thread counts, e.g. 1,2,4")
	pf := addScaleFlags(fs)
	var of outputFlags
	of.register(fs, "scale-<targets>")
	if code, done := parseNoArgs(fs, "scale", scaleUsage, args, stdout, stderr); done {
		return code
	}
	names := splitList(*list)
	counts, err := parseThreads(*threads)
	if err != nil {
		return fail(stderr, "scale", err)
	}
	ctx, p, logw, done, ok := prepare("scale", fs, pf, of.outputs, stderr)
	if !ok {
		return 2
	}
	defer done()
	o, out := of.options(fs, p, logw, stderr)
	res, err := kinds.Scale(ctx, kinds.ScaleOptions{Options: o, Targets: names, Threads: counts})
	out.done()
	if err != nil {
		return fail(stderr, "scale", err)
	}
	return finish("scale", of.json, res.Summary, func() {
		printScale(res, stdout, stderr)
	}, 0, stdout, stderr, out.err(res.WriteErr), incomplete(res.Summary.Incomplete))
}

// addScaleFlags registers the profile flags a scale takes: the matrix's, less --threads (a
// list here) and the gate's.
func addScaleFlags(fs *pflag.FlagSet) *profileFlags {
	all := newFlagSet("scale", io.Discard)
	pf := addProfileFlags(all, defaultProfile, true)
	skip := map[string]bool{"threads": true, "threshold": true, "counters": true, "cachegrind-n": true,
		"cachegrind-reps": true, "decide-on": true, "confidence": true}
	all.VisitAll(func(f *pflag.Flag) {
		if !skip[f.Name] {
			fs.AddFlag(f)
		}
	})
	return pf
}

func splitList(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// parseThreads parses --threads; kinds.CheckScale checks the counts.
func parseThreads(s string) ([]int, error) {
	var out []int
	for _, part := range splitList(s) {
		n, err := strconv.Atoi(part)
		if err != nil {
			return nil, fmt.Errorf("bad flag value --threads: %q is not a whole number", part)
		}
		out = append(out, n)
	}
	return out, nil
}
