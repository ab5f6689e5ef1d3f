package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// realSessions are saved sessions as races wrote them on this project's machines (summaries
// and indexes only; compacted): a race set with a FAILed counts-only race and a race of no
// pairs (rlpr-1), an A/A PASS (qaa-2), a race against uws INCONCLUSIVE on too few pairs with
// cachegrind counts and system calls (ci-vsuws-2), an open-loop FAIL on p99 (stallR-1), and a
// schema 2 session (schema2).
func realSessions(t testing.TB) []string {
	dirs, _ := filepath.Glob("testdata/sessions/*")
	if len(dirs) < 4 {
		t.Fatalf("testdata/sessions: %d sessions", len(dirs))
	}
	return append(dirs, "testdata/schema2")
}

// TestRegateRealSessions: gate gives every real saved session the verdict of the race that
// wrote it (the index's, for a race set).
func TestRegateRealSessions(t *testing.T) {
	for _, dir := range realSessions(t) {
		stored := storedVerdict(t, dir)
		_, v, err := Regate(dir, nil, "", false)
		if err != nil || v != stored {
			t.Errorf("%s: gate says %s (%v), the race said %s", dir, v, err, stored)
		}
	}
}

func storedVerdict(t *testing.T, dir string) string {
	if ix, err := session.LoadIndex(dir); err == nil {
		return ix.Verdict
	}
	s, err := session.LoadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s.Verdict
}

// FuzzRegate: a summary its decoder accepts is gated without a panic, to a verdict the gate
// gives and a headline.
func FuzzRegate(f *testing.F) {
	for _, dir := range realSessions(f) {
		files, _ := filepath.Glob(filepath.Join(dir, "*", session.SummaryFile))
		files = append(files, filepath.Join(dir, session.SummaryFile))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := session.DecodeSummary("fuzz", b)
		if err != nil || stats.CheckDeltas("fuzz", s) != nil {
			return
		}
		stats.Redesign(s)
		Apply(s, nil)
		if ExitCode(s.Verdict) == 2 && s.Verdict != session.Incomplete || s.Headline == "" {
			t.Fatalf("verdict %q, headline %q", s.Verdict, s.Headline)
		}
	})
}

// TestRegateRefusesAnEditedDelta: a real summary whose first pair's delta is not its runs' is
// refused, naming the pair (its decoder ties wins and paired figures to the deltas; the deltas
// are tied to the runs here).
func TestRegateRefusesAnEditedDelta(t *testing.T) {
	s, err := session.LoadSummary("testdata/sessions/qaa-2")
	if err != nil {
		t.Fatal(err)
	}
	s.Pairs[0].DeltaPct += 0.5
	err = stats.CheckDeltas("summary.json", s)
	if err == nil || !strings.HasPrefix(err.Error(), "summary.json: pairs[0].delta_pct: ") || !strings.Contains(err.Error(), "but its runs give") {
		t.Errorf("%v", err)
	}
}
