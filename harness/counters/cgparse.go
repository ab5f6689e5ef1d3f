package counters

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// CachegrindProfile is what a cachegrind out file says: the whole run's totals and the cost of
// every (source file, function) pair its cost lines name.
type CachegrindProfile struct {
	Cmd    string
	Events []string            // the `events:` header, in order
	Totals map[string]int64    // event -> count from the `summary:` line
	Costs  map[CostKey][]int64 // (fl=, fn=) -> counts, indexed like Events
}

// CostKey is where cachegrind put a cost line: the source file of the instruction (fl=, or fi=/fe=
// inside an inlined stretch) and the function symbol it ran in (fn=). An inlined helper's
// instructions carry the helper's file and its caller's function.
type CostKey struct{ File, Function string }

// ParseCachegrindFile reads a cachegrind out file (cachegrind.out.<pid>); every error names it.
func ParseCachegrindFile(path string) (*CachegrindProfile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := ParseCachegrind(f)
	if err != nil {
		return nil, fmt.Errorf("cachegrind out file %s: %w", path, err)
	}
	return p, nil
}

// cgParser holds the state of one pass over an out file.
type cgParser struct {
	p           *CachegrindProfile
	file, fn    string
	haveFn      bool
	summary     []int64
	haveSummary bool
	lineNo      int
}

// ParseCachegrind reads a cachegrind out file: the `events:` header, the per-function cost lines
// and the `summary:` line. It is strict, since a per-function table read from a damaged file
// would silently miss functions: a file with no fn= records, a cost line outside one, a missing
// summary (cachegrind writes it last, so its absence means the file was cut short) or cost lines
// that do not add up to the summary (as cg_annotate checks) are errors. A cost line or summary
// with fewer numbers than events leaves the rest at zero (the format allows trailing zeros to be
// omitted).
func ParseCachegrind(r io.Reader) (*CachegrindProfile, error) {
	ps := &cgParser{p: &CachegrindProfile{Costs: map[CostKey][]int64{}}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		ps.lineNo++
		if err := ps.line(sc.Text()); err != nil {
			return nil, fmt.Errorf("line %d: %w", ps.lineNo, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return ps.finish()
}

// line takes one line of the file.
func (ps *cgParser) line(line string) error {
	p := ps.p
	switch {
	case strings.HasPrefix(line, "events:"):
		if p.Events != nil {
			return fmt.Errorf("second events: line")
		}
		p.Events = strings.Fields(strings.TrimPrefix(line, "events:"))
		if len(p.Events) == 0 {
			return fmt.Errorf("empty events: line")
		}
	case strings.HasPrefix(line, "summary:"):
		if p.Events == nil {
			return fmt.Errorf("a summary: line before the events: line")
		}
		nums, err := parseCounts(strings.Fields(strings.TrimPrefix(line, "summary:")), len(p.Events))
		if err != nil {
			return fmt.Errorf("summary: %w", err)
		}
		ps.summary, ps.haveSummary = nums, true
	case strings.HasPrefix(line, "cmd:"):
		p.Cmd = strings.TrimSpace(strings.TrimPrefix(line, "cmd:"))
	case strings.HasPrefix(line, "fl="), strings.HasPrefix(line, "fi="), strings.HasPrefix(line, "fe="):
		ps.file = line[3:]
	case strings.HasPrefix(line, "fn="):
		ps.fn, ps.haveFn = line[3:], true
	case line == "" || line[0] < '0' || line[0] > '9':
		// desc:, positions:, totals:, … headers
	default:
		return ps.cost(line)
	}
	return nil
}

// cost adds one cost line ("line-number count count …") to the current function.
func (ps *cgParser) cost(line string) error {
	if ps.p.Events == nil {
		return fmt.Errorf("a cost line before the events: line")
	}
	if !ps.haveFn {
		return fmt.Errorf("a cost line outside any fn= record")
	}
	f := strings.Fields(line)
	if len(f) < 2 {
		return fmt.Errorf("a cost line without counts: %q", line)
	}
	nums, err := parseCounts(f[1:], len(ps.p.Events))
	if err != nil {
		return err
	}
	k := CostKey{File: ps.file, Function: ps.fn}
	acc := ps.p.Costs[k]
	if acc == nil {
		acc = make([]int64, len(ps.p.Events))
		ps.p.Costs[k] = acc
	}
	for i, v := range nums {
		acc[i] += v
	}
	return nil
}

// finish checks the whole file: header, fn= records, summary, and that they agree.
func (ps *cgParser) finish() (*CachegrindProfile, error) {
	p := ps.p
	if p.Events == nil {
		return nil, fmt.Errorf("no events: line (not a cachegrind out file?)")
	}
	if len(p.Costs) == 0 {
		return nil, fmt.Errorf("no fn= cost records: the per-function section is missing, so no function table can be made")
	}
	if !ps.haveSummary {
		return nil, fmt.Errorf("no summary: line: the file is truncated (cachegrind writes the summary last)")
	}
	sums := make([]int64, len(p.Events))
	for _, c := range p.Costs {
		for i, v := range c {
			sums[i] += v
		}
	}
	for i, e := range p.Events {
		if sums[i] != ps.summary[i] {
			return nil, fmt.Errorf("the fn= cost lines add up to %d %s but the summary says %d: the file is truncated or damaged", sums[i], e, ps.summary[i])
		}
	}
	p.Totals = make(map[string]int64, len(p.Events))
	for i, e := range p.Events {
		p.Totals[e] = ps.summary[i]
	}
	return p, nil
}

func parseCounts(fields []string, n int) ([]int64, error) {
	if len(fields) > n {
		return nil, fmt.Errorf("%d numbers for %d events", len(fields), n)
	}
	out := make([]int64, n)
	for i, s := range fields {
		if s == "." { // callgrind-style "no cost"
			continue
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bad count %q", s)
		}
		out[i] = v
	}
	return out, nil
}

// eventMap names a cost vector's counts by the profile's events.
func (p *CachegrindProfile) eventMap(counts []int64) map[string]int64 {
	m := make(map[string]int64, len(p.Events))
	for i, e := range p.Events {
		m[e] = counts[i]
	}
	return m
}

// CachegrindValues derives the named counters from cachegrind's events. A derived counter
// whose events the run did not collect (e.g. no --branch-sim) is absent.
func CachegrindValues(ev map[string]int64) map[string]float64 {
	out := map[string]float64{}
	sum := func(name string, events ...string) {
		var s int64
		for _, e := range events {
			v, ok := ev[e]
			if !ok {
				return
			}
			s += v
		}
		out[name] = float64(s)
	}
	sum(Instructions, "Ir")
	sum(Branches, "Bc", "Bi")
	sum(BranchMispredicts, "Bcm", "Bim")
	sum(I1Misses, "I1mr")
	sum(D1Misses, "D1mr", "D1mw")
	sum(LLMisses, "ILmr", "DLmr", "DLmw")
	sum(LLIMisses, "ILmr")
	sum(LLDMisses, "DLmr", "DLmw")
	sum(DataReads, "Dr")
	sum(DataWrites, "Dw")
	return out
}

// cachegrindUnsupported names the counters a cachegrind run cannot give, with the reason.
func cachegrindUnsupported(values map[string]float64) map[string]string {
	u := map[string]string{
		Cycles:          "not available in cachegrind mode (simulation counts events, not time); see estimated-cycles, a model, not a count; count in perf mode on a host with a PMU",
		CacheReferences: "not available in cachegrind mode; see i1-misses, d1-misses and ll-misses (simulated)",
		CacheMisses:     "not available in cachegrind mode; see ll-misses (simulated last-level misses)",
		TaskClockNs:     "not meaningful under valgrind (the server runs ~50x slower); count in perf mode",
	}
	for _, name := range CachegrindCounters {
		if _, ok := values[name]; !ok {
			u[name] = "the cachegrind run did not collect the events it is derived from"
		}
	}
	return u
}
