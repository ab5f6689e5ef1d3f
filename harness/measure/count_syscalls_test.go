package measure

import (
	"context"
	"math"
	"os"
	"testing"
	"time"

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
