package procfs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadCPUTimes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, line string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(line+"\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 1 2\n"), 0o644)
		return p
	}
	// user nice system idle iowait irq softirq steal guest guest_nice: guest is not added again.
	a, err := ReadCPUTimes(write("a", "cpu  100 0 50 800 50 0 0 7 10 0"))
	if err != nil || a.Total != 1007 || a.Idle != 850 || a.Steal != 7 {
		t.Fatalf("%+v %v", a, err)
	}
	if _, err := ReadCPUTimes(write("c", "intr 1 2")); err == nil {
		t.Error("a file without a cpu line was read")
	}
	if _, err := ReadCPUTimes(write("d", "cpu  1 x 3 4")); err == nil {
		t.Error("a malformed cpu line was read")
	}
	if _, err := ReadCPUTimes("/proc/stat"); err != nil {
		t.Error(err)
	}
}
