package counters

import (
	"sort"

	"github.com/bindrace/bindrace/harness/internal/round"
)

// BreakdownCounters are the counters a breakdown's rows carry, in column order.
var BreakdownCounters = []string{Instructions, Branches, BranchMispredicts, D1Misses, LLMisses, EstimatedCycles}

// Breakdown is one view (by function or by source file) of a cachegrind measurement's
// per-response counts, for reading: only what the method resolves is shown as a number.
//
// A row is listed when its instructions per response reach the resolution; its other counters
// are listed where they reach theirs. Every other row is in Under, with the sum of each counter
// over those rows where that sum reaches the resolution of a sum. So no negative count (noise) is ever
// shown, no row is dropped without being counted, and the listed rows plus Under add up to the
// measured total.
type Breakdown struct {
	View       View               `json:"view"`
	Resolution Resolution         `json:"resolution"`       // counter → smallest per-response slope of a row told from noise
	SumRes     Resolution         `json:"total_resolution"` // the same for a sum over many rows (Under, Total)
	Labels     map[string]string  `json:"labels"`           // counter → what kind of figure it is (estimated-cycles: estimated (simulated))
	Rows       []BreakdownRow     `json:"rows"`             // most instructions first
	Under      UnderResolution    `json:"under_resolution"`
	Total      map[string]float64 `json:"total"` // the rows' sum per counter, where it reaches the resolution
	Notes      []string           `json:"notes,omitempty"`

	slopes []Slope // every row, raw, for attribution between two measurements
}

// BreakdownRow is one function or file above the resolution.
type BreakdownRow struct {
	Name        string             `json:"name"`
	NoSymbol    bool               `json:"no_symbol,omitempty"`
	SharePct    float64            `json:"share_pct"`    // of the total instructions per response
	PerResponse map[string]float64 `json:"per_response"` // counters at or above their resolution
}

// UnderResolution is every row whose instructions per response fall under the resolution.
type UnderResolution struct {
	Rows        int                `json:"rows"`
	PerResponse map[string]float64 `json:"per_response"` // their sum, where it reaches the resolution
}

// NewBreakdown sorts slopes into the rows the resolution lets through and the rest.
func NewBreakdown(v View, slopes []Slope, res, sumRes Resolution) *Breakdown {
	b := &Breakdown{View: v, Resolution: res, SumRes: sumRes, Labels: map[string]string{EstimatedCycles: EstimatedLabel + ": " + EstimatedFormula},
		Total: map[string]float64{}, slopes: slopes}
	total := map[string]float64{}
	under := map[string]float64{}
	for _, s := range slopes {
		for k, x := range s.Values {
			total[k] += x
		}
		if !res.Resolves(Instructions, s.Values[Instructions]) {
			b.Under.Rows++
			for k, x := range s.Values {
				under[k] += x
			}
			continue
		}
		b.Rows = append(b.Rows, BreakdownRow{Name: s.Name, NoSymbol: s.NoSymbol, PerResponse: RoundMap(res.resolved(columns(s.Values)))})
	}
	ins := total[Instructions]
	for i := range b.Rows {
		if ins > 0 {
			b.Rows[i].SharePct = round.Readable(100 * b.Rows[i].PerResponse[Instructions] / ins)
		}
	}
	sort.SliceStable(b.Rows, func(i, j int) bool {
		return b.Rows[i].PerResponse[Instructions] > b.Rows[j].PerResponse[Instructions]
	})
	b.Under.PerResponse = RoundMap(sumRes.resolved(columns(under)))
	b.Total = RoundMap(sumRes.resolved(columns(total)))
	b.Resolution, b.SumRes = RoundMap(res), RoundMap(sumRes)
	return b
}

// columns keeps a row's BreakdownCounters.
func columns(values map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(BreakdownCounters))
	for _, k := range BreakdownCounters {
		if v, ok := values[k]; ok {
			out[k] = v
		}
	}
	return out
}

// Slopes is every row of the breakdown, raw (negative slopes included), sorted by name: what an
// attribution of the difference between two measurements subtracts.
func (b *Breakdown) Slopes() []Slope { return b.slopes }

// Top is the first k rows (all when k <= 0 or there are fewer).
func (b *Breakdown) Top(k int) []BreakdownRow {
	if k <= 0 || k >= len(b.Rows) {
		return b.Rows
	}
	return b.Rows[:k]
}

// NoSymbolShare is the share of the total instructions in rows without a symbol (or, by file,
// without debug information), in percent.
func (b *Breakdown) NoSymbolShare() float64 {
	var ns, all float64
	for _, s := range b.slopes {
		x := s.Values[Instructions]
		all += x
		if s.NoSymbol {
			ns += x
		}
	}
	if all <= 0 {
		return 0
	}
	return 100 * ns / all
}
