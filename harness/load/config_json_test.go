package load

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Every field of a Config travels: what a harness sends a generator on another host is the
// load it would have run here.
func TestConfigJSONRoundTrip(t *testing.T) {
	for _, c := range []Config{
		{Protocol: HTTP, Addr: "10.0.0.1:8080", Requests: [][]byte{[]byte("GET / HTTP/1.1\r\nHost: s\r\n\r\n"), []byte("GET /id/1 HTTP/1.1\r\n\r\n")},
			Connections: 50, Pipelining: 10, Workers: 3, Warmup: 2 * time.Second, Duration: 1500 * time.Millisecond,
			Timeout: 10 * time.Second, Rate: 2500.5, Arrival: Poisson, LagTolerance: 3 * time.Millisecond},
		{Protocol: WebSocket, Addr: "s:80", Host: "s", Path: "/ws", Size: 64, Connections: 4, Pipelining: 2, Count: 1000},
		{Addr: "s:1", Requests: [][]byte{[]byte("POST /json HTTP/1.1\r\nHost: s\r\nContent-Length: 2\r\n\r\n{}")}},
	} {
		b, err := EncodeConfig(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeConfig(strings.NewReader(string(b)))
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Errorf("%s\ndecoded %+v, %v\nwant    %+v", b, got, err, c)
		}
	}
}

// A config written by hand reads as it says: Go durations, named protocols and arrivals,
// absent fields left to the defaults.
func TestDecodeConfigByHand(t *testing.T) {
	c, err := DecodeConfig(strings.NewReader(`{"addr": "127.0.0.1:8080", "requests": ["GET / HTTP/1.1\r\nHost: x\r\n\r\n"],
		"connections": 8, "duration": "5s", "rate": 1000, "arrival": "poisson"}`))
	want := Config{Addr: "127.0.0.1:8080", Requests: [][]byte{[]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")}, Connections: 8,
		Duration: 5 * time.Second, Rate: 1000, Arrival: Poisson}
	if err != nil || !reflect.DeepEqual(c, want) {
		t.Errorf("decoded %+v, %v", c, err)
	}
}

func TestDecodeConfigRefuses(t *testing.T) {
	for _, c := range []struct{ json, say string }{
		{`{"addr": "s:1", "conections": 4}`, "conections"},
		{`{"addr": "s:1", "protocol": "h2"}`, "protocol"},
		{`{"addr": "s:1", "arrival": "bursty"}`, "arrival"},
		{`{"addr": "s:1", "duration": 5}`, "duration"},
		{`{"addr": "s:1", "duration": "5 minutes"}`, "duration"},
		{`{"addr": "s:1", "warmup": "-1s"}`, "negative"},
		{`{"addr": "s:1", "rate": -5}`, "rate"},
		{`{"addr": "s:1", "count": -5}`, "negative"},
		{`{"addr": "s:1", "connections": -1}`, "negative"},
		{`{"addr": "s:1"} {"addr": "s:2"}`, "a second JSON value"},
		{`not json`, "load config"},
		{`null`, "got null"},
		{`[{"addr": "s:1"}]`, "got a list"},
		{`{"addr": "s:1", "connections": "8"}`, `field "connections": want int`},
		// Requests that are not HTTP: no server can answer them, so the run would measure nothing.
		{`{"addr": "s:1", "requests": ["hello"]}`, "requests[0]: not an HTTP request"},
		{`{"addr": "s:1", "requests": ["GET / HTTP/1.1\r\nHost: s\r\n"]}`, "ends before its head does"},
		{`{"addr": "s:1", "requests": ["GET / HTTP/1.1\r\n\r\n", "GET / HTTP/2.0\r\n\r\n"]}`, "requests[1]: HTTP/2.0"},
		{`{"addr": "s:1", "requests": ["POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab"]}`, "shorter than its head announces"},
		{`{"addr": "s:1", "requests": ["GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n"]}`, "bytes after the request"},
		{`{"protocol": "websocket", "addr": "s:1", "requests": ["GET /ws HTTP/1.1\r\n\r\n"]}`, "give host and path"},
	} {
		if _, err := DecodeConfig(strings.NewReader(c.json)); err == nil || !strings.Contains(err.Error(), c.say) {
			t.Errorf("%s: %v, want an error saying %q", c.json, err, c.say)
		}
	}
}

func TestEncodeConfigRefuses(t *testing.T) {
	if _, err := EncodeConfig(Config{Addr: "s:1", Build: func(dst []byte, _ uint64) []byte { return dst }}); err == nil {
		t.Error("a Config with a Build function was encoded")
	}
	if _, err := EncodeConfig(Config{Addr: "s:1", Requests: [][]byte{{0xff, 0xfe}}}); err == nil {
		t.Error("a request that is not UTF-8 was encoded (JSON would change it)")
	}
}

// A field added to Config must be given a JSON form (or named here as having none), or a load
// run on another host would silently lose it.
func TestConfigJSONCoversConfig(t *testing.T) {
	carried := map[string]bool{"Protocol": true, "Addr": true, "Requests": true, "Host": true, "Path": true,
		"Size": true, "Connections": true, "Pipelining": true, "Workers": true, "Warmup": true, "Duration": true,
		"Count": true, "Timeout": true, "Rate": true, "Arrival": true, "LagTolerance": true,
		"Build": false, // a function of this process
	}
	ct := reflect.TypeOf(Config{})
	for i := range ct.NumField() {
		if _, ok := carried[ct.Field(i).Name]; !ok {
			t.Errorf("Config.%s has no JSON form (configJSON) and is not named as having none", ct.Field(i).Name)
		}
	}
	if n := reflect.TypeOf(configJSON{}).NumField(); n != ct.NumField()-1 {
		t.Errorf("configJSON has %d fields for Config's %d less Build", n, ct.NumField())
	}
}

// A closed loop's Config may carry an open loop's settings (measure sets a lag tolerance for
// every run): its JSON form leaves them out, so the generator a fleet starts reads it back
// (a remote closed-loop race failed on "arrival and lag_tolerance are for an open loop").
func TestEncodeClosedLoopDropsOpenLoopSettings(t *testing.T) {
	c := Config{Addr: "10.0.0.1:8080", Requests: [][]byte{[]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")}, Connections: 10,
		Duration: time.Second, Arrival: Poisson, LagTolerance: 2 * time.Millisecond}
	b, err := EncodeConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeConfig(bytes.NewReader(b))
	if err != nil || back.Rate != 0 || back.LagTolerance != 0 || back.Connections != 10 {
		t.Errorf("closed loop %s read back as %+v, %v", b, back, err)
	}
}
