package counters

import (
	"fmt"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

// Backend is what a database scenario's server serves from (measure.Database): the
// environment that names the trial database, and the requests, each with the next id of the
// scenario's key sequence, so that both sides of a count ask for the same rows in the same
// order. A count of a fixed scenario needs none (nil).
type Backend interface {
	Env() []string
	// Requests renders sc's requests for addr one by one; nil: sc's own fixed request.
	Requests(sc scenario.Scenario, addr string) load.BuildFunc
}

// checkBackend says why t cannot be counted serving sc from b, nil when it can.
func checkBackend(t *targets.Target, b Backend, sc scenario.Scenario) error {
	if sc.Database == "" {
		return nil
	}
	if err := t.RefusesDB([]string{sc.Name}); err != nil {
		return err
	}
	if b == nil || b.Requests(sc, "") == nil {
		return fmt.Errorf("%s serves from PostgreSQL: its count needs the trial database beside the server (bindrace counters and race open one)", sc.Name)
	}
	return nil
}

// backendEnv is the environment b gives every server it counts.
func backendEnv(b Backend) []string {
	if b == nil {
		return nil
	}
	return b.Env()
}

// backendRequests renders sc's requests for addr (nil: sc's fixed request).
func backendRequests(b Backend, sc scenario.Scenario, addr string) load.BuildFunc {
	if b == nil {
		return nil
	}
	return b.Requests(sc, addr)
}
