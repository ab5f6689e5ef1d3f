package load

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
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
	cfg := Config{Connections: 2, Pipelining: 1, Workers: 1, Duration: 300 * time.Millisecond, Rate: 500, LagTolerance: time.Millisecond}
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

// Real outputs of `bindrace load --json` (testdata/output-*.json: a closed loop, an open loop
// at 2000/s, a WebSocket echo) are read back as they were printed.
func TestDecodeOutputReadsRealOutputs(t *testing.T) {
	for name, b := range outputSeeds(t) {
		o, err := DecodeOutput(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if res, err := o.Result(); err != nil || res.Hist.TotalCount() != o.Responses {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Each class of bad output is refused in one line naming its field: a real output with one
// field spoiled (set: a JSON value for a field, or the whole text replaced).
func TestDecodeOutputRefuses(t *testing.T) {
	seeds := outputSeeds(t)
	closed, open := seeds["output-closed.json"], seeds["output-open.json"]
	for _, c := range []struct {
		seed  []byte
		field string
		value any
		say   string
	}{
		{nil, "", "", "empty"},
		{nil, "", "not json", "not JSON"},
		{nil, "", string(closed[:len(closed)/2]), "truncated"},
		{nil, "", string(closed) + string(closed), "after the object"},
		{closed, "responses", json.RawMessage(`"65440"`), `field "responses"`},
		{closed, "respones", 1, "unknown field"},
		{closed, "responses", -5, "responses -5"},
		{closed, "responses", 65441, "hist: 65440 latencies for 65441 responses"},
		{closed, "errors", 3, "errors 3: errors_by_kind adds up to 0"},
		{closed, "errors_by_kind", map[string]int{"read": -1}, "errors_by_kind"},
		{closed, "reconnects", -1, "reconnects -1"},
		{closed, "bytes_read", -1, "bytes_read -1"},
		{closed, "connections", 0, "connections 0"},
		{closed, "pipelining", -2, "pipelining -2"},
		{closed, "duration_s", 0, "duration_s 0"},
		{closed, "duration_s", -0.3, "duration_s -0.3"},
		{closed, "rps", -1, "rps -1"},
		{closed, "rps", 900000, "rps 900000"},
		{closed, "p99_ms", 0.1, "p99_ms 0.1: below p95_ms"},
		{closed, "mean_ms", 99, "mean_ms 99"},
		{closed, "rps", json.RawMessage(`1e400`), `field "rps"`},
		{closed, "hist", "####", "hist: histogram"},
		{closed, "hist", "", "hist: missing"},
		{closed, "hist_unit", "ms", "hist_unit"},
		{closed, "unit", "bananas/s", "unit"},
		{open, "sent", 100, "responses 603: more than the 100 requests sent"},
		{open, "sent", -1, "sent -1"},
		{open, "rate", 0, "rate 0"},
		{open, "arrival", "bursty", "arrival"},
		{open, "sent_rps", -2003.8, "sent_rps"},
		{open, "lag_p99_ms", -1, "lag_p99_ms"},
		{open, "lag_hist", "####", "lag_hist: histogram"},
	} {
		text := c.value
		if c.seed != nil {
			text = withField(t, c.seed, c.field, c.value)
		}
		_, err := DecodeOutput([]byte(text.(string)))
		if err == nil || !strings.Contains(err.Error(), c.say) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s = %v: %v; want one line saying %q", c.field, c.value, err, c.say)
		}
	}
}

// withField is the JSON object b with field set to v (marshalled, or as is when raw).
func withField(t *testing.T, b []byte, field string, v any) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	m[field] = raw
	out, _ := json.Marshal(m)
	return string(out)
}

// outputSeeds are the real outputs in testdata, by file name.
func outputSeeds(t testing.TB) map[string][]byte {
	files, _ := filepath.Glob(filepath.Join("testdata", "output-*.json"))
	if len(files) == 0 {
		t.Fatal("no testdata/output-*.json")
	}
	seeds := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		seeds[filepath.Base(f)] = b
	}
	return seeds
}

// FuzzDecodeOutput: no input panics; an output accepted holds sane values (Check), turns into
// a Result, and survives encode and decode unchanged.
func FuzzDecodeOutput(f *testing.F) {
	for _, b := range outputSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := DecodeOutput(b)
		if err != nil {
			return
		}
		if err := o.Check(); err != nil {
			t.Fatalf("accepted, yet: %v", err)
		}
		if _, err := o.Result(); err != nil {
			t.Fatalf("accepted, yet no Result: %v", err)
		}
		enc, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeOutput(enc)
		if err != nil || !reflect.DeepEqual(back, o) {
			t.Fatalf("round trip: %v\n%+v\n%+v", err, o, back)
		}
	})
}
