package measure

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/internal/engine"
	"github.com/bindrace/bindrace/harness/internal/loopback"
	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
	"github.com/bindrace/bindrace/harness/targets"
)

// window is a closed window of d that served responses, its server busy for cpu seconds of it,
// on a machine that lost steal% to the hypervisor.
func window(responses int64, d time.Duration, cpu, steal float64) Window {
	return Window{Opened: true, Closed: true,
		Load:    &load.Result{Responses: responses, Elapsed: d, RPS: float64(responses) / d.Seconds()},
		Usage:   &Usage{Start: procfs.Usage{CPUSeconds: 10, RSSBytes: 8 << 20}, End: procfs.Usage{CPUSeconds: 10 + cpu}, Wall: d},
		Machine: &MachineTime{StealPct: steal}}
}

// A run is client-bound when its server used under 90% of its allotted cores over the kept
// windows; never when it is an open loop, was cut short, or its server's CPU was not read.
func TestClientBound(t *testing.T) {
	busy := Run{Windows: []Window{window(1000, time.Second, 0.95, 0)}}
	idle := Run{Windows: []Window{window(1000, time.Second, 0.5, 0)}}
	open := Run{Windows: []Window{window(1000, time.Second, 0.5, 0)}}
	open.Windows[0].Load.Open = &engine.OpenLoop{Rate: 1000}
	cut := idle
	cut.Err = errors.New("target died")
	unread := Run{Windows: []Window{window(1000, time.Second, 0.5, 0)}}
	unread.Windows[0].Usage = nil
	// The idle window set aside leaves the busy one: the run is not client-bound.
	aside := Run{Windows: []Window{window(1000, time.Second, 0.2, 0), window(1000, time.Second, 0.95, 0)}}
	aside.Windows[0].SetAside = "steal 9% (limit 5%)"
	for _, c := range []struct {
		name  string
		run   Run
		allot float64
		want  bool
	}{
		{"saturated", busy, 1, false}, {"half idle", idle, 1, true}, {"two cores, one used", busy, 2, true},
		{"a 50% cap reached", idle, 0.5, false}, {"open loop", open, 1, false}, {"cut short", cut, 1, false},
		{"CPU not read", unread, 1, false}, {"the idle window set aside", aside, 1, false},
	} {
		if got := ClientBound(c.run, c.allot); got != c.want {
			t.Errorf("%s: ClientBound = %v, want %v", c.name, got, c.want)
		}
	}
}

// A run's record counts its kept windows only; every window, the set-aside one too, is in
// per_window with its throughput, server CPU and steal, marked; windows lists the kept ones.
func TestRecordSetAside(t *testing.T) {
	sc, _ := scenario.ByName("ping")
	rec := &recorder{plan: Plan{Method: profile.Method{CPUsServer: "1", CPUsClient: "0"}},
		targets: map[string]*targets.Target{"binding": {Name: "binding"}}, artefact: map[string]int64{"binding": 42},
		probes: func() []Probe { return []Probe{machineProbe{}, countsProbe{}, usageProbe{}} }}
	run := Run{Spec: Spec{Target: "binding", Scenario: sc, Slot: 1}, Ran: true, Startup: 25 * time.Millisecond,
		Windows: []Window{window(1000, time.Second, 0.99, 0.5), window(500, time.Second, 0.99, 12), window(1200, time.Second, 0.99, 0.25)}}
	run.Windows[1].SetAside = "steal 12% over 5%"
	got := rec.record(run)
	if got.Responses != 2200 || got.RPS != 1100 || !reflect.DeepEqual(got.Windows, []float64{1000, 1200}) {
		t.Errorf("responses %d, rps %v, windows %v; want 2200, 1100 and the kept two", got.Responses, got.RPS, got.Windows)
	}
	want := []session.Window{{RPS: 1000, ServerCPUPct: 99, StealPct: 0.5}, {RPS: 500, ServerCPUPct: 99, StealPct: 12, SetAside: "steal 12% over 5%"},
		{RPS: 1200, ServerCPUPct: 99, StealPct: 0.25}}
	if !reflect.DeepEqual(got.PerWindow, want) {
		t.Errorf("per_window %+v\nwant %+v", got.PerWindow, want)
	}
	if got.ServerCPUPct != 99 || got.SaturationPct != 99 || got.RPSPerCPUSecond != 1111.11 || got.RSSMiB != 8 || got.ClientBound || got.ArtifactBytes != 42 || got.StartupMs != 25 {
		t.Errorf("record %+v", got)
	}
}

// TestMinorFaults: the server's minor page faults are summed over the closed windows that
// sampled them; a window left open (an interrupt) or unsampled adds nothing.
func TestMinorFaults(t *testing.T) {
	w := func(closed bool, from, to uint64) Window {
		return Window{Closed: closed, Usage: &Usage{Start: procfs.Usage{MinorFaults: from}, End: procfs.Usage{MinorFaults: to}}}
	}
	got, ok := minorFaults([]Window{w(true, 10, 30), w(false, 30, 99), {Closed: true}, w(true, 40, 45)})
	if !ok || got != 25 {
		t.Errorf("minorFaults = %v, %v; want 25, true", got, ok)
	}
	if _, ok := minorFaults([]Window{{Closed: true}}); ok {
		t.Error("a run no window of which sampled its faults has a figure")
	}
}

// Replies that are not HTTP reach the gate: a live load against a listener that answers every
// other request with garbage counts them as malformed errors, the run's record keeps them by
// kind, its side counts them, and the gate's error check FAILs the side that made them (the
// issue's "a run where only some replies were not HTTP").
func TestMalformedRepliesReachTheGate(t *testing.T) {
	addr := loopback.ServeHalfGarbage(t)
	res, err := load.Run(context.Background(), load.Config{Addr: addr, Requests: [][]byte{[]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")},
		Connections: 2, Pipelining: 1, Workers: 1, Duration: 300 * time.Millisecond, Timeout: 200 * time.Millisecond}, load.Hooks{})
	if err != nil || res.Responses == 0 || res.Errors["malformed"] == 0 {
		t.Fatalf("load: %v, %d responses, errors %v: want both", err, res.Responses, res.Errors)
	}
	w := window(res.Responses, res.Elapsed, 0.99, 0)
	w.Load = res
	rec := &recorder{targets: map[string]*targets.Target{"binding": {Name: "binding"}}, probes: func() []Probe { return nil }}
	got := rec.record(Run{Spec: Spec{Target: "binding"}, Ran: true, Windows: []Window{w}})
	if got.ErrorsByKind["malformed"] != res.Errors["malformed"] || got.Errors < got.ErrorsByKind["malformed"] {
		t.Fatalf("record: errors %d by kind %v; the load counted %v", got.Errors, got.ErrorsByKind, res.Errors)
	}
	s := &session.Summary{}
	s.A, s.B, s.Thresholds.MaxErrors = "binding", "binding", 0
	s.StatsA, s.StatsB = stats.Side([]session.Run{got}), stats.Side(nil)
	if v, reasons, _ := gate.Decide(s, nil); v != session.Fail || !strings.Contains(strings.Join(reasons, "\n"), fmt.Sprintf("errors: binding %d", got.Errors)) {
		t.Errorf("gate: %s %q; want FAIL on A's %d errors", v, reasons, got.Errors)
	}
}
