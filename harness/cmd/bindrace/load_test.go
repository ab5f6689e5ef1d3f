package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/bindrace/bindrace/harness/internal/loopback"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = loadCommand(args, &o, &e)
	return code, o.String(), e.String()
}

// pingServer is a loopback HTTP server answering "hi", counting the requests it served.
type pingServer struct {
	addr     string
	requests atomic.Int64
}

func newPingServer(t *testing.T) *pingServer {
	t.Helper()
	s := &pingServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.requests.Add(1)
		w.Write([]byte("hi"))
	}))
	t.Cleanup(srv.Close)
	s.addr = strings.TrimPrefix(srv.URL, "http://")
	return s
}

func TestLoadCommandJSON(t *testing.T) {
	s := newPingServer(t)
	code, out, errOut := runCLI("http://"+s.addr+"/", "-c", "3", "--pipelining", "4", "-t", "1",
		"-d", "0.3", "--warmup", "100ms", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value on stdout: %q", out)
	}
	for _, k := range []string{"rps", "responses", "p50_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms",
		"errors", "errors_by_kind", "duration_s", "connections", "pipelining"} {
		if _, ok := m[k]; !ok {
			t.Errorf("missing %q in %s", k, out)
		}
	}
	if m["responses"].(float64) <= 0 || m["connections"].(float64) != 3 || m["pipelining"].(float64) != 4 ||
		m["errors"].(float64) != 0 {
		t.Fatalf("%s", out)
	}
	// The histogram travels along, in HdrHistogram's encoding, to be merged with other runs'.
	h, err := hdrhistogram.Decode([]byte(m["hist"].(string)))
	if err != nil || h.TotalCount() != int64(m["responses"].(float64)) || m["hist_unit"] != "us" {
		t.Fatalf("hist: %v, %v", h, err)
	}
	if !strings.Contains(errOut, "measure") { // progress goes to stderr, as plain lines off a TTY
		t.Logf("stderr: %q", errOut)
	}
}

func TestLoadCommandHumanCount(t *testing.T) {
	s := newPingServer(t)
	code, out, errOut := runCLI(s.addr, "--count", "123", "-c", "5", "--pipelining", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "123 responses") || !strings.Contains(out, "Requests/sec") || s.requests.Load() != 123 {
		t.Fatalf("stdout:\n%s\nserver saw %d", out, s.requests.Load())
	}
}

func TestLoadCommandBadInput(t *testing.T) {
	dead := loopback.Unused(t).String()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "exactly one URL"},
		{[]string{"--nope", "http://x/"}, "unknown flag"},
		{[]string{"https://127.0.0.1:1/"}, "only http://"},
		{[]string{"http://:80/"}, "no host"},
		{[]string{"http://127.0.0.1:99999/"}, "bad port"},
		{[]string{"http://127.0.0.1:1/", "-c", "0"}, "--connections"},
		{[]string{"http://127.0.0.1:1/", "-d", "soon"}, "bad duration"},
		{[]string{"http://127.0.0.1:1/", "--scenario", "nope"}, "unknown scenario"},
		{[]string{"http://127.0.0.1:1/", "-H", "no colon"}, "bad header"},
		{[]string{"http://127.0.0.1:1/", "--scenario", "ws-echo", "--method", "PUT"}, "unknown flag: --method"}, // a WebSocket load
		{[]string{"http://" + dead + "/", "-d", "1s"}, "cannot connect to"},
		{[]string{"http://127.0.0.1:1/", "--rate", "0"}, "--rate must be a positive number"},
		{[]string{"http://127.0.0.1:1/", "--rate", "-5"}, "--rate must be a positive number"},
		{[]string{"http://127.0.0.1:1/", "--rate", "100", "--arrival", "bursty"}, "--arrival must be uniform or poisson"},
		{[]string{"http://127.0.0.1:1/", "--arrival", "poisson"}, "give --rate too"},
		{[]string{"http://127.0.0.1:1/", "--lag-tolerance", "2ms"}, "give --rate too"},
		{[]string{"http://127.0.0.1:1/", "--rate", "100", "--lag-tolerance", "0"}, "--lag-tolerance must be positive"},
	} {
		code, out, errOut := runCLI(tc.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
	if code, _, errOut := runCLI("--help"); code != 0 || !strings.Contains(errOut, "--pipelining") {
		t.Errorf("--help: exit %d, %q", code, errOut)
	}
}

func TestBuildRequest(t *testing.T) {
	for _, tc := range []struct {
		path, scen, method string
		headers            []string
		body               *string
		want               string
	}{
		{path: "/", want: "GET / HTTP/1.1\r\nHost: h:1\r\n\r\n"},
		{path: "/x?y=1", want: "GET /x?y=1 HTTP/1.1\r\nHost: h:1\r\n\r\n"},
		{path: "/x", scen: "params", want: "GET /id/1?name=bun HTTP/1.1\r\nHost: h:1\r\nx-bench: 1\r\n\r\n"},
		{path: "/", method: "post", headers: []string{"Host: other", "X-A: b"}, body: ptr("hey"),
			want: "POST / HTTP/1.1\r\nHost: other\r\nX-A: b\r\ncontent-length: 3\r\n\r\nhey"},
	} {
		got, err := buildRequest("h:1", tc.path, tc.scen, tc.method, tc.headers, tc.body)
		if err != nil || string(got) != tc.want {
			t.Errorf("%+v: got %q, %v", tc, got, err)
		}
	}
}

func ptr(s string) *string { return &s }

func TestSecondsValue(t *testing.T) {
	var d secondsValue
	for in, want := range map[string]time.Duration{"5": 5 * time.Second, "0.5": 500 * time.Millisecond, "2m": 2 * time.Minute} {
		if err := d.Set(in); err != nil || time.Duration(d) != want {
			t.Errorf("%q: %v %v", in, time.Duration(d), err)
		}
	}
}

// --rate makes an open loop: pipelining 1 unless asked, the rate asked and achieved, the send
// lag and whether it bound the run, in the same JSON object.
func TestLoadCommandOpenLoop(t *testing.T) {
	s := newPingServer(t)
	code, out, errOut := runCLI("http://"+s.addr+"/", "--rate", "2000", "--arrival", "poisson", "-c", "4", "-t", "1",
		"-d", "0.5", "--warmup", "100ms", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"sent", "lag_p50_ms", "lag_p99_ms", "lag_max_ms", "generator_cpu_pct", "generator_bound"} {
		if _, ok := m[k]; !ok {
			t.Errorf("missing %q in %s", k, out)
		}
	}
	if m["rate"] != 2000.0 || m["arrival"] != "poisson" || m["pipelining"] != 1.0 || m["lag_tolerance_ms"] != 1.0 ||
		m["sent_rps"].(float64) <= 0 || m["responses"].(float64) <= 0 {
		t.Fatalf("%s", out)
	}
	// A closed loop has none of it.
	code, out, errOut = runCLI(s.addr, "--count", "10", "--json")
	if code != 0 || strings.Contains(out, "generator_bound") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
}

// --config reads the whole load from JSON (what a harness sends the generators it starts on
// other hosts): the same load as the flags would give, the same output.
func TestLoadCommandConfig(t *testing.T) {
	s := newPingServer(t)
	file := filepath.Join(t.TempDir(), "load.json")
	cfg := `{"addr": "` + s.addr + `", "requests": ["GET / HTTP/1.1\r\nHost: x\r\n\r\n"], "connections": 3,
		"pipelining": 2, "workers": 1, "count": 300}`
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("--config", file, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	if m["responses"] != 300.0 || m["connections"] != 3.0 || m["pipelining"] != 2.0 || s.requests.Load() != 300 {
		t.Errorf("server saw %d: %s", s.requests.Load(), out)
	}
	code, out, errOut = runCLI("--config", file)
	if code != 0 || !strings.Contains(out, "Sent 300 requests @ http://"+s.addr) {
		t.Errorf("human summary: exit %d\n%s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", file, "-c", "4"}, "--config gives the whole load: drop --connections"},
		{[]string{"--config", file, "http://" + s.addr}, "drop http://"},
		{[]string{"--config", filepath.Join(t.TempDir(), "none.json")}, "no such file"},
	} {
		if code, _, errOut := runCLI(tc.args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	if err := os.WriteFile(file, []byte(`{"addr": "`+s.addr+`", "conections": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("--config", file); code != 2 || !strings.Contains(errOut, `unknown field "conections"`) {
		t.Errorf("misspelt field: exit %d, %q", code, errOut)
	}
}
