package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
)

var csvHeader = []string{"index", "order", "side", "slot", "target", "scenario", "rps", "responses",
	"p50_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "errors", "server_cpu_pct", "rps_per_cpu_second",
	"rss_mib", "peak_rss_mib", "heap_mib", "startup_ms", "artifact_bytes", "client_bound", "error"}

// writeCSV writes one row per run with a header. For a race, index is the pair, order AB/BA and
// side A/B; for a matrix, index is the round and order that round's target order; for a scale,
// index is the thread count and order "threads=T round=R". Numbers are
// unformatted (no separators) so spreadsheets read them.
func writeCSV(w io.Writer, sd *sessionDir) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	row := func(index int, order, side string, r session.Run) []string {
		f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
		return []string{strconv.Itoa(index), order, side, strconv.Itoa(r.Slot), r.Target, r.Scenario, f(r.RPS),
			strconv.FormatInt(r.Responses, 10), f(r.P50Ms), f(r.P95Ms), f(r.P99Ms), f(r.P999Ms), f(r.MaxMs),
			strconv.FormatInt(r.Errors, 10), f(r.ServerCPUPct), f(r.RPSPerCPUSecond), f(r.RSSMiB), f(r.PeakRSSMiB),
			f(r.HeapMiB), f(r.StartupMs), strconv.FormatInt(r.ArtifactBytes, 10), strconv.FormatBool(r.ClientBound), r.Error}
	}
	switch {
	case sd.sweep != nil:
		for _, p := range sd.sweep.Points {
			if err := cw.Write(row(p.Point+1, strconv.FormatFloat(p.Rate, 'f', -1, 64), "", p.Run)); err != nil {
				return err
			}
		}
	case sd.matrix != nil:
		m := sd.matrix
		for i, r := range m.Runs {
			round := matrixRound(m, i)
			order := ""
			if round < len(m.Orders) {
				order = strings.Join(m.Orders[round], " ")
			}
			if err := cw.Write(row(round+1, order, "", r)); err != nil {
				return err
			}
		}
	case sd.scale != nil:
		for _, r := range sd.scale.Runs {
			if err := cw.Write(row(r.ServerThreads, fmt.Sprintf("threads=%d round=%d", r.ServerThreads, r.Round+1), "", r.Run)); err != nil {
				return err
			}
		}
	default:
		for _, p := range sd.race.Pairs {
			// Rows in measured order: the first side of the pair first.
			first, second := row(p.Index, p.Order, "A", p.A), row(p.Index, p.Order, "B", p.B)
			if p.Order == "BA" {
				first, second = second, first
			}
			if err := cw.Write(first); err != nil {
				return err
			}
			if err := cw.Write(second); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
