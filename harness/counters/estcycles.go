package counters

// EstimatedCycles is a cost model over cachegrind's simulated cache events, not a count: no
// PMU is read, and it is never to be mixed with perf's "cycles". Every output that shows it
// carries EstimatedLabel.
const EstimatedCycles = "estimated-cycles"

// EstimatedLabel and EstimatedFormula travel with every estimated-cycles figure.
const (
	EstimatedLabel   = "estimated (simulated)"
	EstimatedFormula = "L1 hits + 5·LL hits + 35·RAM hits over cachegrind's simulated caches (the model iai-callgrind and its predecessor iai use, after Itamar Turner-Trauring)"
)

// estimateCycles applies the model to one set of cachegrind events:
//
//	accesses = Ir + Dr + Dw                 (every instruction fetch and data access)
//	L1 misses = I1mr + D1mr + D1mw
//	RAM hits  = ILmr + DLmr + DLmw           (missed the last level too)
//	L1 hits   = accesses − L1 misses
//	LL hits   = L1 misses − RAM hits
//	estimate  = L1 hits + 5·LL hits + 35·RAM hits
//
// ok is false when the run did not simulate the caches (no --cache-sim=yes).
func estimateCycles(ev map[string]int64) (estimate int64, ok bool) {
	need := func(names ...string) (s int64, ok bool) {
		for _, n := range names {
			v, has := ev[n]
			if !has {
				return 0, false
			}
			s += v
		}
		return s, true
	}
	accesses, ok1 := need("Ir", "Dr", "Dw")
	l1Misses, ok2 := need("I1mr", "D1mr", "D1mw")
	ram, ok3 := need("ILmr", "DLmr", "DLmw")
	if !ok1 || !ok2 || !ok3 {
		return 0, false
	}
	l1Hits := accesses - l1Misses
	llHits := l1Misses - ram
	return l1Hits + 5*llHits + 35*ram, true
}

// slopeCounters derives every counter a slope is taken of: cachegrind's named counters and the
// estimated cycles.
func slopeCounters(ev map[string]int64) map[string]float64 {
	v := CachegrindValues(ev)
	if e, ok := estimateCycles(ev); ok {
		v[EstimatedCycles] = float64(e)
	}
	return v
}
