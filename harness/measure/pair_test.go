package measure

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/testbin"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
)

// The pair tests race the Go targets' go-server, built for them by testbin; the rss-growth
// tests run this binary as a server that keeps memory per response (count_rss_test.go).
func TestMain(m *testing.M) {
	if keep := os.Getenv(keepingServerEnv); keep != "" {
		serveKeeping(keep, os.Args[len(os.Args)-1])
		return
	}
	os.Exit(testbin.Run(m))
}

// testRig is a rig over nethttp and fasthttp measuring short windows: windows per run, no
// cooldown or busy sample.
func testRig(t *testing.T, windows int) (*Rig, [2]Spec) {
	t.Helper()
	p := profile.Default()
	p.Windows, p.Warmup, p.Duration, p.Settle = windows, profile.Duration(50*time.Millisecond), profile.Duration(150*time.Millisecond), 0
	p.Cooldown, p.BusySample = 0, 0
	pl, err := NewPlan(&p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRig(Config{Plan: pl, Targets: []string{"nethttp", "fasthttp"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	sc, _ := scenario.ByName("ping")
	spec := func(target string, slot int) Spec {
		return Spec{Target: target, Scenario: sc, Connections: 4, Pipelining: 1, Slot: slot, Label: target}
	}
	return r, [2]Spec{spec("nethttp", 0), spec("fasthttp", 1)}
}

// hook sets aside the rounds of the indexes given, records every round it sees and how many
// extra rounds were left then.
type hook struct {
	mu     sync.Mutex
	aside  map[int]bool
	rounds []Round
}

func (h *hook) afterRound(r Round) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.rounds = append(h.rounds, r)
	if h.aside[r.Index] {
		return "steal over the limit"
	}
	return ""
}

// Interleaved windows alternate A B, B A, A B over every round measured; a round the hook sets
// aside is kept in both runs, marked and out of every figure, and measured again while extra
// rounds are left.
func TestPairInterleavedSetAside(t *testing.T) {
	r, seq := testRig(t, 2)
	h := &hook{aside: map[int]bool{1: true}}
	runs, err := r.Pair(context.Background(), seq, PairOptions{AfterRound: h.afterRound, MaxExtraRounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, run := range runs {
		if len(run.Windows) != 3 {
			t.Fatalf("side %d: %d windows, want 3 (2 planned, 1 again)", i, len(run.Windows))
		}
		for w, win := range run.Windows {
			if win.Index != w || !win.Closed || win.Usage == nil || win.Counts == nil || win.Machine == nil {
				t.Errorf("side %d window %d: %+v, want a closed window with every probe's part", i, w, win)
			}
			if aside := win.SetAside != ""; aside != (w == 1) {
				t.Errorf("side %d window %d set aside %q", i, w, win.SetAside)
			}
		}
		rec := run.Record
		if len(rec.Windows) != 2 || len(rec.PerWindow) != 3 || rec.PerWindow[1].SetAside == "" || rec.Error != "" {
			t.Errorf("side %d: record windows %v, per_window %+v, error %q", i, rec.Windows, rec.PerWindow, rec.Error)
		}
		if want := run.Windows[0].Load.Responses + run.Windows[2].Load.Responses; rec.Responses != want {
			t.Errorf("side %d: %d responses, want the kept windows' %d", i, rec.Responses, want)
		}
	}
	for round := range 3 {
		first, second := runs[0].Windows[round].At, runs[1].Windows[round].At
		if (round%2 == 0) != first.Before(second) {
			t.Errorf("round %d: A at %s, B at %s; want A first in even rounds, B first in odd", round, first, second)
		}
	}
	if len(h.rounds) != 3 || h.rounds[0].ExtraLeft != 1 || h.rounds[1].ExtraLeft != 1 || h.rounds[2].ExtraLeft != 0 {
		t.Errorf("the hook saw %d rounds, extra left %v", len(h.rounds), extraLeft(h.rounds))
	}
}

// With the extra rounds spent, a round set aside stays set aside and is not measured again.
func TestPairSetAsideCapped(t *testing.T) {
	r, seq := testRig(t, 2)
	h := &hook{aside: map[int]bool{0: true, 1: true, 2: true}}
	runs, err := r.Pair(context.Background(), seq, PairOptions{AfterRound: h.afterRound, MaxExtraRounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Round 0 set aside and measured again (the one extra round); rounds 1 and 2 set aside with
	// none left, so they take the two planned places: 3 rounds, none counted.
	if n := len(runs[0].Windows); n != 3 {
		t.Fatalf("%d windows, want 3 (2 planned + 1 extra)", n)
	}
	if rec := runs[0].Record; rec.Responses != 0 || len(rec.PerWindow) != 3 || !strings.HasPrefix(rec.Error, "no window kept: all 3 set aside (last: ") {
		t.Errorf("every round set aside: %d responses counted, per_window %+v, error %q", rec.Responses, rec.PerWindow, rec.Error)
	}
}

// With one window per run, a pair is two fresh processes; a round set aside is two fresh
// processes again, the set-aside windows first in each run.
func TestPairApartSetAside(t *testing.T) {
	r, seq := testRig(t, 1)
	h := &hook{aside: map[int]bool{0: true}}
	runs, err := r.Pair(context.Background(), seq, PairOptions{AfterRound: h.afterRound, MaxExtraRounds: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, run := range runs {
		if len(run.Windows) != 2 || run.Windows[0].SetAside == "" || run.Windows[1].SetAside != "" || run.Windows[1].Index != 1 {
			t.Fatalf("side %d: windows %+v, want the set-aside one, then the kept one", i, run.Windows)
		}
		if rec := run.Record; rec.Responses != run.Windows[1].Load.Responses || len(rec.PerWindow) != 2 {
			t.Errorf("side %d: record %d responses, per_window %d", i, rec.Responses, len(rec.PerWindow))
		}
	}
	if !runs[0].Windows[1].At.Before(runs[1].Windows[1].At) || !runs[1].Windows[0].At.Before(runs[0].Windows[1].At) {
		t.Error("want A, B, then A, B again")
	}
	if len(h.rounds) != 2 {
		t.Errorf("the hook saw %d rounds, want 2", len(h.rounds))
	}
}

// Without a hook a pair measures exactly the plan's windows, none set aside.
func TestPairPlain(t *testing.T) {
	r, seq := testRig(t, 2)
	runs, err := r.Pair(context.Background(), seq, PairOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, run := range runs {
		rec := run.Record
		if len(run.Windows) != 2 || len(rec.Windows) != 2 || rec.RPS <= 0 || rec.StartupMs <= 0 || rec.PeakRSSMiB <= 0 || rec.Threads == 0 {
			t.Errorf("side %d: %d windows, record %+v", i, len(run.Windows), rec)
		}
		if f, ok := rec.Readings[MinorFaultsReading]; !ok || f.Value < 0 || f.Label == "" || !f.LowerIsBetter {
			t.Errorf("side %d: minor faults reading %+v (present %v)", i, f, ok)
		}
	}
}

func extraLeft(rs []Round) []int {
	var out []int
	for _, r := range rs {
		out = append(out, r.ExtraLeft)
	}
	return out
}
