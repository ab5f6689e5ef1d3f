package targets

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/scenario"
)

// Usage is a server process's resource use so far.
type Usage struct {
	CPUSeconds   float64 // user + system time of all its threads
	RSSBytes     int64   // resident set now
	PeakRSSBytes int64   // high-water mark of the resident set
}

// clockTicks is USER_HZ, which Linux fixes at 100 for /proc on every architecture we run on.
const clockTicks = 100

// Usage reads /proc/<pid>/stat (utime, stime: the process's, which sum its threads) and
// /proc/<pid>/status (VmRSS, VmHWM).
func (s *Server) Usage() (Usage, error) {
	var u Usage
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.Pid))
	if err != nil {
		return u, fmt.Errorf("target %s (pid %d): %w", s.Target, s.Pid, err)
	}
	cpu, err := parseStatCPU(string(stat))
	if err != nil {
		return u, fmt.Errorf("target %s (pid %d): /proc stat: %w", s.Target, s.Pid, err)
	}
	u.CPUSeconds = cpu
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.Pid))
	if err != nil {
		return u, fmt.Errorf("target %s (pid %d): %w", s.Target, s.Pid, err)
	}
	u.RSSBytes, u.PeakRSSBytes = parseStatusRSS(string(status))
	return u, nil
}

// parseStatCPU returns (utime+stime)/CLK_TCK. Fields are counted after the last ')', since the
// command name in parentheses may itself hold spaces and parentheses.
func parseStatCPU(stat string) (float64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed")
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("malformed: %d fields", len(f))
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("malformed utime/stime")
	}
	return float64(ut+st) / clockTicks, nil
}

func parseStatusRSS(status string) (rss, peak int64) {
	for _, line := range strings.Split(status, "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if key == "VmRSS" {
			rss = kb << 10
		} else {
			peak = kb << 10
		}
	}
	return rss, peak
}

// Info is what a scenario server says about itself on scenario.InfoPath.
type Info struct {
	HeapBytes int64 // Go heap in use, or V8's heapUsed summed over the server's isolates
	Threads   int   // threads it serves with; 0 when it did not say
	// Counters are running totals a server may keep of its own work (the binding: reads,
	// wake-ups, responses); PerResponse turns two readings into per-response figures.
	Counters map[string]float64
}

// PerResponse is how much each counter grew from before to i, per response; nil when the
// server keeps none.
func (i Info) PerResponse(before Info, responses int64) map[string]float64 {
	if len(i.Counters) == 0 || responses <= 0 {
		return nil
	}
	out := map[string]float64{}
	for k, v := range i.Counters {
		out[k] = (v - before.Counters[k]) / float64(responses)
	}
	return out
}

// Info asks the server for its heap in use and thread count on scenario.InfoPath.
func (s *Server) Info() (Info, error) { return InfoAt(s.Target, s.Addr()) }

// InfoAt asks target's server at addr (host:port) for its heap in use and thread count.
func InfoAt(target, addr string) (Info, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+scenario.InfoPath, nil)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return Info{}, fmt.Errorf("target %s: info: %w", target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return Info{}, fmt.Errorf("target %s: info: %w", target, err)
	}
	var h struct {
		HeapBytes *int64             `json:"heap_bytes"`
		Threads   int                `json:"threads"`
		Counters  map[string]float64 `json:"counters"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(body, &h) != nil || h.HeapBytes == nil {
		return Info{}, fmt.Errorf("target %s: info: GET %s answered %d %q, want {\"heap_bytes\": N, \"threads\": T}",
			target, scenario.InfoPath, resp.StatusCode, truncate(string(body), 200))
	}
	return Info{HeapBytes: *h.HeapBytes, Threads: h.Threads, Counters: h.Counters}, nil
}
