package kinds

import (
	"fmt"
	"testing"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/session"
)

func rep(res float64, rows map[string]float64) *counters.Breakdown {
	var slopes []counters.Slope
	for name, v := range rows {
		slopes = append(slopes, counters.Slope{Name: name, Values: map[string]float64{counters.Instructions: v}})
	}
	r := counters.Resolution{counters.Instructions: res}
	return counters.NewBreakdown(counters.ByFunction, slopes, r, counters.Resolution{counters.Instructions: 3 * res})
}

// Each row is its median over the repetitions (missing in one counts 0), against the widest
// resolution; the rows under it are counted in UnderSum, never listed, never dropped.
func TestMedianBreakdown(t *testing.T) {
	b := medianBreakdown([]*counters.Breakdown{
		rep(2, map[string]float64{"process": 686, "ping": 344, "noise": -1.5, "timer": 3}),
		rep(2.5, map[string]float64{"process": 690, "ping": 344, "noise": 1}),
		rep(2, map[string]float64{"process": 687, "ping": 345, "timer": 2.4}),
	})
	if b.Resolution != 2.5 || b.TotalResolution != 7.5 {
		t.Errorf("resolution %v / %v", b.Resolution, b.TotalResolution)
	}
	want := []session.BreakdownRow{{Name: "process", Instructions: 687}, {Name: "ping", Instructions: 344}}
	if fmt.Sprint(b.Rows) != fmt.Sprint(want) {
		t.Errorf("rows %v, want %v", b.Rows, want)
	}
	// noise: median of −1.5, 1, 0 = 0; timer: median of 3, 0, 2.4 = 2.4 (under 2.5).
	if b.UnderRows != 2 || b.UnderSum != 2.4 {
		t.Errorf("under %d rows, sum %v", b.UnderRows, b.UnderSum)
	}
	// Past the cap, rows count with the ones under the resolution.
	many := map[string]float64{}
	for i := 0; i < session.MaxBreakdownRows+5; i++ {
		many[fmt.Sprintf("f%03d", i)] = float64(10 + i)
	}
	b = medianBreakdown([]*counters.Breakdown{rep(1, many)})
	if len(b.Rows) != session.MaxBreakdownRows || b.UnderRows != 5 || b.UnderSum != 10+11+12+13+14 || b.Rows[0].Name != "f304" {
		t.Errorf("capped: %d rows, under %d (%v), first %v", len(b.Rows), b.UnderRows, b.UnderSum, b.Rows[0])
	}
	if sideBreakdowns(nil, nil) != nil {
		t.Error("no repetitions with functions: want no breakdown")
	}
}
