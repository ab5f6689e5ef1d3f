package counters

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

// TestMeasurePerfJSON: perf mode end to end (what `bindrace counters --json` prints) on the
// fasthttp target; on a host without a PMU the hardware counters are unsupported with reasons
// and there is no error (exit status 0).
func TestMeasurePerfJSON(t *testing.T) {
	softwareAllowed(t)
	var out, errb bytes.Buffer
	tg, err := targets.Resolve("fasthttp")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.ByName("ping")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Measure(context.Background(), tg, sc, Options{Mode: "perf", Warmup: 300 * time.Millisecond,
		Duration: time.Second, Connections: 16, Pipelining: 10, Workers: 1, Log: &errb})
	if err != nil {
		t.Fatalf("measure: %v: %s", err, errb.String())
	}
	if err := json.NewEncoder(&out).Encode(rep); err != nil {
		t.Fatal(err)
	}
	var r struct {
		Target, Scenario, Mode string
		Responses              int64
		WindowS                float64            `json:"window_s"`
		PerResponse            map[string]float64 `json:"per_response"`
		Totals                 map[string]float64
		Unsupported            map[string]string
		ServerCPUS             float64 `json:"server_cpu_s"`
	}
	dec := json.NewDecoder(&out)
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out.String())
	}
	if dec.More() {
		t.Error("more than one JSON value on stdout")
	}
	t.Logf("%+v", r)
	if r.Target != "fasthttp" || r.Scenario != "ping" || r.Mode != "perf" || r.Responses <= 0 || r.WindowS < 0.9 {
		t.Errorf("header fields: %+v", r)
	}
	if r.PerResponse[TaskClockNs] <= 0 {
		t.Errorf("task-clock per response %v", r.PerResponse[TaskClockNs])
	}
	if kernelPMU() != nil {
		for _, h := range HardwareCounters {
			if _, ok := r.PerResponse[h]; ok {
				t.Errorf("%s reported without a PMU", h)
			}
			if r.Unsupported[h] == "" {
				t.Errorf("%s not in unsupported", h)
			}
		}
	}
}
