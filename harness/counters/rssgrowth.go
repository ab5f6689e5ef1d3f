package counters

import (
	"errors"
	"math"
)

// RSSGrowth is the rss-growth mode's counter: how much a server's resident set grows per
// 100,000 responses of a long paced run after its warm-up, in percent of the resident set at
// the first read. A server that does not leak grows it by nothing once warm, whatever its size;
// one that keeps 1 KiB a response grows it by about 100 MiB.
const RSSGrowth = ModeRSSGrowth

// RSSRead is the server's resident set after so many responses of the run.
type RSSRead struct {
	Responses int64 `json:"responses"`
	RSSBytes  int64 `json:"rss_bytes"`
}

// pageBytes is the granularity of a resident set: a server may grow by one page without a leak.
const pageBytes = 4096

// GrowthPer100k fits a line through reads (least squares, responses against bytes) and returns
// its slope as RSSGrowth's figure, and the figure's resolution: two standard errors of the
// slope (the allocator grows in steps the line does not follow), and never under one page
// over the run. At least three reads over a span of responses are needed.
func GrowthPer100k(reads []RSSRead) (growthPct, resolutionPct float64, err error) {
	n := float64(len(reads))
	if len(reads) < 3 || reads[0].RSSBytes <= 0 || reads[len(reads)-1].Responses <= reads[0].Responses {
		return 0, 0, errors.New("rss-growth: fewer than three reads of the resident set over the run")
	}
	var mx, my float64
	for _, r := range reads {
		mx, my = mx+float64(r.Responses)/n, my+float64(r.RSSBytes)/n
	}
	var sxx, sxy float64
	for _, r := range reads {
		dx := float64(r.Responses) - mx
		sxx, sxy = sxx+dx*dx, sxy+dx*(float64(r.RSSBytes)-my)
	}
	slope := sxy / sxx // bytes per response
	var sse float64
	for _, r := range reads {
		e := float64(r.RSSBytes) - my - slope*(float64(r.Responses)-mx)
		sse += e * e
	}
	se := math.Sqrt(sse / (n - 2) / sxx)
	span := float64(reads[len(reads)-1].Responses - reads[0].Responses)
	per := 1e5 / float64(reads[0].RSSBytes) * 100 // bytes per response → % of the first read per 100k
	return slope * per, max(2*se, pageBytes/span) * per, nil
}
