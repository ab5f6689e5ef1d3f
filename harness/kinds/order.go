package kinds

import (
	"math/rand/v2"
	"slices"
	"time"
)

// PairOrder is the order of pair i: AB when i is even, BA when odd, so each side goes first
// equally often and a drift over the session cancels in the median delta.
func PairOrder(i int) string {
	if i%2 == 0 {
		return "AB"
	}
	return "BA"
}

// MatrixOrders shuffles the targets once per round with a PCG generator seeded by seed: the
// same seed gives the same orders, so a session can be reproduced exactly.
func MatrixOrders(targets []string, rounds int, seed int64) [][]string {
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0x9e3779b97f4a7c15))
	out := make([][]string, rounds)
	for r := range out {
		o := slices.Clone(targets)
		rng.Shuffle(len(o), func(i, j int) { o[i], o[j] = o[j], o[i] })
		out[r] = o
	}
	return out
}

// NewSeed is a time-based seed for a session whose seed was not given (it is recorded).
func NewSeed() int64 {
	s := time.Now().UnixNano() % 1_000_000_000
	if s < 0 {
		s = -s
	}
	return s
}
