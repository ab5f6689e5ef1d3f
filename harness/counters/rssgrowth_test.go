package counters

import (
	"math"
	"testing"
)

// TestGrowthPer100k: a resident set that grows 1 KiB a response grows by ~100 MiB per 100k
// responses, in percent of where it started; a flat one grows by nothing, known to a page over
// the run; steps of the allocator widen the resolution rather than bias the figure.
func TestGrowthPer100k(t *testing.T) {
	reads := func(start, perResponse int64, steps bool) []RSSRead {
		var rs []RSSRead
		for i := int64(0); i <= 10; i++ {
			rss := start + perResponse*i*20000
			if steps && i%2 == 1 {
				rss += 1 << 20
			}
			rs = append(rs, RSSRead{Responses: i * 20000, RSSBytes: rss})
		}
		return rs
	}
	const start = 10 << 20
	g, res, err := GrowthPer100k(reads(start, 1024, false))
	if want := 1024 * 1e5 / start * 100; err != nil || math.Abs(g-want) > 1e-6 || res > 0.02 {
		t.Errorf("leak: %v ±%v (%v), want %v", g, res, err, want)
	}
	g, res, err = GrowthPer100k(reads(start, 0, false))
	if page := 4096.0 / 200000 * 1e5 / start * 100; err != nil || g != 0 || math.Abs(res-page) > 1e-9 {
		t.Errorf("flat: %v ±%v (%v), want 0 ±%v", g, res, err, page)
	}
	g, res, err = GrowthPer100k(reads(start, 0, true))
	if err != nil || math.Abs(g) > res || res < 1 {
		t.Errorf("steps: %v ±%v (%v), want a figure within a resolution of a few percent", g, res, err)
	}
	if _, _, err := GrowthPer100k(reads(start, 0, false)[:2]); err == nil {
		t.Error("two reads fit a line")
	}
}
