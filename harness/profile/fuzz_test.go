package profile

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Every bad profile in testdata/bad is refused with a message naming what is wrong: one file a
// class of bad input (the name says which), each one a user wrote or could.
func TestBadProfilesRefused(t *testing.T) {
	say := map[string]string{
		"null.json":                     "got null",
		"list.json":                     "got a list",
		"two-objects.json":              "a second JSON value",
		"negative-max-errors.json":      "thresholds max_errors=-1: must not be negative",
		"wrong-type.json":               `field "pairs": want int`,
		"unknown-schema.json":           `unknown field "schema_version"`,
		"percent-out-of-range.json":     "thresholds counter_delta.instructions=-200: want -100 to 1000000",
		"pipelining-out-of-bounds.json": "pipelining 1000000000 is out of range",
		"duration-overflow.json":        "past the longest Go can hold",
		"rate-out-of-bounds.json":       "rate 1e+300 requests/s is out of range",
		"max-pairs-out-of-bounds.json":  "max_pairs 100000000 is out of range",
		"null-field.json":               `field "thresholds.counter_max_growth_pct": null`,
	}
	files, _ := filepath.Glob("testdata/bad/*.json")
	if len(files) != len(say) {
		t.Fatalf("%d files in testdata/bad, %d expected messages", len(files), len(say))
	}
	for _, f := range files {
		_, err := Load(f, "")
		if err == nil || !strings.Contains(err.Error(), say[filepath.Base(f)]) || !strings.Contains(err.Error(), f) {
			t.Errorf("%s: %v, want an error naming the file and saying %q", f, err, say[filepath.Base(f)])
		}
	}
}

// FuzzParse holds the profile decoder to its properties: it never panics; what it accepts
// passes Check and holds finite numbers; and it reads back the same from its own encoding.
// Seeds: the shipped profiles and the bad ones.
func FuzzParse(f *testing.F) {
	for _, glob := range []string{shipped + "/*.json", "testdata/bad/*.json", "testdata/fuzz/seeds/*.json"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			return
		}
		if err := p.Check(); err != nil {
			t.Fatalf("accepted a profile Check refuses: %v", err)
		}
		for name, v := range map[string]float64{"confidence": p.Confidence, "rate": p.Rate, "rate_fraction": p.RateFraction,
			"steal_limit_pct": p.StealLimitPct, "min_median_delta_pct": p.Thresholds.MinMedianDeltaPct} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("accepted %s = %v", name, v)
			}
		}
		enc, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("accepted a profile that does not encode: %v", err)
		}
		again, err := Parse(enc)
		if err != nil {
			t.Fatalf("its own encoding is refused: %v\n%s", err, enc)
		}
		if !reflect.DeepEqual(p, again) {
			t.Fatalf("round trip changed it:\n%+v\n%+v\n%s", p, again, enc)
		}
	})
}
