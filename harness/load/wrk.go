package load

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// wrkScript sends Pipelining copies of the request in one write, as Config does, and writes the
// summary as JSON to $BINDRACE_WRK_OUT (wrk's own text is for people).
//
//go:embed wrk.lua
var wrkScript string

// RunWrk drives cfg's load with wrk instead of the built-in client: the same connections,
// pipelining and windows (a warm-up run, then the measured one with the hooks at its edges), so
// a reader can check that a headline is not the built-in client's artefact. wrk runs on the
// calling process's CPUs (the harness pins itself to the client's). Only Duration mode and one
// request are supported, and wrk takes whole seconds: both windows are rounded up to one (the
// result's Elapsed is wrk's own). Latency counts from each batch's write, as the built-in client
// does; with pipelining wrk's percentiles are wrong (wrk.lua says why), so only mean and max
// are kept and the p99 check of such a race is INCONCLUSIVE.
func RunWrk(ctx context.Context, cfg Config, h Hooks) (*Result, error) {
	cfg, err := cfg.Normalized()
	if err != nil {
		return nil, err
	}
	if cfg.Protocol != HTTP || cfg.Count > 0 || len(cfg.Requests) != 1 {
		return nil, errors.New("load: wrk drives one request for a duration (HTTP, no count, one request)")
	}
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		return nil, errors.New("load: wrk is not installed (scripts/setup.sh installs it)")
	}
	dir, err := os.MkdirTemp("", "bindrace-wrk-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	script, req, out := filepath.Join(dir, "pipeline.lua"), filepath.Join(dir, "request"), filepath.Join(dir, "summary.json")
	if err := os.WriteFile(script, []byte(wrkScript), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(req, cfg.Requests[0], 0o644); err != nil {
		return nil, err
	}
	run := func(d time.Duration) (*wrkSummary, error) {
		os.Remove(out)
		args := []string{"-t", strconv.Itoa(cfg.Workers), "-c", strconv.Itoa(cfg.Connections), "-d", wholeSeconds(d),
			"--timeout", wholeSeconds(cfg.Timeout),
			"-s", script, "http://" + cfg.Addr + "/", "--", req, strconv.Itoa(cfg.Pipelining)}
		cmd := exec.CommandContext(ctx, wrk, args...)
		cmd.Env = append(os.Environ(), "BINDRACE_WRK_OUT="+out, "BINDRACE_WRK_PIPELINING="+strconv.Itoa(cfg.Pipelining))
		if text, err := cmd.CombinedOutput(); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%w: %w", ErrIncomplete, ctx.Err())
			}
			return nil, fmt.Errorf("load: wrk: %v: %s", err, tail(text))
		}
		b, err := os.ReadFile(out)
		if err != nil {
			return nil, fmt.Errorf("load: wrk wrote no summary: %w", err)
		}
		var s wrkSummary
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("load: wrk summary %q: %w", tail(b), err)
		}
		return &s, nil
	}
	if cfg.Warmup > 0 {
		if _, err := run(cfg.Warmup); err != nil {
			return nil, err
		}
	}
	if h.MeasureStart != nil {
		h.MeasureStart()
	}
	s, err := run(cfg.Duration)
	if h.MeasureEnd != nil {
		h.MeasureEnd()
	}
	if err != nil {
		return nil, err
	}
	return s.result(), nil
}

// wrkSummary is what wrk.lua's done() writes: counts, and latencies in µs.
type wrkSummary struct {
	DurationUs float64            `json:"duration_us"`
	Requests   int64              `json:"requests"`
	Bytes      int64              `json:"bytes"`
	Errors     map[string]int64   `json:"errors"`
	Latency    map[string]float64 `json:"latency_us"` // p50 p95 p99 p999 max mean
}

func (s *wrkSummary) result() *Result {
	elapsed := time.Duration(s.DurationUs * float64(time.Microsecond))
	res := &Result{Responses: s.Requests, Elapsed: elapsed, BytesRead: s.Bytes, Errors: map[string]int64{}}
	if elapsed > 0 {
		res.RPS = float64(s.Requests) / elapsed.Seconds()
	}
	ms := func(k string) float64 { return max(s.Latency[k], 0) / 1000 } // -1: not measured (0 in a Run)
	res.Latency = Latency{P50: ms("p50"), P95: ms("p95"), P99: ms("p99"), P999: ms("p999"), Max: ms("max"), Mean: ms("mean")}
	for k, v := range s.Errors {
		if v != 0 {
			res.Errors[k] = v
		}
	}
	return res
}

// wholeSeconds is d for wrk, which takes whole seconds only: rounded up, at least one.
func wholeSeconds(d time.Duration) string {
	return strconv.Itoa(max(1, int((d+time.Second-1)/time.Second))) + "s"
}

func tail(b []byte) string {
	if len(b) > 400 {
		b = b[len(b)-400:]
	}
	return string(b)
}
