package targets

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/scenario"
)

// Usage reads the server's CPU time and memory from /proc.
func (s *Server) Usage() (procfs.Usage, error) {
	u, err := procfs.ReadUsage(s.Pid)
	if err != nil {
		return u, fmt.Errorf("target %s (pid %d): %w", s.Target, s.Pid, err)
	}
	return u, nil
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
