package db

import (
	"math"
	"slices"
	"testing"
)

func mustKeys(t *testing.T, o KeyOptions) *Keys {
	t.Helper()
	k, err := NewKeys(o)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKeysAreDeterministicAndInRange(t *testing.T) {
	for _, dist := range []KeyDist{KeysUniform, KeysHot, KeysZipf} {
		o := KeyOptions{Dist: dist, Min: 1, Max: 1000, Seed: 7}
		a, b := mustKeys(t, o), mustKeys(t, o)
		o.Seed = 8
		c := mustKeys(t, o)
		differ := 0
		for i := uint64(0); i < 5000; i++ {
			x := a.At(i)
			if x < 1 || x > 1000 {
				t.Fatalf("%s: key %d outside 1..1000", dist, x)
			}
			if x != b.At(i) {
				t.Fatalf("%s: two sequences of one seed differ at %d", dist, i)
			}
			if x != c.At(i) {
				differ++
			}
		}
		if differ < 2500 {
			t.Errorf("%s: seeds 7 and 8 agree on %d of 5000 keys", dist, 5000-differ)
		}
		// Fill is At over a window.
		w := make([]int64, 10)
		a.Fill(w, 100)
		for j, x := range w {
			if x != a.At(100+uint64(j)) {
				t.Fatalf("%s: Fill differs from At", dist)
			}
		}
	}
}

func TestUniformKeysAreUniform(t *testing.T) {
	k := mustKeys(t, KeyOptions{Min: 101, Max: 200, Seed: DefaultSeed})
	const draws = 100_000
	counts := make([]float64, 100)
	for i := uint64(0); i < draws; i++ {
		counts[k.At(i)-101]++
	}
	chi2 := 0.0
	for _, c := range counts {
		chi2 += (c - draws/100) * (c - draws/100) / (draws / 100)
	}
	// 99 degrees of freedom: 148.2 is the 0.1% tail.
	if chi2 > 148.2 {
		t.Errorf("chi-square %.1f over 100 keys: not uniform", chi2)
	}
}

func TestHotKeys(t *testing.T) {
	k := mustKeys(t, KeyOptions{Dist: KeysHot, Min: 1, Max: 100, Hot: 42})
	for i := uint64(0); i < 100; i++ {
		if k.At(i) != 42 {
			t.Fatalf("hot key %d at %d, want 42", k.At(i), i)
		}
	}
	picked := map[int64]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		picked[mustKeys(t, KeyOptions{Dist: KeysHot, Min: 1, Max: 100_000, Seed: seed}).At(0)] = true
	}
	if len(picked) < 15 {
		t.Errorf("20 seeds picked only %d hot keys", len(picked))
	}
}

func TestZipfKeysAreSkewed(t *testing.T) {
	const n, draws = 1000, 200_000
	k := mustKeys(t, KeyOptions{Dist: KeysZipf, Min: 1, Max: n, Seed: DefaultSeed})
	counts := map[int64]int{}
	for i := uint64(0); i < draws; i++ {
		counts[k.At(i)]++
	}
	// The exact zipfian probabilities of ranks 1, 2 and the top 10.
	zeta := 0.0
	for i := 1; i <= n; i++ {
		zeta += math.Pow(float64(i), -DefaultZipfTheta)
	}
	top10 := 0.0
	for i := 1; i <= 10; i++ {
		top10 += math.Pow(float64(i), -DefaultZipfTheta) / zeta
	}
	freq := make([]int, 0, len(counts))
	for _, c := range counts {
		freq = append(freq, c)
	}
	slices.SortFunc(freq, func(a, b int) int { return b - a })
	check := func(what string, got, want, tol float64) {
		if math.Abs(got-want) > tol*want {
			t.Errorf("%s: %.4f, want %.4f ± %.0f%%", what, got, want, tol*100)
		}
	}
	check("share of the hottest key", float64(freq[0])/draws, 1/zeta, 0.03)
	check("share of the second", float64(freq[1])/draws, math.Pow(2, -DefaultZipfTheta)/zeta, 0.05)
	sum10 := 0
	for _, c := range freq[:10] {
		sum10 += c
	}
	check("share of the top 10", float64(sum10)/draws, top10, 0.05)
	// The hottest key is rank 0's place in the permutation, and the popular keys are
	// scattered, not the lowest ids.
	hottest := int64(1 + k.permute(0))
	if counts[hottest] != freq[0] {
		t.Errorf("key %d (rank 0) drawn %d times, the most drawn %d", hottest, counts[hottest], freq[0])
	}
	low := 0
	for key, c := range counts {
		if c >= freq[9] && key <= 10 {
			low++
		}
	}
	if low > 2 {
		t.Errorf("%d of the 10 hottest keys are among ids 1..10: not scattered", low)
	}
}

func TestZipfPermutationIsABijection(t *testing.T) {
	for _, n := range []int64{1, 2, 3, 10, 97, 1000, 4096} {
		k := mustKeys(t, KeyOptions{Dist: KeysZipf, Min: 0, Max: n - 1, Seed: 3})
		seen := make([]bool, n)
		for r := uint64(0); r < uint64(n); r++ {
			p := k.permute(r)
			if p >= uint64(n) || seen[p] {
				t.Fatalf("n=%d: rank %d maps to %d twice or outside", n, r, p)
			}
			seen[p] = true
		}
	}
}

func TestKeyOptionsRejected(t *testing.T) {
	for _, o := range []KeyOptions{
		{Min: 5, Max: 4},
		{Dist: "gauss", Min: 1, Max: 10},
		{Dist: KeysZipf, Min: 1, Max: 10, Theta: 1},
		{Dist: KeysZipf, Min: 1, Max: 10, Theta: -0.5},
		{Dist: KeysHot, Min: 1, Max: 10, Hot: 11},
	} {
		if _, err := NewKeys(o); err == nil {
			t.Errorf("NewKeys(%+v) accepted", o)
		}
	}
	if d, err := ParseKeyDist(""); err != nil || d != KeysUniform {
		t.Errorf(`ParseKeyDist("") = %q, %v`, d, err)
	}
}
