package session

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The files in testdata/good are real saved sessions and baselines (a race set's sub-race
// with no pairs, an A/A race of 6 pairs with its first two raw runs, an index, the committed
// ci baseline and a version 1 one, and a matrix, a sweep and a scale of fasthttp, nethttp and
// binding, short runs saved at 1b84337); testdata/bad holds the issue's bad files as they were made
// from a real session (runs zeroed, pairs emptied, schema 99, {}, a set of no races).

// decoders by the suffix of a testdata file's name.
var decoders = map[string]func(string, []byte) (any, error){
	".summary.json":  decodeAnySummary,
	".index.json":    func(p string, b []byte) (any, error) { return DecodeIndex(p, b) },
	".raw.json":      func(p string, b []byte) (any, error) { return DecodeRaw(p, b) },
	".baseline.json": func(p string, b []byte) (any, error) { return DecodeBaseline(p, b) },
}

// decodeAnySummary decodes a summary.json by its kind, as report reads one; a file without a
// kind it knows goes to the race's decoder, whose refusals the bad files' tests expect.
func decodeAnySummary(p string, b []byte) (any, error) {
	kind, _ := KindOf(p, b)
	switch kind {
	case "matrix":
		return DecodeMatrix(p, b)
	case "sweep":
		return DecodeSweep(p, b)
	case "scale":
		return DecodeScale(p, b)
	}
	return DecodeSummary(p, b)
}

func decoderOf(t *testing.T, name string) func(string, []byte) (any, error) {
	for suffix, d := range decoders {
		if strings.HasSuffix(name, suffix) {
			return d
		}
	}
	t.Fatalf("no decoder for %s", name)
	return nil
}

func readTestdata(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeRealFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/good/*.json")
	if len(files) < 6 {
		t.Fatalf("testdata/good: %d files", len(files))
	}
	for _, f := range files {
		if _, err := decoderOf(t, f)(f, readTestdata(t, strings.TrimPrefix(f, "testdata/"))); err != nil {
			t.Errorf("a real file refused: %v", err)
		}
	}
}

// TestDecodeIssueExamples: the saved sessions of the issue are refused naming the file and
// the field.
func TestDecodeIssueExamples(t *testing.T) {
	for _, c := range []struct{ file, field, says string }{
		{"bad/zero-rps.summary.json", "wins", "6, but its pairs say 0: 0 of 6 pairs are valid"},
		{"bad/no-pairs.summary.json", "wins", "6, but its pairs say 0: 0 of 0 pairs are valid"},
		{"bad/schema99.summary.json", "schema_version", "99 is unknown; this bindrace reads 2 to 3"},
		{"bad/empty.summary.json", "kind", "missing (want race)"},
		{"bad/empty-sessions.index.json", "sessions", "empty"},
	} {
		_, err := decoderOf(t, c.file)(c.file, readTestdata(t, c.file))
		wantRefusal(t, c.file, err, c.field, c.says)
	}
}

func wantRefusal(t *testing.T, name string, err error, field, says string) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) || de.Field != field || !strings.Contains(de.Problem, says) || !strings.HasPrefix(err.Error(), de.Path+": ") {
		t.Errorf("%s: %v; want a refusal of %s saying %q", name, err, field, says)
	}
}

// mutated is a real testdata file with edit applied to its JSON.
func mutated(t *testing.T, name string, edit func(m map[string]any)) []byte {
	var m map[string]any
	if err := json.Unmarshal(readTestdata(t, name), &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pair(m map[string]any, i int) map[string]any { return m["pairs"].([]any)[i].(map[string]any) }

// TestDecodeSummaryClasses: each class of bad summary, made from a real one.
func TestDecodeSummaryClasses(t *testing.T) {
	const real = "good/qaa.summary.json"
	for _, c := range []struct {
		name, field, says string
		edit              func(m map[string]any)
	}{
		{"a wrong type", "wins", "want int, got a JSON string", func(m map[string]any) { m["wins"] = "all" }},
		{"a negative count", "pairs.a.errors", "is negative", func(m map[string]any) { pair(m, 0)["a"].(map[string]any)["errors"] = -1 }},
		{"a number out of range", "pairs[1].b.p99_ms", "out of range", func(m map[string]any) { pair(m, 1)["b"].(map[string]any)["p99_ms"] = 1e300 }},
		{"a negative figure", "pairs[2].a.rps_per_cpu_second", "negative", func(m map[string]any) { pair(m, 2)["a"].(map[string]any)["rps_per_cpu_second"] = -5.0 }},
		{"an unknown verdict", "verdict", `"MAYBE" is unknown`, func(m map[string]any) { m["verdict"] = "MAYBE" }},
		{"an unknown order", "pairs[0].order", `"AA" is unknown`, func(m map[string]any) { pair(m, 0)["order"] = "AA" }},
		{"more wins than pairs won", "wins", "7, but its pairs say 3", func(m map[string]any) { m["wins"] = 7 }},
		{"a paired figure on more pairs than valid", "paired.p99_ms.n", "9 pairs, but only 6", func(m map[string]any) {
			m["paired"].(map[string]any)["p99_ms"].(map[string]any)["n"] = 9
		}},
		{"a throughput range its pairs do not have", "paired.rps", "but its valid pairs' run from", func(m map[string]any) {
			m["paired"].(map[string]any)["rps"].(map[string]any)["max_pct"] = 50.0
		}},
		{"a headline median that is not the pairs'", "median_delta_pct", "but paired.rps.median_pct", func(m map[string]any) { m["median_delta_pct"] = 12.5 }},
		{"a design of mismatched looks", "design.looks", "want one of each per look", func(m map[string]any) { m["design"].(map[string]any)["bounds"] = []int{} }},
		{"a stop on other pairs", "stop.pairs", "but the summary holds 6 pairs", func(m map[string]any) { m["stop"].(map[string]any)["pairs"] = 14 }},
	} {
		_, err := DecodeSummary(c.name, mutated(t, real, c.edit))
		if c.field == "pairs.a.errors" {
			c.field = "pairs[0].a.errors"
		}
		wantRefusal(t, c.name, err, c.field, c.says)
	}
}

// TestDecodeOneObject: null, a list, a second object after the first, and a matrix read as a
// race are refused.
func TestDecodeOneObject(t *testing.T) {
	real := readTestdata(t, "good/qaa.summary.json")
	for name, b := range map[string][]byte{"null": []byte("null"), "a list": []byte("[1]"), "two objects": append(append([]byte{}, real...), real...)} {
		if _, err := DecodeSummary(name, b); err == nil || !strings.HasPrefix(err.Error(), name+": ") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := DecodeSummary("m.json", []byte(`{"kind":"matrix"}`)); err == nil || !strings.Contains(err.Error(), "m.json is a matrix session, not a race") {
		t.Errorf("a matrix: %v", err)
	}
	if k, err := KindOf("s.json", real); k != "race" || err != nil {
		t.Errorf("kind %q %v", k, err)
	}
}

func TestDecodeIndexClasses(t *testing.T) {
	const real = "good/rlaa.index.json"
	entry := func(m map[string]any, i int) map[string]any { return m["sessions"].([]any)[i].(map[string]any) }
	for _, c := range []struct {
		name, field, says string
		edit              func(m map[string]any)
	}{
		{"a directory outside the set", "sessions[1].dir", `"../../etc" is not a sub-directory`, func(m map[string]any) { entry(m, 1)["dir"] = "../../etc" }},
		{"a directory named twice", "sessions[1].dir", "named once", func(m map[string]any) { entry(m, 1)["dir"] = entry(m, 0)["dir"] }},
		{"the set itself", "sessions[0].dir", `"." is not`, func(m map[string]any) { entry(m, 0)["dir"] = "." }},
		{"another kind", "kind", `"race" is unknown`, func(m map[string]any) { m["kind"] = "race" }},
		{"an entry of no verdict", "sessions[0].verdict", "missing", func(m map[string]any) { delete(entry(m, 0), "verdict") }},
		{"a pooled check of no verdict", "pooled.verdict", "missing", func(m map[string]any) { m["pooled"] = map[string]any{"metric": "pooled:rps"} }},
		{"a pooled check undecidable by name", "pooled.verdict", `"MAYBE" is unknown`, func(m map[string]any) { m["pooled"] = map[string]any{"verdict": "MAYBE"} }},
	} {
		_, err := DecodeIndex(c.name, mutated(t, real, c.edit))
		wantRefusal(t, c.name, err, c.field, c.says)
	}
}

func TestDecodeBaselineClasses(t *testing.T) {
	const real = "good/ci.baseline.json"
	entry := func(m map[string]any) map[string]any { return m["entries"].([]any)[0].(map[string]any) }
	for _, c := range []struct {
		name, field, says string
		edit              func(m map[string]any)
	}{
		{"schema 99", "schema_version", "99 is unknown; this bindrace reads 1 to 3", func(m map[string]any) { m["schema_version"] = 99 }},
		{"no schema", "schema_version", "missing", func(m map[string]any) { delete(m, "schema_version") }},
		{"no entries", "entries", "empty", func(m map[string]any) { m["entries"] = []any{} }},
		{"no target", "target", "missing", func(m map[string]any) { m["target"] = "" }},
		{"no instructions", "entries[0].counters.instructions", "0: a baseline entry holds", func(m map[string]any) {
			delete(entry(m)["counters"].(map[string]any), "instructions")
		}},
		{"a negative connection count", "entries[0].connections", "negative", func(m map[string]any) { entry(m)["connections"] = -100 }},
	} {
		_, err := DecodeBaseline(c.name, mutated(t, real, c.edit))
		wantRefusal(t, c.name, err, c.field, c.says)
	}
	if _, err := DecodeBaseline("s.json", readTestdata(t, "good/qaa.summary.json")); err == nil || !strings.Contains(err.Error(), `s.json is not a baseline (kind "race"`) {
		t.Errorf("a summary as a baseline: %v", err)
	}
}

func TestDecodeRawClasses(t *testing.T) {
	run := func(m map[string]any) map[string]any { return m["runs"].([]any)[1].(map[string]any) }
	_, err := DecodeRaw("raw", mutated(t, "good/qaa.raw.json", func(m map[string]any) { run(m)["windows"] = []any{1000.0, -1.0} }))
	wantRefusal(t, "a negative window", err, "runs[1].windows[1]", "negative")
	_, err = DecodeRaw("raw", mutated(t, "good/qaa.raw.json", func(m map[string]any) { run(m)["responses"] = 1.5 }))
	wantRefusal(t, "a fractional count", err, "runs.responses", "want int64, got a JSON number 1.5")
	_, err = DecodeRaw("raw", mutated(t, "good/qaa.raw.json", func(m map[string]any) {
		run(m)["per_window"] = []any{map[string]any{"rps": 1000.0, "server_cpu_pct": 99.0, "steal_pct": 0.0, "thread_elu_pct": map[string]any{"0": 97.5, "1": 130.0}}}
	}))
	wantRefusal(t, "an ELU over 100%", err, "runs[1].per_window[0].thread_elu_pct.1", "not a share")
	// Files written before threads' ELU was kept, and with it, decode.
	good := mutated(t, "good/qaa.raw.json", func(m map[string]any) {
		run(m)["per_window"] = []any{map[string]any{"rps": 1000.0, "server_cpu_pct": 99.0, "steal_pct": 0.0, "thread_elu_pct": map[string]any{"0": 97.5, "1": 88.0}}}
		run(m)["readings"] = map[string]any{"node_elu_busiest_pct": map[string]any{"value": 0.0, "label": "ELU", "not_read": "not a node target", "not_applicable": true}}
	})
	if _, err := DecodeRaw("raw", good); err != nil {
		t.Errorf("threads' ELU and an unread reading refused: %v", err)
	}
}
