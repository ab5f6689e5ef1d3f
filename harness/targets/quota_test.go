package targets

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
)

func TestQuotaName(t *testing.T) {
	tg, err := Resolve("nethttp@cpu95")
	if err != nil || tg.Name != "nethttp@cpu95" || tg.CPUQuotaPct != 95 || tg.Runtime != RuntimeGo {
		t.Fatalf("%+v %v", tg, err)
	}
	if b, _ := tg.Build(); b["cpu_quota_pct"] != "95" || b["kind"] != "go-stdlib" {
		t.Errorf("build %v", b)
	}
	for _, bad := range []string{"nethttp@cpu0", "nethttp@cpu101", "nethttp@cpuX", "nosuch@cpu50"} {
		if _, err := Resolve(bad); err == nil {
			t.Errorf("%s resolved", bad)
		}
	}
	// A cmd: target may hold "@cpu" in its command; it is not a quota there.
	if tg, err := Resolve("cmd:srv --bind x@cpu5 {port}"); err != nil || tg.CPUQuotaPct != 0 {
		t.Errorf("cmd target: %+v %v", tg, err)
	}
}

// A capped server lives in its own cgroup with the quota asked for, uses no more CPU than that
// under a load that would saturate it, and its cgroup goes with it.
func TestQuotaCapsCPU(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: creating a cgroup needs root")
	}
	tg, err := Resolve("fasthttp@cpu40")
	if err != nil {
		t.Fatal(err)
	}
	s := startT(t, tg, StartOptions{CPUs: "0", Threads: 1})
	if s.quota == nil {
		t.Fatal("no cgroup")
	}
	procs, _ := os.ReadFile(filepath.Join(s.quota.dir, "cgroup.procs"))
	if !strings.Contains(string(procs), fmt.Sprint(s.Pid)) {
		t.Errorf("pid %d not in %s: %q", s.Pid, s.quota.dir, procs)
	}
	u0, _ := s.Usage()
	t0 := time.Now()
	_, err = load.Run(context.Background(), load.Config{Addr: s.Addr(), Requests: [][]byte{scenario.All()[0].Request(s.Addr())},
		Connections: 20, Pipelining: 10, Workers: 1, Duration: time.Second}, load.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	u1, _ := s.Usage()
	share := (u1.CPUSeconds - u0.CPUSeconds) / time.Since(t0).Seconds()
	if share > 0.5 {
		t.Errorf("capped at 40%% of a CPU, the server used %.0f%%", share*100)
	}
	dir := s.quota.dir
	if err := s.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("cgroup %s left behind", dir)
	}
}
