package measure

import (
	"context"
	"time"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

// backend is what serving a session's scenarios needs besides the server: nothing for the
// fixed scenarios (plain), the trial database for the database ones (*Database).
type backend interface {
	// Env is what every server of the session is started with.
	Env() []string
	// Requests renders sc's requests for addr one by one (a database scenario's, each with the
	// next id of its key sequence, so both sides of a count ask for the same rows in the same
	// order); nil: sc's own fixed request.
	Requests(sc scenario.Scenario, addr string) load.BuildFunc
	// prepare readies spec's run before its server starts; it returns how long that took.
	prepare(ctx context.Context, spec Spec) (time.Duration, error)
	// verify checks that target at addr serves scs.
	verify(ctx context.Context, target, addr string, scs []scenario.Scenario) error
	// verified is called after a target's preflight verification of scs.
	verified(ctx context.Context, scs []scenario.Scenario) error
}

// plain is the backend of sessions without a database.
type plain struct{}

func (plain) Env() []string                                        { return nil }
func (plain) prepare(context.Context, Spec) (time.Duration, error) { return 0, nil }
func (plain) verified(context.Context, []scenario.Scenario) error  { return nil }
func (plain) Requests(scenario.Scenario, string) load.BuildFunc    { return nil }

func (plain) verify(ctx context.Context, target, addr string, scs []scenario.Scenario) error {
	return targets.Verify(ctx, target, addr, scs)
}
