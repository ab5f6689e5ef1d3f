package main

import (
	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/measure"
)

// addDBFlags registers the database scenarios' flags (race, matrix, verify, counters).
func addDBFlags(fs *pflag.FlagSet) *measure.DBOptions {
	o := &measure.DBOptions{}
	fs.StringVar(&o.URL, "db-url", "", "database scenarios: an external PostgreSQL (postgres://user:password@host:port/DB, a role that may create databases) instead of the private cluster bindrace starts; DB is the database the targets use (cloned from DB_template), taken only if it is new, empty or bindrace's own; without DB (or with postgres) bindrace uses its own, bindrace and bindrace_template; its resources are not sampled")
	fs.Float64Var(&o.Scale, "db-scale", 1, "database scenarios: scale of the data set (1: 100,000 users, 1,000,000 orders, 3,000,000 items; 0.01 for a quick run)")
	fs.IntVar(&o.Pool, "db-pool", db.DefaultPoolSize, "database scenarios: connections in every target's pool")
	fs.StringVar(&o.Dir, "db-dir", "", "database scenarios: where the private cluster and its seeded template live (default build/pg, reused between runs)")
	fs.StringVar(&o.Keys, "keys", "uniform", `database scenarios: how ids are drawn per request: "uniform", "hot" (one id) or "zipf" (skewed)`)
	return o
}
