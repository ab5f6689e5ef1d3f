package counters

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestCommandErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--help"}, 0, "--mode"},
		{[]string{}, 2, "--target is required"},
		{[]string{"--target", "nope"}, 2, `unknown target "nope"`},
		{[]string{"--target", "fasthttp", "--scenario", "nope"}, 2, `unknown scenario "nope"`},
		{[]string{"--target", "fasthttp", "--mode", "x"}, 2, "unknown --mode"},
		{[]string{"--target", "fasthttp", "--bogus"}, 2, "unknown flag"},
		{[]string{"--target", "fasthttp", "--cpus-server", "99"}, 2, "CPU 99"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := Command(c.args, &out, &errb)
		if code != c.code || !strings.Contains(out.String()+errb.String(), c.want) {
			t.Errorf("%v: exit %d (want %d), stdout %q stderr %q, want %q", c.args, code, c.code, out.String(), errb.String(), c.want)
		}
	}
}

func TestCommandValgrindMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	code := Command([]string{"--target", "fasthttp", "--mode", "cachegrind", "--n", "10", "--cpus-client", "none"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "run scripts/setup.sh") {
		t.Errorf("exit %d stderr %q", code, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q", out.String())
	}
}

// TestCommandPerfJSON: perf mode end to end through the CLI on the fasthttp target; on a host
// without a PMU the hardware counters are unsupported with reasons and the exit status is 0.
func TestCommandPerfJSON(t *testing.T) {
	softwareAllowed(t)
	var out, errb bytes.Buffer
	code := Command([]string{"--target", "fasthttp", "--scenario", "ping", "--warmup", "300ms", "--duration", "1s",
		"--connections", "16", "--cpus-client", "none", "--json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
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
