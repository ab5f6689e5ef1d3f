package kinds

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/scenario"
)

// TestCountersPerfJSON: perf mode end to end (what `bindrace counters --json` prints) on the
// fasthttp target. Every hardware counter is either counted (a PMU) or unsupported with its
// reason (none, as in most VMs), never both and never a zero, and that is no error.
func TestCountersPerfJSON(t *testing.T) {
	sc, err := scenario.ByName("ping")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Counters(context.Background(), CountersOptions{Target: "fasthttp", Scenario: sc, Mode: "perf",
		Warmup: 300 * time.Millisecond, Duration: time.Second, Connections: 16, Pipelining: 10, Workers: 1})
	rep := res.Summary
	if res.Dir != "" {
		t.Errorf("counters saved a session in %s", res.Dir)
	}
	if errors.Is(err, ErrNoCounters) {
		// A skip only where the machine itself refuses perf_event_open, asked directly of this
		// process; where it allows it, no counter read is the kind's failure.
		if why := perfRefused(); why != "" {
			t.Skipf("perf_event_open is refused on this machine (%s): no counter can be read; the kind said %v", why, rep.Unsupported)
		}
		t.Fatalf("no counter read, though this machine allows perf_event_open: %v", rep.Unsupported)
	}
	if err != nil {
		t.Fatalf("counters: %v", err)
	}
	var out bytes.Buffer
	if err := json.NewEncoder(&out).Encode(rep); err != nil {
		t.Fatal(err)
	}
	var r struct {
		Target, Scenario, Mode string
		Responses              int64
		WindowS                float64            `json:"window_s"`
		PerResponse            map[string]float64 `json:"per_response"`
		Unsupported            map[string]string
	}
	dec := json.NewDecoder(&out)
	if err := dec.Decode(&r); err != nil || dec.More() {
		t.Fatalf("not one JSON object: %v\n%s", err, out.String())
	}
	t.Logf("%+v", r)
	if r.Target != "fasthttp" || r.Scenario != "ping" || r.Mode != "perf" || r.Responses <= 0 || r.WindowS < 0.9 {
		t.Errorf("header fields: %+v", r)
	}
	if r.PerResponse[counters.TaskClockNs] <= 0 {
		t.Errorf("task-clock per response %v", r.PerResponse[counters.TaskClockNs])
	}
	for _, h := range counters.HardwareCounters {
		v, counted := r.PerResponse[h]
		why, refused := r.Unsupported[h]
		if counted == refused || counted && v == 0 || refused && why == "" {
			t.Errorf("%s: per response %v (%v), unsupported %q (%v): want one of the two, never a zero", h, v, counted, why, refused)
		}
	}
}

// TestCountersRefusesAModeThatDoesNotCountAlone: an unknown mode is named with the ones that
// count alone, and sample is sent to perf mode's sample setting.
func TestCountersRefusesAModeThatDoesNotCountAlone(t *testing.T) {
	sc, _ := scenario.ByName("ping")
	for mode, want := range map[string]string{"cycles": `unknown mode "cycles": want "perf", "cachegrind", "syscalls", "rss-growth"`, "sample": "mode sample does not count alone: it samples perf mode's window (sample)"} {
		_, err := Counters(context.Background(), CountersOptions{Target: "fasthttp", Scenario: sc, Mode: mode})
		if err == nil || err.Error() != want {
			t.Errorf("mode %s: %v, want %q", mode, err, want)
		}
	}
}

// perfRefused says why perf_event_open gives this process no counter at all, "" when it gives
// one (task-clock needs no PMU).
func perfRefused() string {
	sess, err := counters.StartPerf(os.Getpid())
	if err != nil {
		return err.Error()
	}
	tot, err := sess.Stop()
	switch {
	case err != nil:
		return err.Error()
	case len(tot.Values) == 0:
		return fmt.Sprint(tot.Unsupported)
	}
	return ""
}
