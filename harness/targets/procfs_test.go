package targets

import (
	"os"
	"testing"
)

func TestParseUsage(t *testing.T) {
	stat := "77 (x) S 1 77 77 0 -1 0 0 0 0 0 150 50 0 0 20 0 1 0 5 0 0"
	u, err := ParseUsage(stat, "VmHWM:\t 300 kB\nVmRSS:\t 200 kB\n")
	if err != nil || u.CPUSeconds != 2 || u.RSSBytes != 200<<10 || u.PeakRSSBytes != 300<<10 {
		t.Fatalf("ParseUsage = %+v, %v", u, err)
	}
	if _, err := ParseUsage("garbage", "VmRSS:\t 1 kB\n"); err == nil {
		t.Fatal("malformed stat accepted")
	}
	// A kernel thread or a zombie has no memory lines: that is not a server's usage.
	if _, err := ParseUsage(stat, "Name:\tx\nState:\tZ (zombie)\n"); err == nil {
		t.Fatal("status without VmRSS accepted")
	}
	// This test process's own files parse to plausible figures.
	st, err1 := os.ReadFile("/proc/self/stat")
	ss, err2 := os.ReadFile("/proc/self/status")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	u, err = ParseUsage(string(st), string(ss))
	if err != nil || u.RSSBytes <= 0 || u.PeakRSSBytes < u.RSSBytes || u.CPUSeconds < 0 {
		t.Fatalf("own usage = %+v, %v", u, err)
	}
}
