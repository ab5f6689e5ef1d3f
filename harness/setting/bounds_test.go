package setting

import (
	"math"
	"strings"
	"testing"
)

// Every row of the table is a bound a value can meet: a setting named once, a range, a rule;
// NaN and the values just past either end are refused naming the setting.
func TestBounds(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range Bounds() {
		if seen[b.Setting] || b.Rule == "" || !(b.Min <= b.Max) {
			t.Errorf("%+v: a setting twice, no rule, or an empty range", b)
		}
		seen[b.Setting] = true
		for _, v := range []float64{math.NaN(), b.Max * 2, b.Min - 1} {
			if err := b.Check(v); err == nil || !strings.Contains(err.Error(), b.Setting+" ") {
				t.Errorf("%s: %v: %v", b.Setting, v, err)
			}
		}
		if err := b.Check(b.Max); err != nil {
			t.Errorf("%s: its own maximum: %v", b.Setting, err)
		}
	}
	for _, name := range []string{"connections", "pipelining", "rate", "duration", "pairs", "max_pairs", "windows", "body", "timeout"} {
		if !seen[name] {
			t.Errorf("no bound for %s", name)
		}
	}
	// The examples: a rate no clock can space, and pipelining past the machine's memory.
	if err := Check("rate", 1e300); err == nil || !strings.Contains(err.Error(), "rate 1e+300 requests/s is out of range") {
		t.Errorf("rate 1e300: %v", err)
	}
	if err := Check("pipelining", 1e9); err == nil || !strings.Contains(err.Error(), "of memory") {
		t.Errorf("pipelining 1e9: %v", err)
	}
	if err := InFlight(10000, 100000, 64); err == nil || !strings.Contains(err.Error(), "{connections}") && !strings.Contains(err.Error(), "connections 10000") {
		t.Errorf("10,000 × 100,000 in flight: %v", err)
	}
	if err := InFlight(100, 10, 64); err != nil {
		t.Errorf("a release profile's 100 × 10: %v", err)
	}
}
