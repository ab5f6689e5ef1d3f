package stats

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

func breakdown(res float64, rows ...any) *session.Breakdown {
	b := &session.Breakdown{Resolution: res, TotalResolution: 2 * res}
	for i := 0; i < len(rows); i += 2 {
		b.Rows = append(b.Rows, session.BreakdownRow{Name: rows[i].(string), Instructions: rows[i+1].(float64)})
	}
	return b
}

// A regression of one function: it is first, carries its share, the rows and everything else
// add up to the check's delta, and deltas under the resolution are never rows.
func TestAttributeViewRanksAndAddsUp(t *testing.T) {
	a := breakdown(2, "process", 700.0, "main.regress", 130.0, "serve", 131.0, "memmove", 76.0, "unlock2", 50.0)
	b := breakdown(2, "process", 686.0, "serve", 130.0, "memmove", 77.0, "unlock2", 53.5, "lock2", 3.0)
	delta := 160.0 // the check's own totals: 2,333 − 2,173
	v := AttributeView(a, b, delta, 2173)
	if v.Resolution != 4 {
		t.Errorf("resolution %v, want the sides' 2 + 2", v.Resolution)
	}
	if len(v.Rows) != 2 || v.Rows[0].Name != "main.regress" || v.Rows[0].Only != "a" || v.Rows[0].B != nil || v.Rows[1].Name != "process" {
		t.Fatalf("rows %+v", v.Rows)
	}
	if s := v.Rows[0].SharePct; s == nil || math.Abs(*s-81.25) > 1e-9 || math.Abs(v.Rows[0].PointsPct-100*130.0/2173) > 1e-6 {
		t.Errorf("share %v, points %v", s, v.Rows[0].PointsPct)
	}
	// serve +1, memmove −1, unlock2 −3.5, lock2 −3 (only B): all under ±4.
	if v.Rest.UnderRows != 4 || v.Rest.Rows != 0 {
		t.Errorf("rest %+v", v.Rest)
	}
	sum := v.Rest.Delta
	for _, r := range v.Rows {
		sum += r.Delta
	}
	if math.Abs(sum-delta) > 1e-9 {
		t.Errorf("rows and everything else add up to %v, the check's delta is %v", sum, delta)
	}
	// 160 − 144 = 16 left for the rows under the resolution and the rest: above 2+2+... (sum res 8).
	if v.Rest.UnderDelta == nil || math.Abs(*v.Rest.UnderDelta-16) > 1e-9 {
		t.Errorf("under delta %v", v.Rest.UnderDelta)
	}
}

// Past the top 15, rows count in everything else and one-sided ones are listed; in an A/A race
// no row reaches the resolution, and the delta is all everything else, its sum under the
// resolution of a sum, and no shares given of it.
func TestAttributeViewRestAndNoise(t *testing.T) {
	var ra, rb []any
	for i := 0; i < 20; i++ {
		ra = append(ra, fmt.Sprintf("f%02d", i), float64(100+10*i))
		rb = append(rb, fmt.Sprintf("f%02d", i), 50.0)
	}
	ra = append(ra, "g-new", 400.0, "h-new", 5.0, "i-new", 6.0)
	v := AttributeView(breakdown(1, ra...), breakdown(1, rb...), 2000, 1000)
	if len(v.Rows) != AttributionTop || v.Rest.Rows != 8 || len(v.OnlyA) != 2 || v.OnlyA[0].Name != "i-new" {
		t.Fatalf("%d rows, rest %+v, only A %v", len(v.Rows), v.Rest, v.OnlyA)
	}
	if v.Rows[0].Name != "g-new" || v.Rows[0].Only != "a" || v.Rows[1].Name != "f19" || v.Rows[1].Only != "" {
		t.Errorf("first %+v", v.Rows[0])
	}
	for _, r := range v.OnlyA {
		if r.Only != "a" || r.B != nil {
			t.Errorf("only-A row %+v", r)
		}
	}
	aa := AttributeView(breakdown(3, "x", 100.0, "y", 50.0), breakdown(3, "x", 101.0, "y", 49.0), 0.5, 150)
	// Its delta, +0.5, is under the resolution of a sum: no shares of noise.
	if len(aa.Rows) != 0 || aa.Rest.SharePct != nil || aa.Rest.UnderDelta != nil || aa.Rest.UnderRows != 2 ||
		len(aa.Notes) != 1 || !strings.Contains(aa.Notes[0], "within the resolution of a sum") {
		t.Errorf("A/A: %+v", aa)
	}
}
