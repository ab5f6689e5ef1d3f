package main

import (
	"fmt"
	"io"

	"github.com/bindrace/bindrace/harness/kinds"
	"github.com/bindrace/bindrace/harness/setting"
)

const sweepUsage = `Usage: bindrace sweep --targets T1,T2 (--rates a,b,c | --fractions 0.25,0.5,0.75,0.9) [--slo 1ms] [flags]

Measures each target's latency (p50, p99, p99.9) at a series of fixed rates: one open-loop run
per target and rate, the targets' order alternating from one rate to the next. --rates are
requests/s in all; --fractions are of each target's own closed-loop maximum, measured first in
this session at the same pipelining (1 unless --pipelining says otherwise). With --slo the last
lines say, per target, the highest rate up to which p99 stayed under it: the last rate before
the first one (going up) whose p99 crossed it ("none" when the lowest did). Generator-bound
points (the load generator fell behind its schedule) are marked and neither set nor end that
rate. Writes results/<session>/ (summary.json, raw.json with each run's histogram,
summary.md with the table, report.html with the curves).

Exit status: 0 done (whatever the SLO says), 2 bad input, an error or an incomplete session.`

// sweepCommand is `bindrace sweep`.
func sweepCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("sweep", stderr)
	list := fs.String("targets", "", "comma-separated targets, e.g. binding,fasthttp,uws")
	addTargetFlags(fs)
	rates := fs.Float64Slice("rates", nil, "rates to measure at, requests/s in all, comma-separated")
	fractions := fs.Float64Slice("fractions", nil, "fractions in (0, 1] of each target's closed-loop maximum, comma-separated")
	slo := fs.Duration("slo", 0, "latency objective for p99, e.g. 1ms: report the highest rate that keeps p99 under it")
	lag := addLagFlag(fs)
	pf := addProfileFlags(fs, defaultProfile, true)
	fs.MarkHidden("rounds")
	var of outputFlags
	of.register(fs, "sweep-<targets>")
	if code, done := parseNoArgs(fs, "sweep", sweepUsage, args, stdout, stderr); done {
		return code
	}
	so := kinds.SweepOptions{Targets: splitList(*list), Rates: *rates, Fractions: *fractions, SLO: *slo}
	err := so.Check()
	if err == nil && fs.Changed("slo") && *slo <= 0 {
		err = fmt.Errorf("--slo must be above 0 (got %s)", *slo)
	}
	for _, r := range *rates {
		if rerr := setting.Check("rate", r); err == nil && rerr != nil {
			err = fmt.Errorf("--rates: %w", plainSetting{rerr})
		}
	}
	if err == nil {
		err = lagTolerance(fs, *lag)
	}
	if err != nil {
		return fail(stderr, "sweep", err)
	}
	if !fs.Changed("pipelining") {
		fs.Set("pipelining", "1") // an open loop's default: one request in flight per connection
	}
	ctx, p, logw, done, ok := prepare("sweep", fs, pf, of.outputs, stderr)
	if !ok {
		return 2
	}
	defer done()
	var out *sessionOutput
	so.Options, out = of.options(fs, p, logw, stderr) // the options of every session command
	so.LagTolerance = *lag
	res, err := kinds.Sweep(ctx, so)
	out.done()
	if err != nil {
		return fail(stderr, "sweep", err)
	}
	return finish("sweep", of.json, res.Summary, func() {
		printSweep(res, stdout, stderr)
	}, 0, stdout, stderr, out.err(res.WriteErr), incomplete(res.Summary.Incomplete))
}
