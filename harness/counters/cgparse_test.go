package counters

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixtures are real cachegrind out files of testdata/cgprog (make-fixtures.sh): 1000 and
// 2000 calls of app::Server::serve, with symbols and stripped.
const (
	fixtureN         = "testdata/cgprog/prog.N.out"
	fixture2N        = "testdata/cgprog/prog.2N.out"
	strippedFixtureN = "testdata/cgprog/stripped.N.out"
	stripped2N       = "testdata/cgprog/stripped.2N.out"
	fixtureCalls     = 1000
)

func TestParseCachegrindFunctions(t *testing.T) {
	p, err := ParseCachegrindFile(fixtureN)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.Events, " ") != "Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim" {
		t.Errorf("events %v", p.Events)
	}
	if p.Cmd != "prog1000" {
		t.Errorf("cmd %q", p.Cmd)
	}
	// summary: 354008 3 3 2000 1 1 2003 1 1 21000 1023 0 0
	want := map[string]int64{"Ir": 354008, "I1mr": 3, "ILmr": 3, "Dr": 2000, "D1mr": 1, "DLmr": 1,
		"Dw": 2003, "D1mw": 1, "DLmw": 1, "Bc": 21000, "Bcm": 1023, "Bi": 0, "Bim": 0}
	for k, v := range want {
		if p.Totals[k] != v {
			t.Errorf("%s = %d, want %d", k, p.Totals[k], v)
		}
	}
	// serve's cost is split by source file: the inlined helper's lines carry helper.h.
	serve := "_ZN3app6Server5serveEj"
	inlined := p.Costs[CostKey{File: "./helper.h", Function: serve}]
	own := p.Costs[CostKey{File: "prog.cc", Function: serve}]
	if len(inlined) == 0 || inlined[0] != 340000 || len(own) == 0 || own[0] != 6000 {
		t.Errorf("serve's Ir by file: helper.h %v, prog.cc %v; want 340000 and 6000", inlined, own)
	}
	if len(p.Costs) != 3 {
		t.Errorf("%d (file, function) pairs, want 3: %v", len(p.Costs), p.Costs)
	}
	v := CachegrindValues(p.Totals)
	check := map[string]float64{Instructions: 354008, Branches: 21000, BranchMispredicts: 1023, I1Misses: 3,
		D1Misses: 2, LLMisses: 5, DataReads: 2000, DataWrites: 2003}
	for k, w := range check {
		if v[k] != w {
			t.Errorf("%s = %v, want %v", k, v[k], w)
		}
	}
}

func TestParseCachegrindShortLinesAndErrors(t *testing.T) {
	p, err := ParseCachegrind(strings.NewReader("events: Ir Bc Bcm\nfn=f\n1 10 2\nsummary: 10 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Totals["Ir"] != 10 || p.Totals["Bc"] != 2 || p.Totals["Bcm"] != 0 {
		t.Errorf("%v", p.Totals)
	}
	// Without --branch-sim there is no branch figure rather than a zero.
	if _, ok := CachegrindValues(map[string]int64{"Ir": 5})[Branches]; ok {
		t.Error("branches derived without Bc/Bi")
	}
	for _, c := range []struct{ in, want string }{
		{"", "no events: line"},
		{"summary: 1 2\n", "before the events: line"},
		{"events: Ir\nfn=f\n1 1\nsummary: 1 2\n", "2 numbers for 1 events"},
		{"events: Ir\nfn=f\n1 1\nsummary: x\n", `bad count "x"`},
		{"events: Ir\n1 5\nsummary: 5\n", "outside any fn= record"},
		{"events: Ir\nsummary: 5\n", "no fn= cost records"},
		{"events: Ir\nfn=f\n1 5\n", "no summary: line"},
		{"events: Ir\nfn=f\n1 5\nsummary: 7\n", "add up to 5 Ir but the summary says 7"},
	} {
		_, err := ParseCachegrind(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

// TestParseCachegrindDamagedFiles: an out file whose fn= section is missing or cut short is an
// error that names the file, never an empty or partial table.
func TestParseCachegrindDamagedFiles(t *testing.T) {
	whole, err := os.ReadFile(fixture2N)
	if err != nil {
		t.Fatal(err)
	}
	text := string(whole)
	dir := t.TempDir()
	cases := map[string]struct{ content, want string }{
		// cut in the middle of the cost lines: no summary
		"truncated": {text[:strings.Index(text, "fn=(below main)")+20], "truncated"},
		// the per-function records removed, the summary kept
		"no-fn": {dropLines(text, func(l string) bool { return strings.HasPrefix(l, "fn=") || (l != "" && l[0] >= '0' && l[0] <= '9') }), "no fn= cost records"},
		// one function's records removed: the rest no longer add up to the summary
		"missing-function": {strings.Replace(text, "fl=./helper.h\nfn=_ZN3app6Server5serveEj\n5 680000 1 1 0 0 0 0 0 0 40000 2020 0 0\n", "", 1), "add up to"},
	}
	for name, c := range cases {
		if c.content == text {
			t.Fatalf("%s: the fixture did not change (regenerated?)", name)
		}
		path := filepath.Join(dir, name+".out")
		if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ParseCachegrindFile(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %s and saying %q", name, err, path, c.want)
		}
	}
}

func dropLines(s string, drop func(string) bool) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !drop(l) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
