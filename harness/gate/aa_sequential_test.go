//go:build long

// Long test tier (make test-all, -tags long): minutes of simulated sequential races.

package gate

import "testing"

// TestAAFalseFailBudgetSequential: TestAAFalseFailBudget's budget for sequential designs from 6
// to 30 and 40 pairs, looked at after every even pair count and stopped as a race would (every
// check decided, or one FAILed).
func TestAAFalseFailBudgetSequential(t *testing.T) {
	aaBudget(t, []aaCase{{1, 0, 30, 0}, {2, 0, 40, 0}, {1, 0, 30, -2}, {2, 0, 40, -2}})
}
