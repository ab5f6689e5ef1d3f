package kinds

import (
	"reflect"
	"slices"
	"testing"
)

func TestPairOrder(t *testing.T) {
	var got []string
	for i := range 5 {
		got = append(got, PairOrder(i))
	}
	want := []string{"AB", "BA", "AB", "BA", "AB"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("PairOrder(0..4) = %v, want %v", got, want)
	}
}

// TestCountOrder: the counts step alternates which side it counts first, so neither side
// always counts on the machine the other's server just left.
func TestCountOrder(t *testing.T) {
	var got []string
	for rep := 1; rep <= 3; rep++ {
		for _, sd := range countOrder(rep, "cand", "base") {
			got = append(got, sd.key+"="+sd.name)
		}
	}
	want := []string{"a=cand", "b=base", "b=base", "a=cand", "a=cand", "b=base"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("count order over 3 repetitions = %v, want %v", got, want)
	}
}

func TestMatrixOrdersReproducible(t *testing.T) {
	targets := []string{"binding", "uws", "fasthttp", "nethttp"}
	a := MatrixOrders(targets, 6, 42)
	b := MatrixOrders(targets, 6, 42)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, different orders:\n%v\n%v", a, b)
	}
	if len(a) != 6 {
		t.Fatalf("rounds: %d", len(a))
	}
	for _, round := range a {
		s := slices.Clone(round)
		slices.Sort(s)
		w := slices.Clone(targets)
		slices.Sort(w)
		if !reflect.DeepEqual(s, w) {
			t.Fatalf("round %v is not a permutation of %v", round, targets)
		}
	}
	// Another seed gives another sequence (with 4! orders over 6 rounds a clash is negligible).
	if c := MatrixOrders(targets, 6, 43); reflect.DeepEqual(a, c) {
		t.Errorf("seeds 42 and 43 gave the same orders")
	}
	// The rounds are not all the same order.
	same := true
	for _, r := range a[1:] {
		if !reflect.DeepEqual(r, a[0]) {
			same = false
		}
	}
	if same {
		t.Errorf("every round in the same order: %v", a)
	}
	// The input is not modified.
	if !reflect.DeepEqual(targets, []string{"binding", "uws", "fasthttp", "nethttp"}) {
		t.Errorf("input modified: %v", targets)
	}
}
