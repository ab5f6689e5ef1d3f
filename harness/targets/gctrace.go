package targets

import (
	"bytes"
	"regexp"
	"strconv"
	"sync"
)

// GCTrace reads what a Go runtime says of its collections on stderr under GODEBUG=gctrace=1:
// one line per cycle. It is how the harness reads a third-party Go server's collector from
// outside, without code in the server (the built-in Go targets answer runtime/metrics on their
// info route instead). The server's output passes through it as it is written.
type GCTrace struct {
	mu      sync.Mutex
	partial []byte
	totals  GCTotals
}

// GCTotals are a traced server's collections so far.
type GCTotals struct {
	Cycles  int     // collections traced
	PauseMs float64 // their stop-the-world phases' wall time (sweep termination + mark termination)
	CPUPct  float64 // the runtime's own figure at the last cycle: GC CPU since start, % of the Ps' time
	LiveMiB float64 // the heap the last cycle marked live
}

// gcLine is a gctrace line: "gc 12 @3.456s 4%: 0.021+1.2+0.034 ms clock, … 8->9->4 MB, …".
var gcLine = regexp.MustCompile(`^gc \d+ @[0-9.]+s (\d+)%: ([0-9.]+)\+[0-9.]+\+([0-9.]+) ms clock, .*? [0-9.]+->[0-9.]+->([0-9.]+) MB`)

func (g *GCTrace) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.partial = append(g.partial, p...)
	for {
		i := bytes.IndexByte(g.partial, '\n')
		if i < 0 {
			break
		}
		g.add(g.partial[:i])
		g.partial = g.partial[i+1:]
	}
	if len(g.partial) > 4<<10 { // not a gctrace line: a server's own long output
		g.partial = g.partial[:0]
	}
	return len(p), nil
}

// add counts one line if it is a gctrace line; other output is the server's own.
func (g *GCTrace) add(line []byte) {
	m := gcLine.FindSubmatch(line)
	if m == nil {
		return
	}
	num := func(b []byte) float64 { v, _ := strconv.ParseFloat(string(b), 64); return v }
	g.totals.Cycles++
	g.totals.CPUPct = num(m[1])
	g.totals.PauseMs += num(m[2]) + num(m[3])
	g.totals.LiveMiB = num(m[4])
}

// Totals is what the trace said so far; nil-safe.
func (g *GCTrace) Totals() GCTotals {
	if g == nil {
		return GCTotals{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.totals
}
