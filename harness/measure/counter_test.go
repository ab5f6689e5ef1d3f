package measure

import (
	"context"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
)

// fixedDB is a backend that renders every request with one id, and starts nothing.
type fixedDB struct{ plain }

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
	ctx := context.Background()
	count := func(target string, db backend) map[string]error {
		c := counterOf(t, target, "", nil)
		c.r.backend = db
		_, perf := c.Perf(ctx, target, getUser, PerfOptions{})
		_, cg := c.Cachegrind(ctx, target, getUser, 10, CachegrindOptions{})
		_, sys := c.PacedSyscalls(ctx, target, getUser, PacedSyscallOptions{})
		return map[string]error{"perf": perf, "cachegrind": cg, "syscalls": sys}
	}
	for _, c := range []struct {
		name, target string
		db           backend
		want         string
	}{
		{"no database", "binding", plain{}, "get-user serves from PostgreSQL"},
		{"static target", "binding-static", fixedDB{}, "does not serve get-user"},
	} {
		for mode, err := range count(c.target, c.db) {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: %v, want %q", c.name, mode, err, c.want)
			}
		}
	}
	binding := counterOf(t, "binding", "", nil).r.targets["binding"]
	if err := checkBackend(binding, plain{}, ping); err != nil {
		t.Errorf("ping without a database: %v", err)
	}
	if err := checkBackend(binding, fixedDB{}, getUser); err != nil {
		t.Errorf("get-user with one: %v", err)
	}
}
