package fleet

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/remote"
)

// loadOutput is a `bindrace load --json` object with n responses all of latency us.
func loadOutput(t *testing.T, n int64, us int64, rps float64, errs map[string]int64) []byte {
	t.Helper()
	h := load.NewHistogram()
	if err := h.RecordValues(us, n); err != nil {
		t.Fatal(err)
	}
	res := &load.Result{Hist: h}
	enc, err := res.EncodeHist()
	if err != nil {
		t.Fatal(err)
	}
	e := ""
	for k, v := range errs {
		e = fmt.Sprintf(`%q: %d`, k, v)
	}
	return []byte(fmt.Sprintf(`{"rps": %g, "responses": %d, "duration_s": 1.0, "errors_by_kind": {%s}, "hist": %q, "hist_unit": "us"}`, rps, n, e, enc))
}

func TestMergeClients(t *testing.T) {
	a, err := ParseLoadJSON(loadOutput(t, 1000, 500, 1000, nil))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseLoadJSON(loadOutput(t, 3000, 2000, 3000, map[string]int64{"timeout": 2}))
	if err != nil {
		t.Fatal(err)
	}
	m := Merge([]ClientResult{{Host: remote.Host{Name: "a"}, Result: a}, {Host: remote.Host{Name: "b"}, Result: b}})
	if m.Responses != 4000 || m.RPS != 4000 || m.Errors["timeout"] != 2 || m.Elapsed != time.Second {
		t.Errorf("merged %d responses, %.0f rps, errors %v, elapsed %s", m.Responses, m.RPS, m.Errors, m.Elapsed)
	}
	// 1000 answers at 0.5 ms and 3000 at 2 ms: the median and p99 come from the merged
	// histogram (2 ms), not from either client's own or an average of them.
	if m.Hist.TotalCount() != 4000 || m.Latency.P50 < 1.99 || m.Latency.P50 > 2.01 || m.Latency.P99 < 1.99 {
		t.Errorf("merged histogram %d values, p50 %.3f ms p99 %.3f ms", m.Hist.TotalCount(), m.Latency.P50, m.Latency.P99)
	}
	if Merge(nil) != nil {
		t.Error("Merge of nothing is not nil")
	}
}

func TestParseLoadJSONRefusesGarbage(t *testing.T) {
	if _, err := ParseLoadJSON([]byte("not json")); err == nil {
		t.Error("no error for output that is not JSON")
	}
	if _, err := ParseLoadJSON([]byte(`{"responses": 1, "hist": "####"}`)); err == nil || !strings.Contains(err.Error(), "histogram") {
		t.Errorf("bad histogram: %v", err)
	}
}

func TestLoadArgvSplitsConnections(t *testing.T) {
	f := &Fleet{Clients: []remote.Host{{Name: "c1"}, {Name: "c2"}, {Name: "c3"}}}
	f.s, _ = (&remote.Runner{}).NewSession(remote.SessionOptions{ID: "t"})
	d := Drive{URL: "http://s:1", Scenario: "ping", Config: load.Config{Connections: 100, Pipelining: 10, Warmup: time.Second, Duration: 2 * time.Second}}
	total := 0
	for i := range f.Clients {
		argv := f.loadArgv(d, i, "2026-11-30T12:00:00Z")
		for k, a := range argv {
			if a == "--connections" {
				var n int
				fmt.Sscan(argv[k+1], &n)
				total += n
			}
		}
		if !strings.Contains(strings.Join(argv, " "), "--start-at 2026-11-30T12:00:00Z") || argv[0] != "/tmp/bindrace-t/bin/bindrace" {
			t.Errorf("client %d: %v", i, argv)
		}
	}
	if total != 100 {
		t.Errorf("connections split into %d in all, want 100", total)
	}
}
