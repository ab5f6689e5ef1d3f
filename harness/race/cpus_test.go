package race

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
