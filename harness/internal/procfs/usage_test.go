package procfs

import (
	"os"
	"testing"
)

func TestParseUsage(t *testing.T) {
	stat := []byte("77 (x) S 1 77 77 0 -1 0 42 0 0 0 150 50 0 0 20 0 1 0 5 0 0")
	u, err := ParseUsage(stat, []byte("Name:\tx\nVmHWM:\t 300 kB\nVmRSS:\t 200 kB\n"))
	if err != nil || u.CPUSeconds != 2 || u.RSSBytes != 200<<10 || u.PeakRSSBytes != 300<<10 || u.MinorFaults != 42 {
		t.Fatalf("ParseUsage = %+v, %v", u, err)
	}
	if _, err := ParseUsage([]byte("garbage"), []byte("VmRSS:\t 1 kB\n")); err == nil {
		t.Fatal("malformed stat accepted")
	}
	// A kernel thread or a zombie has no memory lines: that is not a server's usage.
	if _, err := ParseUsage(stat, []byte("Name:\tx\nState:\tZ (zombie)\n")); err == nil {
		t.Fatal("status without VmRSS accepted")
	}
}

func TestReadUsageSelf(t *testing.T) {
	u, err := ReadUsage(Self)
	if err != nil || u.RSSBytes <= 0 || u.PeakRSSBytes < u.RSSBytes || u.CPUSeconds < 0 {
		t.Fatalf("own usage = %+v, %v", u, err)
	}
	if _, err := ReadUsage(1 << 30); err == nil {
		t.Error("usage of a pid that does not exist")
	}
	rss, pss, err := Memory(os.Getpid())
	if err != nil || rss <= 0 || pss <= 0 || pss > rss {
		t.Errorf("own memory: rss %d pss %d, %v", rss, pss, err)
	}
}

func TestKB(t *testing.T) {
	b := []byte("Name:\tx\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\nPss: nonsense kB\n")
	if v, ok := KB(b, "VmRSS"); !ok || v != 1024<<10 {
		t.Errorf("VmRSS = %d, %v", v, ok)
	}
	if v, ok := KB(b, "VmHWM"); !ok || v != 2048<<10 {
		t.Errorf("VmHWM = %d, %v", v, ok)
	}
	if _, ok := KB(b, "Pss"); ok {
		t.Error("a value that is not a number was read")
	}
	if _, ok := KB(b, "Vm"); ok {
		t.Error("a key's prefix matched another key")
	}
}
