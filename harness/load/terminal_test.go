package load

import "testing"

func TestGroupThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 482113: "482,113", 1234567: "1,234,567"} {
		if got := GroupThousands(n); got != want {
			t.Errorf("%d: %q", n, got)
		}
	}
}
