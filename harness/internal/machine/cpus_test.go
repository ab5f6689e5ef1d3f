package machine

import (
	"reflect"
	"testing"
)

func TestCPUs(t *testing.T) {
	for n, want := range map[int][2]string{1: {"", ""}, 2: {"1", "0"}, 4: {"2-3", "0-1"}, 8: {"4-7", "0-3"}} {
		s, c := DefaultCPUs(n)
		if s != want[0] || c != want[1] {
			t.Errorf("DefaultCPUs(%d) = %q,%q want %q,%q", n, s, c, want[0], want[1])
		}
	}
	got, err := ParseCPUs("0,2-4,3")
	if err != nil || !reflect.DeepEqual(got, []int{0, 2, 3, 4}) {
		t.Errorf("ParseCPUs: %v %v", got, err)
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "1-"} {
		if _, err := ParseCPUs(bad); err == nil {
			t.Errorf("ParseCPUs(%q) accepted", bad)
		}
	}
	if c := Complement("1", 4); c != "0,2,3" {
		t.Errorf("Complement: %q", c)
	}
	if n := CountCPUs("0-2,5"); n != 4 {
		t.Errorf("CountCPUs: %d", n)
	}
}

func TestParseCPUsCounts(t *testing.T) {
	for in, want := range map[string]int{"1": 1, "0-3": 4, "0-3,6": 5, "0,2,4": 3} {
		if got, err := ParseCPUs(in); err != nil || len(got) != want {
			t.Errorf("ParseCPUs(%q) = %v, %v; want %d CPUs", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a", "3-1", "1-"} {
		if _, err := ParseCPUs(bad); err == nil {
			t.Errorf("ParseCPUs(%q) accepted", bad)
		}
	}
}

func TestOverlap(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{{"", "1", true}, {"0", "1", false}, {"0-2", "2-3", true}, {"0,2", "1,3", false}} {
		if got := Overlap(c.a, c.b); got != c.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
