package counters

import (
	"sort"
)

// View says what a breakdown's rows are: functions (cachegrind's fn=) or source files (fl=).
type View string

// The two views of a cachegrind measurement. LTO and PGO inline small callees into their
// callers, so in the function view an inlined helper's instructions belong to its caller; the
// file view puts them under the helper's own source file (cachegrind records the file of each
// instruction's line), where a regression in the helper shows.
const (
	ByFunction View = "function"
	ByFile     View = "file"
)

// Slope is one row's own per-response figure for every counter: (count in the 2N run − count in
// the N run) / N. Raw: noise can make it negative; Breakdown decides what is told from noise.
type Slope struct {
	Name     string
	NoSymbol bool               // the row of code without a symbol (JIT or stripped) or debug info
	Values   map[string]float64 // counter → per response
}

// rowKey names the row a cost line belongs to in a view.
func rowKey(v View, k CostKey, cmd string) (name string, noSym bool) {
	if v == ByFile {
		return FileName(k.File), k.File == noSymbol || k.File == ""
	}
	if k.Function == noSymbol || k.Function == "" {
		return unknownLabel(cmd), true
	}
	return SymbolName(k.Function), false
}

// viewCounts sums a profile's cost lines by row of a view (names that demangle alike, or files
// that clean alike, are one row).
func viewCounts(p *CachegrindProfile, v View) (map[string][]int64, map[string]bool) {
	out := map[string][]int64{}
	noSym := map[string]bool{}
	for k, c := range p.Costs {
		name, ns := rowKey(v, k, p.Cmd)
		acc := out[name]
		if acc == nil {
			acc = make([]int64, len(p.Events))
			out[name] = acc
		}
		for i, x := range c {
			acc[i] += x
		}
		if ns {
			noSym[name] = true
		}
	}
	return out, noSym
}

// Slopes computes every row's slope between the N run a and the 2N run b, whose difference is
// responses. A row only one run has counts zero in the other. Rows come sorted by name.
func Slopes(a, b *CachegrindProfile, responses int64, v View) []Slope {
	ca, nsA := viewCounts(a, v)
	cb, nsB := viewCounts(b, v)
	names := map[string]bool{}
	for n := range ca {
		names[n] = true
	}
	for n := range cb {
		names[n] = true
	}
	out := make([]Slope, 0, len(names))
	for n := range names {
		va := rowCounters(a, ca[n])
		vb := rowCounters(b, cb[n])
		s := Slope{Name: n, NoSymbol: nsA[n] || nsB[n], Values: map[string]float64{}}
		for k, x := range vb {
			if y, ok := va[k]; ok {
				s.Values[k] = (x - y) / float64(responses)
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// rowCounters derives the slope counters of one row's events (zero events when the run has no
// such row).
func rowCounters(p *CachegrindProfile, counts []int64) map[string]float64 {
	if counts == nil {
		counts = make([]int64, len(p.Events))
	}
	return slopeCounters(p.eventMap(counts))
}
