package counters

import (
	"context"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

// fixedDB is a Backend that renders every request with one id.
type fixedDB struct{}

func (fixedDB) Env() []string { return []string{"BINDRACE_DB_URL=postgres://nowhere"} }
func (fixedDB) Requests(sc scenario.Scenario, addr string) load.BuildFunc {
	return func(dst []byte, _ uint64) []byte { return sc.AppendRequest(dst, addr, 1) }
}

// TestCountRefusesWhatCannotServeTheDatabase: a database scenario counted without its
// database, or on a target without database routes, is refused in each mode before any server
// starts, with the reason; a fixed scenario needs no database.
func TestCountRefusesWhatCannotServeTheDatabase(t *testing.T) {
	getUser, _ := scenario.ByName("get-user")
	ping, _ := scenario.ByName("ping")
	binding, err := targets.Resolve("binding")
	if err != nil {
		t.Fatal(err)
	}
	static, err := targets.Resolve("binding-static")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	count := func(t *targets.Target, sc scenario.Scenario, db Backend) map[string]error {
		_, perf := Perf(ctx, t, sc, PerfOptions{DB: db})
		_, cg := Cachegrind(ctx, t, sc, 10, CachegrindOptions{DB: db})
		_, sys := PacedSyscalls(ctx, t, sc, PacedSyscallOptions{DB: db})
		return map[string]error{"perf": perf, "cachegrind": cg, "syscalls": sys}
	}
	for _, c := range []struct {
		name string
		t    *targets.Target
		db   Backend
		want string
	}{
		{"no database", binding, nil, "get-user serves from PostgreSQL"},
		{"static target", static, fixedDB{}, "has no database routes"},
	} {
		for mode, err := range count(c.t, getUser, c.db) {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: %v, want %q", c.name, mode, err, c.want)
			}
		}
	}
	if err := checkBackend(binding, nil, ping); err != nil {
		t.Errorf("ping without a database: %v", err)
	}
	if err := checkBackend(binding, fixedDB{}, getUser); err != nil {
		t.Errorf("get-user with one: %v", err)
	}
}
