package session

import "fmt"

// DecodeRaw decodes and checks raw.json, read from path: every run as measured.
func DecodeRaw(path string, b []byte) (*Raw, error) {
	var r Raw
	if err := decodeObject(path, b, &r); err != nil {
		return nil, err
	}
	if err := checkRuns(path, "runs", r.Runs); err != nil {
		return nil, err
	}
	return &r, nil
}

func checkRuns(path, field string, runs []Run) error {
	for i, r := range runs {
		if err := checkRun(path, fmt.Sprintf("%s[%d]", field, i), r); err != nil {
			return err
		}
	}
	return nil
}

// checkRun: a run's figures are amounts, none below 0 (counts and the range of every number
// are decodeObject's).
func checkRun(path, field string, r Run) error {
	for _, f := range []struct {
		name string
		x    float64
	}{
		{"rps", r.RPS}, {"duration_s", r.DurationS}, {"p50_ms", r.P50Ms}, {"p95_ms", r.P95Ms},
		{"p99_ms", r.P99Ms}, {"p999_ms", r.P999Ms}, {"max_ms", r.MaxMs}, {"server_cpu_pct", r.ServerCPUPct},
		{"rps_per_cpu_second", r.RPSPerCPUSecond}, {"saturation_pct", r.SaturationPct}, {"rss_mib", r.RSSMiB},
		{"peak_rss_mib", r.PeakRSSMiB}, {"heap_mib", r.HeapMiB}, {"startup_ms", r.StartupMs},
		{"busy_pct", r.BusyPct}, {"steal_pct", r.StealPct},
	} {
		if f.x < 0 {
			return refuse(path, field+"."+f.name, "%g is negative", f.x)
		}
	}
	for i, w := range r.Windows {
		if w < 0 {
			return refuse(path, fmt.Sprintf("%s.windows[%d]", field, i), "%g is negative", w)
		}
	}
	for i, w := range r.PerWindow {
		for thread, pct := range w.ThreadELUPct {
			if pct < 0 || pct > 100 {
				return refuse(path, fmt.Sprintf("%s.per_window[%d].thread_elu_pct.%s", field, i, thread), "%g is not a share in %%", pct)
			}
		}
	}
	return nil
}
