package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/loopback"
)

// A load that measured nothing says so: against a listener that answers garbage, one that
// never answers, and with a config whose request is not HTTP, `load` exits 2 naming what came
// back instead of a valid response (0 valid responses exited 0 before).
func TestLoadNothingValid(t *testing.T) {
	garbage := loopback.Serve(t, func(c net.Conn, _ []byte) { c.Write([]byte("NOT HTTP AT ALL\r\n\r\n")) })
	silent := loopback.Serve(t, func(net.Conn, []byte) {})
	short := []string{"-d", "300ms", "--warmup", "0", "-c", "2", "--timeout", "200ms"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"http://" + garbage + "/"}, short...), "no valid responses in the window"},
		{append([]string{"http://" + garbage + "/", "--json"}, short...), "malformed"},
		{append([]string{"http://" + silent + "/"}, short...), "timeout"},
	} {
		code, out, errOut := runCLI(tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "nothing was measured") {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
		if strings.Contains(strings.Join(tc.args, " "), "--json") && !json.Valid([]byte(out)) {
			t.Errorf("--json: stdout is not one JSON object: %q", out)
		}
	}
	file := filepath.Join(t.TempDir(), "load.json")
	cfg := `{"addr": "` + garbage + `", "requests": ["hello"], "duration": "1s", "warmup": "0s", "connections": 1}`
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("--config", file); code != 2 || !strings.Contains(errOut, "requests[0]: not an HTTP request") {
		t.Errorf("a request that is not HTTP: exit %d, %q", code, errOut)
	}
}

// A run where only some replies are not HTTP measured the others: exit 0, the bad ones counted
// as errors of their kind (malformed), which is what a race's runs store as errors_by_kind and
// the gate's error check counts.
func TestLoadSomeRepliesNotHTTP(t *testing.T) {
	addr := loopback.ServeHalfGarbage(t)
	code, out, errOut := runCLI("http://"+addr+"/", "--json", "-d", "300ms", "--warmup", "0", "-c", "2", "--pipelining", "1", "--timeout", "200ms")
	var o struct {
		Responses int64            `json:"responses"`
		Errors    int64            `json:"errors"`
		ByKind    map[string]int64 `json:"errors_by_kind"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil || code != 0 {
		t.Fatalf("exit %d, %v: %s%s", code, err, out, errOut)
	}
	if o.Responses == 0 || o.ByKind["malformed"] == 0 || o.Errors < o.ByKind["malformed"] {
		t.Errorf("responses %d, errors %d by kind %v: want both valid responses and malformed errors", o.Responses, o.Errors, o.ByKind)
	}
}

// Resources outside their bound on this machine are refused before anything is dialled, exit
// 2 naming the flag or the --config field: the issue's --rate 1e300 (printed a negative rate
// asked, exit 0) and --pipelining 1000000000 (out of memory), and --help shows the bounds.
func TestLoadBounds(t *testing.T) {
	dead := loopback.Unused(t).String()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"http://" + dead + "/", "--rate", "1e300"}, "--rate 1e+300 requests/s is out of range"},
		{[]string{"http://" + dead + "/", "--pipelining", "1000000000"}, "--pipelining 1000000000 is out of range"},
		{[]string{"http://" + dead + "/", "-c", "10000000"}, "--connections 10000000 is out of range"},
		{[]string{"http://" + dead + "/", "-c", "10000", "--pipelining", "100000"}, "of memory"},
		{[]string{"http://" + dead + "/", "-d", "1000h"}, "--duration 1000h0m0s is out of range"},
		{[]string{"http://" + dead + "/", "--timeout", "5m"}, "--timeout 5m0s is out of range"},
		{[]string{"http://" + dead + "/", "--body", strings.Repeat("x", 17<<20)}, "--body 17825792 bytes is out of range"},
	} {
		if code, _, errOut := runCLI(tc.args...); code != 2 || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "cannot connect") {
			t.Errorf("%.80v: exit %d, %q; want 2 and %q before any connection", tc.args[1:], code, errOut, tc.want)
		}
	}
	file := filepath.Join(t.TempDir(), "load.json")
	cfg := `{"addr": "` + dead + `", "requests": ["GET / HTTP/1.1\r\n\r\n"], "duration": "1s", "rate": 1e300}`
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("--config", file); code != 2 || !strings.Contains(errOut, ": rate 1e+300 requests/s is out of range") {
		t.Errorf("--config rate: exit %d, %q (want the field named, not the flag)", code, errOut)
	}
	if _, _, errOut := runCLI("--help"); !strings.Contains(errOut, "--pipelining int") || !strings.Contains(errOut, " here]") {
		t.Errorf("--help shows no bound: %s", errOut)
	}
}
