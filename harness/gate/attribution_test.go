package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

// sideRows is one side's per-function breakdown (resolution 2) from name, count pairs.
func sideRows(rows ...any) *session.Breakdowns {
	b := &session.Breakdown{Resolution: 2, TotalResolution: 5}
	for i := 0; i < len(rows); i += 2 {
		b.Rows = append(b.Rows, session.BreakdownRow{Name: rows[i].(string), Instructions: rows[i+1].(float64)})
	}
	files := &session.Breakdown{Resolution: 2, TotalResolution: 5, Rows: []session.BreakdownRow{{Name: "binding/response.go", Instructions: b.Rows[0].Instructions}}}
	return &session.Breakdowns{Functions: b, Files: files}
}

// The instruction check against B carries its table, the reasons name the first functions with
// their shares, and the headline of a FAIL names the first.
func TestAttributionAgainstB(t *testing.T) {
	s := withCounts(2514, 2214)
	s.Breakdowns = map[string]*session.Breakdowns{
		"a": sideRows("br::process(br_loop*, br::Conn*)", 986.0, "main.ping", 344.0, "br::apply_batch(br_loop*, br_batch*)", 300.0),
		"b": sideRows("br::process(br_loop*, br::Conn*)", 686.0, "main.ping", 344.0, "br::apply_batch(br_loop*, br_batch*)", 237.0),
	}
	Apply(s, nil)
	if len(s.Attribution) != 1 {
		t.Fatalf("attribution %+v", s.Attribution)
	}
	at := s.Attribution[0]
	if at.Check != "instructions" || at.Delta != 300 || at.Functions == nil || at.Files == nil || len(at.Functions.Rows) != 2 {
		t.Fatalf("%+v", at)
	}
	if r := at.Functions.Rows[0]; r.Name != "br::process(br_loop*, br::Conn*)" || r.Delta != 300 || *r.SharePct != 100 {
		t.Errorf("first row %+v", r)
	}
	if !has(s.Reasons, "binding − uws by function, +300.0 instructions per response: br::process(br_loop*, br::Conn*) +300.0 (100.0%), br::apply_batch(br_loop*, br_batch*) +63.0 (21.0%)") {
		t.Errorf("reasons %q", s.Reasons)
	}
	if !strings.Contains(s.Headline, "(instructions; most: br::process +300.0 (100.0%))") {
		t.Errorf("headline %q", s.Headline)
	}
	// A session counted before per-function counts says so instead of a table.
	s.Breakdowns = nil
	Apply(s, nil)
	if s.Attribution[0].Unavailable == "" || !has(s.Reasons, "no table: this session recorded no per-function counts") {
		t.Errorf("no breakdowns: %+v %q", s.Attribution, s.Reasons)
	}
	// No deterministic counts, no attribution.
	s.CountersMode = "perf"
	if Apply(s, nil); len(s.Attribution) != 0 {
		t.Errorf("perf mode: %+v", s.Attribution)
	}
}

// A baseline keeps the candidate's per-function counts (schema 2), and a candidate with a new
// out-of-line function against it names that function first.
func TestAttributionAgainstBaseline(t *testing.T) {
	old := withCounts(2173, 2173)
	old.Breakdowns = map[string]*session.Breakdowns{"a": sideRows("br::process", 686.0, "main.ping", 344.0)}
	b := baselineOf(old)
	path := filepath.Join(t.TempDir(), "ci.json")
	if err := session.WriteJSON(path, b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadBaseline(path)
	if err != nil || back.SchemaVersion != session.BaselineSchemaVersion || back.Entries[0].Breakdowns == nil || len(back.Entries[0].Breakdowns.Functions.Rows) != 2 {
		t.Fatalf("%v %+v", err, back)
	}
	s := withCounts(2313, 2173)
	s.Breakdowns = map[string]*session.Breakdowns{"a": sideRows("br::process", 687.0, "main.ping", 344.0, "main.regress", 138.0)}
	m, err := MatchBaseline(s, back, path)
	if err != nil {
		t.Fatal(err)
	}
	Apply(s, m)
	at := s.Attribution[len(s.Attribution)-1]
	if at.Check != "baseline:instructions" || at.B != "baseline "+path || len(at.Functions.Rows) != 1 {
		t.Fatalf("%+v", at)
	}
	if r := at.Functions.Rows[0]; r.Name != "main.regress" || r.Only != "a" || *r.SharePct < 90 {
		t.Errorf("first row %+v", r)
	}
}

// TestOldBaseline: a schema_version 1 baseline (the committed one before per-function counts) is
// still read and gated, with notes that it has no per-function counts and no CPU record.
func TestOldBaseline(t *testing.T) {
	b, err := ReadBaseline("testdata/baseline-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	if b.SchemaVersion != 1 || b.Entries[0].Breakdowns != nil {
		t.Fatalf("%+v", b)
	}
	s := withCounts(2173.1*1.05, 2173)
	s.Scenario, s.Connections, s.Pipelining = "ping", 100, 10
	s.SideA.Build = map[string]string{"kind": "release", "profile_sha256": b.Build["profile_sha256"]}
	s.Breakdowns = map[string]*session.Breakdowns{"a": sideRows("br::process", 686.0), "b": sideRows("br::process", 686.0)}
	m, err := MatchBaseline(s, b, "testdata/baseline-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	Apply(s, m)
	if c := check(s.Checks, "baseline:instructions"); c == nil || c.Verdict != session.Fail {
		t.Errorf("not gated: %+v", c)
	}
	if !has(s.Reasons, "the baseline testdata/baseline-v1.json (schema_version 1) has no per-function counts") || !has(s.Reasons, "baseline CPU unknown") {
		t.Errorf("reasons %q", s.Reasons)
	}
	// A future layout is refused, naming the versions this bindrace reads.
	dir := t.TempDir()
	raw, _ := os.ReadFile("testdata/baseline-v1.json")
	future := filepath.Join(dir, "v9.json")
	os.WriteFile(future, []byte(strings.Replace(string(raw), `"schema_version": 1`, `"schema_version": 9`, 1)), 0o644)
	if _, err := ReadBaseline(future); err == nil || !strings.Contains(err.Error(), "reads 1 to 3") {
		t.Errorf("schema 9: %v", err)
	}
}
