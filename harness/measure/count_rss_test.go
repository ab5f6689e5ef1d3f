package measure

import (
	"context"
	"math"
	"net"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/scenario"
)

// keepingServerEnv makes the test binary an HTTP server on 127.0.0.1 that keeps that many bytes
// of every response's for good (a leak; 0: none) and answers "hi".
const keepingServerEnv = "BINDRACE_MEASURE_KEEPING_SERVER"

var kept [][]byte

func serveKeeping(keep, port string) {
	n, err := strconv.Atoi(keep)
	ln, lerr := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil || lerr != nil {
		os.Exit(2)
	}
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if n > 0 {
			b := make([]byte, n)
			b[0] = 1 // a page never written costs no resident memory
			kept = append(kept, b)
		}
		w.Write([]byte("hi")) // what the readiness probe wants of GET /; the paced client wants any 2xx
	}))
}

// keepingTarget is the test binary as a cmd: target keeping keep bytes a response.
func keepingTarget(t *testing.T, keep int) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return "cmd:env " + keepingServerEnv + "=" + strconv.Itoa(keep) + " " + exe + " -test.run=^$ {port}"
}

// TestRSSGrowth: a server that keeps 1 KiB a response grows its resident set by some 100 MiB
// per 100k responses, many times its size; one that keeps nothing grows by a few percent at most
// once warm.
func TestRSSGrowth(t *testing.T) {
	sc, _ := scenario.ByName("ping")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := RSSGrowthOptions{N: 60000, Warmup: 20000, Reads: 7}
	for _, c := range []struct {
		keep int
		leak bool // beyond its resolution above 100% of the first read per 100k responses; else under 10
	}{
		{1024, true},
		{0, false},
	} {
		target := keepingTarget(t, c.keep)
		res, err := counterOf(t, target, "", nil).RSSGrowth(ctx, target, sc, o)
		if err != nil {
			t.Fatalf("keeping %d bytes: %v", c.keep, err)
		}
		t.Logf("keeping %d bytes a response: %+.3f%% ±%.3f per 100k responses, reads %v", c.keep, res.GrowthPct, res.ResolutionPct, res.Reads)
		leak := res.GrowthPct-res.ResolutionPct > 100
		// Not within the resolution: a Go heap breathes by a percent or two between reads, two
		// standard errors of seven reads cover that only most of the time, and a test must not
		// flake on it; what the test holds is the distance between a leak and none.
		flat := math.Abs(res.GrowthPct) < 10
		if len(res.Reads) != 7 || res.Reads[6].Responses != 60000 || leak != c.leak || !c.leak && !flat {
			t.Errorf("keeping %d bytes: %+.3f%% ±%.3f over reads %v: leak %v, flat %v", c.keep, res.GrowthPct, res.ResolutionPct, res.Reads, leak, flat)
		}
	}
}
