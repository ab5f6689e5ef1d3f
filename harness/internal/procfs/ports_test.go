package procfs

import "testing"

func TestParsePortRange(t *testing.T) {
	if n, err := ParsePortRange("32768\t60999\n"); err != nil || n != 28232 {
		t.Errorf("the default range: %d, %v", n, err)
	}
	for _, bad := range []string{"", "1", "9 3", "a b", "0 10"} {
		if _, err := ParsePortRange(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if n, ok := LocalPorts(); ok && n < 1 {
		t.Errorf("this machine's range: %d", n)
	}
}
