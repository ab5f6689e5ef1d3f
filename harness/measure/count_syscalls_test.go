package measure

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/testbin"
	"github.com/bindrace/bindrace/harness/scenario"
)

// TestPacedSyscalls: under the paced client the server's I/O calls are fixed by the protocol:
// a batch of ten requests arrives in one read and leaves in one send, so there is one send and
// one receive per ten responses, each carrying ten requests' or answers' bytes.
func TestPacedSyscalls(t *testing.T) {
	tg := cachegrindTarget(t)
	sc, err := scenario.ByName("ping")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := counterOf(t, tg.Name, "0", os.Stderr).PacedSyscalls(ctx, tg.Name, sc, PacedSyscallOptions{N: 2000, Warmup: 200})
	if err != nil {
		t.Fatal(err)
	}
	tab := res.Table
	testbin.TracepointsCounted(t, tab.Unsupported)
	t.Logf("%s: %+v", tg.Name, tab)
	if tab.Responses != 2000 || tab.SendsPerResponse != 0.1 || tab.RecvsPerResponse < 0.1 {
		t.Errorf("responses %d, sends %v, recvs %v per response; want 2000, 0.1, >= 0.1", tab.Responses, tab.SendsPerResponse, tab.RecvsPerResponse)
	}
	lo, hi := 10*len(sc.Request("127.0.0.1:1024")), 10*len(sc.Request("127.0.0.1:65535"))
	if tab.BytesPerRecv < float64(lo) || tab.BytesPerRecv > float64(hi) {
		t.Errorf("bytes per recv %v, want a batch of ten requests (%d to %d bytes)", tab.BytesPerRecv, lo, hi)
	}
	// The native core makes nothing but these: per batch one epoll_wait, one recv, one send
	// (600 calls for 2000 responses; one at the window's edge may fall either side).
	if calls := tab.PerResponse * 2000; tg.Name == "binding-static" && math.Abs(calls-600) > 1 {
		t.Errorf("binding-static: %v system calls for 2000 responses, want 600: %+v", calls, tab.BySyscall)
	}
}

// TestUringWaitSubmitsTheAnswers: on the io_uring loop with deferred task work, the answers to a
// batch go out in the io_uring_enter that waits for the next one (docs/io_uring.md, "Submit and
// wait together"), so a paced batch costs one system call, where submitting them first and
// waiting after cost two. The static route waits inside the core's step, the Go route in the
// binding's raw wait: both ways are held to it. (Go's sysmon adds futex, nanosleep and its
// preemption signal to the Go route; only io_uring_enter is counted here.)
func TestUringWaitSubmitsTheAnswers(t *testing.T) {
	root, err := machine.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "bin", "binding-server")); err != nil {
		t.Fatalf("bin/binding-server is not built (make build): %v", err)
	}
	sc, err := scenario.ByName("ping")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		target     string
		pipelining int
		max        float64 // io_uring_enter calls per response
	}{
		{"binding-static-uring", 10, 0.1005},
		{"binding-static-uring", 1, 1.005},
		{"binding-uring", 1, 1.15},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		res, err := counterOf(t, c.target, "0", os.Stderr).PacedSyscalls(ctx, c.target, sc,
			PacedSyscallOptions{N: 1000, Warmup: 100, Pipelining: c.pipelining})
		cancel()
		if err != nil && strings.Contains(err.Error(), "io_uring refused") {
			// As binding/uring_test.go: where the kernel refuses io_uring there is no loop to count.
			t.Skipf("skipping: the kernel refuses io_uring here: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		tab := res.Table
		testbin.TracepointsCounted(t, tab.Unsupported)
		enters := 0.0
		for _, s := range tab.BySyscall {
			if s.Name == "io_uring_enter" {
				enters = s.PerResponse
			}
		}
		t.Logf("%s, pipelining %d: io_uring_enter %.3f a response; %+v", c.target, c.pipelining, enters, tab.BySyscall)
		if enters == 0 || enters > c.max {
			t.Errorf("%s, pipelining %d: %.3f io_uring_enter calls a response, want at most %v (one a batch)",
				c.target, c.pipelining, enters, c.max)
		}
	}
}
