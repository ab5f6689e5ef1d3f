package report

import (
	"fmt"

	"github.com/bindrace/bindrace/harness/session"
)

// dbSection is a database scenario's data set and, for every run, the reset before it and
// the three parties' CPU and memory with the bottleneck (stored fields only).
func dbSection(d *document, s *session.Summary) {
	db := s.Database
	if db == nil {
		return
	}
	d.h2("PostgreSQL, reset and the three parties")
	where := "a private PostgreSQL " + db.Version + " the harness started"
	if db.External {
		where = "an external PostgreSQL (the db_url setting): its resources were not sampled"
	}
	d.p(fmt.Sprintf("Data set at scale %g (%d users, %d orders), ids drawn %s, pool of %d connections per target, on %s. The trial database was cloned afresh from the seeded template before every run.",
		db.Scale, db.Users, db.Orders, db.Keys, db.Pool, where))
	if len(db.Notes) > 0 {
		d.list(db.Notes...)
	}
	var rows [][]string
	for _, p := range s.Pairs {
		for _, r := range []session.Run{p.A, p.B} {
			if r.DB == nil {
				continue
			}
			x := r.DB
			pg := fmt.Sprintf("%.0f%% · %.0f MiB PSS (%d processes)", x.PGCPUPct, x.PGPSSMiB, x.PGProcesses)
			if x.External {
				pg = "external"
			}
			rows = append(rows, []string{fmt.Sprintf("%02d %s", p.Index, p.Order), r.Target, fmt.Sprintf("%.0f ms", x.ResetMs),
				fmt.Sprintf("%.0f%% · %.0f MiB", r.ServerCPUPct, r.RSSMiB), pg,
				fmt.Sprintf("%.0f%% · %.0f MiB", x.ClientCPUPct, x.ClientRSSMiB), x.Bottleneck})
		}
	}
	d.table([]string{"pair", "target", "reset", "server CPU · RSS", "PostgreSQL CPU · memory", "load generator CPU · RSS", "bottleneck"}, rows)
	d.p("CPU is in % of one core over the measured window. The bottleneck is the party at " +
		"90% or more of its CPU allotment (the server's cores, PostgreSQL's and the load generator's CPUs; " +
		"\"client CPUs\" when PostgreSQL and the load generator share them and together fill them), else none.")
}
