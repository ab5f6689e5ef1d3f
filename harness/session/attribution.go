package session

// MaxBreakdownRows is how many rows of one view a summary or a baseline entry keeps per side:
// the rows above the resolution, most instructions first. Binding's ping resolves about 70
// functions and 50 source files, so the cap only bites on a server with many resolved rows; the
// rows past it are counted in UnderSum with the rows under the resolution.
const MaxBreakdownRows = 300

// Breakdown is one side's cachegrind instructions per response by function (or by source file),
// the per-row median of its repetitions: what an attribution subtracts. Only rows whose median
// reaches the resolution are listed; the rest are counted, never dropped.
type Breakdown struct {
	Rows []BreakdownRow `json:"rows"` // at or above Resolution, most first, at most MaxBreakdownRows
	// Resolution is the smallest instructions per response of one row told from noise (the widest
	// of the repetitions'); TotalResolution is the same for a sum over many rows.
	Resolution      float64 `json:"resolution"`
	TotalResolution float64 `json:"total_resolution"`
	UnderRows       int     `json:"under_rows"` // rows not listed: under the resolution, or past the cap
	UnderSum        float64 `json:"under_sum"`  // their instructions per response, raw (noise and all)
	// Notes say what the names cannot: a stripped executable (every function in one no-symbol
	// row), the share of code without symbols.
	Notes []string `json:"notes,omitempty"`
}

// BreakdownRow is one function or source file.
type BreakdownRow struct {
	Name         string  `json:"name"`
	Instructions float64 `json:"instructions"` // per response
	NoSymbol     bool    `json:"no_symbol,omitempty"`
}

// Breakdowns are one side's two views.
type Breakdowns struct {
	Functions *Breakdown `json:"functions"`
	Files     *Breakdown `json:"files,omitempty"`
}

// Attribution explains one instruction check: the difference of per-response instructions
// between its two sides (A − B in the race, or the candidate − the baseline) by function and by
// source file, ranked by the size of each row's delta.
type Attribution struct {
	Check    string  `json:"check"`   // the check's metric: "instructions" or "baseline:instructions"
	Counter  string  `json:"counter"` // "instructions"
	A        string  `json:"a"`       // what each side is: a target, or "baseline <path>"
	B        string  `json:"b"`
	TotalA   float64 `json:"total_a"` // the check's counts, per response
	TotalB   float64 `json:"total_b"`
	Delta    float64 `json:"delta"`     // TotalA − TotalB
	DeltaPct float64 `json:"delta_pct"` // Delta against TotalB, the check's delta
	// Unavailable says why there is no table (a baseline written before per-function counts, a
	// session counted before them); the totals above still stand.
	Unavailable string           `json:"unavailable,omitempty"`
	Functions   *AttributionView `json:"functions,omitempty"`
	Files       *AttributionView `json:"files,omitempty"`
}

// AttributionView is the ranked table of one view.
type AttributionView struct {
	// Resolution is the smallest delta of one row told from noise: the two sides' row
	// resolutions added (each side's value may be off by its own).
	Resolution float64          `json:"resolution"`
	Rows       []AttributionRow `json:"rows"` // the largest deltas above the resolution, at most 15
	Rest       AttributionRest  `json:"rest"`
	// OnlyA and OnlyB are the rows listed on one side only (above its resolution there; the
	// other side has no such row, or one under its resolution) that are not in Rows.
	OnlyA []AttributionRow `json:"only_a,omitempty"`
	OnlyB []AttributionRow `json:"only_b,omitempty"`
	Notes []string         `json:"notes,omitempty"`
}

// AttributionRow is one row's delta.
type AttributionRow struct {
	Name string   `json:"name"`
	A    *float64 `json:"a"` // null: no such row, or under the side's resolution
	B    *float64 `json:"b"`
	// Delta is A − B per response (a side without the row counts 0); SharePct its share of the
	// total delta (null when the total delta is 0); PointsPct its
	// part of the check's DeltaPct, in percentage points.
	Delta     float64  `json:"delta"`
	SharePct  *float64 `json:"share_pct"`
	PointsPct float64  `json:"points_pct"`
	Only      string   `json:"only,omitempty"` // "a" or "b": listed on that side only
	NoSymbol  bool     `json:"no_symbol,omitempty"`
}

// AttributionRest is "everything else": the total delta less the ranked rows, so the table adds
// up to the check's delta exactly.
type AttributionRest struct {
	Delta    float64  `json:"delta"`
	SharePct *float64 `json:"share_pct"`
	Rows     int      `json:"rows"` // rows past the top whose deltas reach the resolution
	// UnderRows rows of deltas each under the resolution, and what they and the medians' rounding
	// add up to (null when that sum is itself under the resolution of a sum): never printed as
	// a row of its own, so noise shows as no number.
	UnderRows  int      `json:"under_rows"`
	UnderDelta *float64 `json:"under_delta"`
}
