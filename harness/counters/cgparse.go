package counters

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// CachegrindProfile is what a cachegrind out file says about the whole run.
type CachegrindProfile struct {
	Cmd    string
	Events []string         // the `events:` header, in order
	Totals map[string]int64 // event -> count from the `summary:` line
}

// ParseCachegrindFile reads a cachegrind out file (cachegrind.out.<pid>).
func ParseCachegrindFile(path string) (*CachegrindProfile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := ParseCachegrind(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParseCachegrind reads the `events:` header and the `summary:` line of a cachegrind out file.
// A summary with fewer numbers than events leaves the rest at zero (the format allows trailing
// zeros to be omitted). Without a summary line (a truncated file) the cost lines are summed.
func ParseCachegrind(r io.Reader) (*CachegrindProfile, error) {
	p := &CachegrindProfile{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var summed []int64
	var summary []int64
	haveSummary := false
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "events:"):
			if p.Events != nil {
				return nil, fmt.Errorf("line %d: second events: line", lineNo)
			}
			p.Events = strings.Fields(strings.TrimPrefix(line, "events:"))
			if len(p.Events) == 0 {
				return nil, fmt.Errorf("line %d: empty events: line", lineNo)
			}
			summed = make([]int64, len(p.Events))
		case strings.HasPrefix(line, "summary:"):
			if p.Events == nil {
				return nil, fmt.Errorf("line %d: a summary: line before the events: line", lineNo)
			}
			nums, err := parseCounts(strings.Fields(strings.TrimPrefix(line, "summary:")), len(p.Events))
			if err != nil {
				return nil, fmt.Errorf("line %d: summary: %w", lineNo, err)
			}
			summary, haveSummary = nums, true
		case strings.HasPrefix(line, "cmd:"):
			p.Cmd = strings.TrimSpace(strings.TrimPrefix(line, "cmd:"))
		case line == "" || line[0] < '0' || line[0] > '9':
			// desc:, positions:, totals:, fl=, fn=, … headers
		default:
			if summed == nil {
				continue
			}
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			nums, err := parseCounts(f[1:], len(p.Events))
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", lineNo, err)
			}
			for i, v := range nums {
				summed[i] += v
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if p.Events == nil {
		return nil, fmt.Errorf("no events: line (not a cachegrind out file?)")
	}
	if !haveSummary {
		summary = summed
	}
	p.Totals = make(map[string]int64, len(p.Events))
	for i, e := range p.Events {
		p.Totals[e] = summary[i]
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
		Cycles:          "not available in cachegrind mode (simulation counts events, not time); use --mode perf on a host with a PMU",
		CacheReferences: "not available in cachegrind mode; see i1-misses, d1-misses and ll-misses (simulated)",
		CacheMisses:     "not available in cachegrind mode; see ll-misses (simulated last-level misses)",
		TaskClockNs:     "not meaningful under valgrind (the server runs ~50x slower); use --mode perf",
	}
	for _, name := range CachegrindCounters {
		if _, ok := values[name]; !ok {
			u[name] = "the cachegrind run did not collect the events it is derived from"
		}
	}
	return u
}
