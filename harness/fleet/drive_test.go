package fleet

import (
	"bytes"
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

func TestReadResultRefusesGarbage(t *testing.T) {
	if _, err := readResult([]byte("not json")); err == nil {
		t.Error("no error for output that is not JSON")
	}
	if _, err := readResult([]byte(`{"responses": 1, "hist": "####"}`)); err == nil || !strings.Contains(err.Error(), "histogram") {
		t.Errorf("bad histogram: %v", err)
	}
}
