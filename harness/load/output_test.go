package load

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// runAgainstPing runs cfg (its Addr and Requests filled in) against a loopback "hi" server.
func runAgainstPing(t *testing.T, cfg Config) *Result {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("hi")) }))
	t.Cleanup(srv.Close)
	cfg.Addr = strings.TrimPrefix(srv.URL, "http://")
	cfg.Requests = [][]byte{[]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")}
	res, err := Run(context.Background(), cfg, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// An open loop's result survives its JSON form: the figures DESIGN.md names, the shape, and
// both histograms, from which the percentiles are read again.
func TestOutputRoundTrip(t *testing.T) {
	cfg := Config{Connections: 2, Workers: 1, Duration: 300 * time.Millisecond, Rate: 500, LagTolerance: time.Millisecond}
	res := runAgainstPing(t, cfg)
	out, err := NewOutput(res, cfg, errors.New("cut short"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var flat map[string]any
	json.Unmarshal(b, &flat)
	for _, k := range []string{"rps", "responses", "p50_ms", "p99_ms", "errors", "errors_by_kind", "duration_s",
		"connections", "hist", "hist_unit", "rate", "sent", "sent_rps", "lag_p99_ms", "generator_bound", "lag_hist"} {
		if _, ok := flat[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	if flat["incomplete"] != "cut short" || flat["connections"] != 2.0 {
		t.Errorf("incomplete %v, connections %v", flat["incomplete"], flat["connections"])
	}
	back, err := DecodeOutput(b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.Result()
	if err != nil {
		t.Fatal(err)
	}
	if got.Responses != res.Responses || got.Hist.TotalCount() != res.Hist.TotalCount() || got.Latency != res.Latency ||
		got.Elapsed.Round(time.Microsecond) != res.Elapsed.Round(time.Microsecond) {
		t.Errorf("closed part: got %+v\nwant %+v", got, res)
	}
	o, w := got.Open, res.Open
	if o == nil || o.Rate != w.Rate || o.Sent != w.Sent || o.Lag != w.Lag || o.LagHist.TotalCount() != w.LagHist.TotalCount() ||
		o.LagTolerance != w.LagTolerance || o.GeneratorBound != w.GeneratorBound || o.Arrival != "uniform" {
		t.Errorf("open loop: got %+v\nwant %+v", o, w)
	}
}

func TestDecodeOutputRefuses(t *testing.T) {
	if _, err := DecodeOutput([]byte("not json")); err == nil {
		t.Error("no error for output that is not JSON")
	}
	for _, bad := range []string{`{"responses": 1, "hist": "####"}`, `{"responses": 1, "rate": 5, "lag_hist": "####"}`} {
		o, err := DecodeOutput([]byte(bad))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := o.Result(); err == nil || !strings.Contains(err.Error(), "histogram") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
