//go:build long

// Long test tier (make test-all, -tags long): minutes of simulated sequential races.

package gate

import "testing"

// TestAAFalseFailBudgetSequential: TestAAFalseFailBudget's budget for sequential designs from 6
// to 30 and 40 pairs, looked at after every even pair count and stopped as a race would (every
// check decided, or one FAILed); and with the live system calls gated, from 6 to 16 and 20 pairs
// (ci's and release-linux's budgets).
func TestAAFalseFailBudgetSequential(t *testing.T) {
	aaBudget(t, []aaCase{{1, 0, 30, 0, false}, {2, 0, 40, 0, false}, {1, 0, 30, -2, false}, {2, 0, 40, -2, false}, {1, 0, 16, 0, true}, {2, 0, 20, 0, true}})
}
