package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

// vmNoise is testdata/vm-aa-deltas.json: the pair deltas (throughput, percent) of A/A races
// measured on the reference VM, by profile, with where and how they were measured.
type vmNoise struct {
	Machine string               `json:"machine"`
	Command map[string]string    `json:"command"`
	Deltas  map[string][]float64 `json:"deltas"`
}

// TestPairsToDecision is the table of what the sequential plans decide, and how fast, at the
// noise the reference VM shows: pair deltas drawn from its measured A/A deltas (centred on
// their median) shifted by a true effect, one throughput check per race, each profile's limit,
// alpha and looks. It checks the plans keep their promise at that noise — a true effect on the
// passing side of the limit FAILs at most alpha of the time — and prints the table
// (docs/statistics.md).
func TestPairsToDecision(t *testing.T) {
	// quiet: the VM with nothing else running; busy: the same VM with builds and test suites
	// beside the races, its throughput judged per server CPU-second.
	for _, file := range []string{"testdata/vm-aa-deltas.json", "testdata/vm-aa-deltas-busy.json"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var vm vmNoise
		if err := json.Unmarshal(b, &vm); err != nil {
			t.Fatal(err)
		}
		pairsToDecision(t, vm)
	}
}

func pairsToDecision(t *testing.T, vm vmNoise) {
	const trials = 4000
	var table strings.Builder
	table.WriteString("| profile | true delta | limit | PASS | FAIL | undecided | mean pairs |\n|---|---|---|---|---|---|---|\n")
	for _, p := range []struct {
		name         string
		limit, alpha float64
		minP, maxP   int
	}{{"quick", -5, 0.05, 6, 14}, {"release-linux", -2, 0.025, 6, 20}} { // the shipped profiles' designs: one gated check a race (p99 of a closed loop is context)
		aa := vm.Deltas[p.name]
		if len(aa) < 12 {
			t.Fatalf("%s: %d measured A/A deltas", p.name, len(aa))
		}
		med := Median(aa)
		d, err := SequentialDesign(p.minP, p.maxP, p.alpha)
		if err != nil {
			t.Fatal(err)
		}
		for _, effect := range []float64{-10, -7, -5, -2, 0, 2, 5, 10} {
			r := rand.New(rand.NewPCG(uint64(100+effect), 3))
			m := noiseModel{draw: func(r *rand.Rand, _ int) float64 { return aa[r.IntN(len(aa))] - med }}
			var pass, fail, pairs int
			for i := 0; i < trials; i++ {
				v, n, _ := stopsAt(r, d, m, effect, p.limit)
				pairs += n
				switch v {
				case session.Pass:
					pass++
				case session.Fail:
					fail++
				}
			}
			rate := func(k int) float64 { return 100 * float64(k) / trials }
			fmt.Fprintf(&table, "| %s | %+g%% | %g%% | %.1f%% | %.1f%% | %.1f%% | %.1f |\n", p.name, effect, p.limit,
				rate(pass), rate(fail), rate(trials-pass-fail), float64(pairs)/trials)
			if effect >= p.limit && float64(fail)/trials > p.alpha+4*math.Sqrt(p.alpha/trials) {
				t.Errorf("%s at %+g%%: FAILs %.2f%% of the time, over alpha %.2f%%", p.name, effect, rate(fail), p.alpha*100)
			}
		}
	}
	t.Logf("at the noise of %s (%d quick and %d release-linux A/A deltas), %d races per row:\n%s",
		vm.Machine, len(vm.Deltas["quick"]), len(vm.Deltas["release-linux"]), trials, table.String())
}
