package fleet

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/remote"
)

// Each host gets its share of the connections and of the rate, and the rest of the load as
// asked, in the JSON its generator reads.
func TestSharesSplitTheLoad(t *testing.T) {
	f := &Fleet{Clients: []remote.Host{{Name: "c1"}, {Name: "c2"}, {Name: "c3"}}}
	c := load.Config{Addr: "s:1", Requests: [][]byte{[]byte("GET / HTTP/1.1\r\n\r\n")}, Connections: 100, Pipelining: 10,
		Warmup: time.Second, Duration: 2 * time.Second, Rate: 3000, Arrival: load.Poisson, LagTolerance: 2 * time.Millisecond}
	shares, err := f.shares(c)
	if err != nil {
		t.Fatal(err)
	}
	conns := 0
	for i, b := range shares {
		s, err := load.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		conns += s.Connections
		if s.Rate != 1000 || s.Addr != c.Addr || s.Arrival != load.Poisson || s.Warmup != time.Second ||
			s.LagTolerance != c.LagTolerance || string(s.Requests[0]) != string(c.Requests[0]) || s.Pipelining != 10 {
			t.Errorf("host %d: %+v", i, s)
		}
	}
	if conns != 100 {
		t.Errorf("connections split into %d in all, want 100", conns)
	}
	// Fewer connections than hosts: each host still drives one.
	c.Connections = 2
	shares, _ = f.shares(c)
	for i, b := range shares {
		if s, _ := load.DecodeConfig(bytes.NewReader(b)); s.Connections != 1 {
			t.Errorf("2 connections on 3 hosts: host %d drives %d", i, s.Connections)
		}
	}
	c.Build = func(dst []byte, _ uint64) []byte { return dst }
	if _, err := f.shares(c); err == nil {
		t.Error("a load built by a function of this process was sent to other hosts")
	}
}

// A generator's output is read through load's decoder: garbage and impossible figures are
// refused naming the field; an incomplete result is kept, and says so.
func TestReadResult(t *testing.T) {
	real, err := os.ReadFile("../load/testdata/output-closed.json")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := readResult(real); err != nil || res.Responses != 65440 {
		t.Fatalf("a real output: %v", err)
	}
	for _, c := range []struct{ out, say string }{
		{"not json", "not JSON"},
		{strings.Replace(string(real), `"responses":65440`, `"responses":-65440`, 1), "responses -65440"},
		{strings.Replace(string(real), `"hist":"`, `"hist":"##`, 1), "hist: histogram"},
	} {
		if _, err := readResult([]byte(c.out)); err == nil || !strings.Contains(err.Error(), c.say) {
			t.Errorf("%.40q: %v, want %q", c.out, err, c.say)
		}
	}
	cut := strings.Replace(string(real), `"reconnects":0`, `"reconnects":0,"incomplete":"interrupted"`, 1)
	if res, err := readResult([]byte(cut)); res == nil || err == nil || !strings.Contains(err.Error(), "incomplete: interrupted") {
		t.Errorf("incomplete output: %v, %v", res, err)
	}
}

// A log tail and an error read as one line.
func TestOneLine(t *testing.T) {
	if got := oneLine("a\nb  c\n", errors.New("x")); got != "a | b c; x" {
		t.Errorf("oneLine = %q", got)
	}
	if got := oneLine("", errors.New("x")); got != "x" {
		t.Errorf("oneLine = %q", got)
	}
}
