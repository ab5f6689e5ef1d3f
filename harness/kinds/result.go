package kinds

import "github.com/bindrace/bindrace/harness/session"

// Result is what every session kind returns: the session directory it wrote ("" for a kind
// that saves nothing: counters), its record (summary.json's, or the kind's own file's), and a
// session file that could not be written. The CLI prints and writes every kind's the same way.
type Result[S any] struct {
	Dir      string
	Summary  *S
	WriteErr error
}

// RaceSet is a race's record: one summary per sub-race (several for a profile with several
// scenarios or extra races), the index of a set, and the worst of their verdicts.
type RaceSet struct {
	Summaries []*session.Summary
	Index     *session.Index // a race set only
	Verdict   string
}
