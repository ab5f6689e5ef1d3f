package race

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// ScaleOptions is a scale session: Options.Targets at each of Threads server threads.
type ScaleOptions struct {
	Options
	Threads []int
}

// scaleSession is a scale session once it is set up.
type scaleSession struct {
	o      *ScaleOptions
	pl     Plan
	st     *setup
	sc     scenario.Scenario
	conns  int
	pipe   int
	rounds int
	warn   []string
	dir    string
}

// Scale runs a scale session: for each thread count (ascending) and round, every target once,
// the targets' order reversed from one round or point to the next (AB, BA, …), each run a
// fresh server with that many threads (the race's equal-threads rule: event loops,
// GOMAXPROCS, uWebSockets.js apps). It writes the session's files and returns the exit status:
// 0, or 2 on bad input, an error or an incomplete session.
func Scale(ctx context.Context, o ScaleOptions) int {
	prog := NewProgress(o.Stderr)
	ss, err := newScaleSession(ctx, &o, prog)
	if err != nil {
		return setUpFailed(prog, o.Stderr, "scale", err)
	}
	defer ss.st.close()
	runs, cut := ss.points(ctx)
	prog.Done()
	s := session.Scale{Kind: "scale", Targets: o.Targets, Threads: o.Threads, Scenario: ss.sc.Name, Unit: unitOf(ss.sc),
		Rounds: ss.rounds, Runs: runs, Warnings: ss.warn, Started: ss.st.started}
	s.Shape = o.shape(ss.pl, ss.sc.Name, ss.conns, ss.pipe)
	s.Shape.CPUsServer = ""
	s.Shape.Rounds = ss.rounds
	if cut != nil {
		s.Incomplete = interruptReason(ctx, cut)
	}
	stats.SummarizeScale(&s)
	s.Finished = time.Now().UTC()
	return finish("scale", o.Stderr, s.Incomplete, func() error { return ss.write(&s) }, func() { ss.print(&s) })
}

// CheckScale checks a scale's targets and thread counts before anything starts: at least one
// target, none twice; at least one thread count, each > 0, none twice, none above cpus.
func CheckScale(targets []string, threads []int, cpus int) error {
	if len(targets) == 0 {
		return errors.New("--targets is empty: name at least one target, e.g. --targets binding,fasthttp")
	}
	if len(threads) == 0 {
		return errors.New("--threads is empty: give thread counts, e.g. --threads 1,2")
	}
	seen := map[string]bool{}
	for _, t := range targets {
		if seen[t] {
			return fmt.Errorf("target %q listed twice", t)
		}
		seen[t] = true
	}
	for i, n := range threads {
		switch {
		case n <= 0:
			return fmt.Errorf("bad flag value --threads: %d (a thread count is at least 1)", n)
		case n > cpus:
			return fmt.Errorf("bad flag value --threads: %d threads asked, this machine has %d CPUs", n, cpus)
		case slices.Contains(threads[:i], n):
			return fmt.Errorf("bad flag value --threads: %d listed twice", n)
		}
	}
	return nil
}

// ScaleCPUs is where a server with threads threads runs: the plan's server CPUs first, then
// the other CPUs the client does not use, then the client's (shared: true). ncpu bounds them.
func ScaleCPUs(threads int, server, client string, ncpu int) (cpus string, shared bool, err error) {
	order, err := cpuOrder(server, client, ncpu)
	if err != nil {
		return "", false, err
	}
	if threads > len(order) {
		return "", false, fmt.Errorf("%d threads asked, %d CPUs available", threads, len(order))
	}
	parts := make([]string, threads)
	for i, c := range order[:threads] {
		parts[i] = strconv.Itoa(c)
	}
	cpus = strings.Join(parts, ",")
	return cpus, machine.Overlap(cpus, client), nil
}

// cpuOrder lists 0..ncpu-1 as ScaleCPUs takes them.
func cpuOrder(server, client string, ncpu int) ([]int, error) {
	var srv, cli []int
	var err error
	if server != "" {
		if srv, err = machine.ParseCPUs(server); err != nil {
			return nil, err
		}
	}
	if client != "" {
		if cli, err = machine.ParseCPUs(client); err != nil {
			return nil, err
		}
	}
	order := slices.Clone(srv)
	for c := 0; c < ncpu; c++ {
		if !slices.Contains(order, c) && !slices.Contains(cli, c) {
			order = append(order, c)
		}
	}
	for _, c := range cli {
		if !slices.Contains(order, c) && c < ncpu {
			order = append(order, c)
		}
	}
	return order, nil
}

// newScaleSession checks o, sets the session up (setUp: the targets verified with the first
// thread count) and creates the session directory.
func newScaleSession(ctx context.Context, o *ScaleOptions, prog *Progress) (*scaleSession, error) {
	if err := CheckScale(o.Targets, o.Threads, runtime.NumCPU()); err != nil {
		return nil, err
	}
	slices.Sort(o.Threads)
	pl, err := planOf(o.Profile)
	if err != nil {
		return nil, err
	}
	races := o.Profile.Races()
	r := races[0]
	ss := &scaleSession{o: o, pl: pl, conns: r.Connections, pipe: r.Pipelining, rounds: max(1, o.Profile.Rounds)}
	if ss.sc, err = scenario.ByName(r.Scenario); err != nil {
		return nil, fmt.Errorf("bad flag value --scenario: %w", err)
	}
	if len(races) > 1 {
		ss.warn = append(ss.warn, fmt.Sprintf("a scale covers one race: %s (connections %d, pipelining %d); the profile's other races were not run", r.Scenario, r.Connections, r.Pipelining))
	}
	for _, t := range o.Threads {
		if _, _, err := ScaleCPUs(t, pl.CPUsServer, pl.CPUsClient, runtime.NumCPU()); err != nil {
			return nil, fmt.Errorf("bad flag value --threads: %w", err)
		}
	}
	ss.pl.Threads = o.Threads[0]
	ss.pl.CPUsServer, _, _ = ScaleCPUs(o.Threads[0], pl.CPUsServer, pl.CPUsClient, runtime.NumCPU())
	method := append(methodLines(ss.pl), fmt.Sprintf("scale: threads %s, %d round(s) per point, target order reversed every round and point; a point's figures are the medians of its runs", intsText(o.Threads), ss.rounds))
	ss.st, err = setUp(ctx, &o.Options, ss.pl, prog, o.Targets, []scenario.Scenario{ss.sc}, method, func(man *session.Manifest) {
		logWarnings(prog, &ss.warn, man)
		prog.Logf("scale %s: threads %s, profile %s, %s, %d round(s) × %s, client CPUs %q", strings.Join(o.Targets, ","), intsText(o.Threads), pl.Profile, racesText(races[:1]), ss.rounds, pl.Duration, pl.CPUsClient)
	})
	if err != nil {
		return nil, err
	}
	if ss.dir, err = ss.st.makeDir(o.Out, "scale", o.Targets); err != nil {
		return nil, err
	}
	return ss, nil
}

func intsText(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}

// write writes summary.json, raw.json and manifest.json, then the reports.
func (ss *scaleSession) write(s *session.Scale) error {
	raw := session.Raw{}
	for _, r := range s.Runs {
		raw.Runs = append(raw.Runs, r.Run)
	}
	return writeSession(ss.dir, s, raw, ss.st.man)
}

// print prints summary.json with JSON, else one line per point and the results directory.
func (ss *scaleSession) print(s *session.Scale) {
	o := ss.o
	if o.JSON {
		session.PrintJSON(o.Stdout, s)
		return
	}
	for _, p := range s.Points {
		fmt.Fprintf(o.Stdout, "%-14s threads %2d  %s %s  %s per server CPU-s  efficiency %.0f%%  server CPU %.0f%%  client CPU %.0f%%%s\n",
			p.Target, p.Threads, Thousands(p.RPS), rateUnit(ss.sc), Thousands(p.RPSPerCPUSecond), p.EfficiencyPct, p.ServerCPUPct, p.ClientCPUPct, pointMarks(p))
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(o.Stderr, "  warning: %s\n", w)
	}
	if s.Incomplete != "" {
		fmt.Fprintf(o.Stdout, "scale INCOMPLETE: %s\n", s.Incomplete)
	}
	fmt.Fprintf(o.Stderr, "results: %s\n", ss.dir)
}

// pointMarks are a point's marks as the terminal shows them.
func pointMarks(p session.ScalePoint) string {
	var m []string
	if p.ClientBound {
		m = append(m, "client-bound")
	}
	if p.SharedCPUs {
		m = append(m, "shares client CPUs")
	}
	if p.Runs == 0 {
		m = append(m, "no valid run")
	}
	if len(m) == 0 {
		return ""
	}
	return "  [" + strings.Join(m, ", ") + "]"
}
