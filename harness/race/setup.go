package race

import (
	"context"
	"errors"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
)

// setup is what a race and a matrix hold once set up, before their first measurement.
type setup struct {
	eng     *engine
	man     *session.Manifest // the environment, the targets' versions, the method
	started time.Time
	restore func() // unpins the load generator
}

// setUp is the skeleton race and matrix share: an engine with the targets resolved, the
// manifest, the load generator pinned to the client CPUs, announce (the command's own progress
// lines, given the manifest) and a preflight of every target on every scenario. On success the
// caller must call close.
func setUp(ctx context.Context, o *Options, pl Plan, prog *Progress, names []string, scs []scenario.Scenario,
	method []string, announce func(man *session.Manifest)) (*setup, error) {
	if err := checkRemote(o, &pl); err != nil {
		return nil, err
	}
	eng := newEngine(pl, prog, o.ServerLog)
	eng.fleet = o.Fleet
	if err := eng.resolve(names...); err != nil {
		eng.stopAll()
		return nil, err
	}
	st := &setup{eng: eng, started: time.Now().UTC(), man: machine.Environment(o.Command)}
	st.man.Targets = map[string]map[string]string{}
	for _, n := range names {
		st.man.Targets[n] = eng.resolved[n].Versions()
	}
	st.man.Method = method
	restore, err := machine.PinSelf(pl.CPUsClient)
	if err != nil {
		eng.stopAll()
		return nil, err
	}
	st.restore = restore
	announce(st.man)
	// After pinning: a private PostgreSQL inherits the load generator's CPUs.
	if err := eng.openSessionDB(ctx, o.DB, scs); err != nil {
		st.close()
		return nil, err
	}
	if err := eng.preflight(ctx, names, scs); err != nil {
		st.close()
		if ctx.Err() != nil {
			return nil, errors.New(interruptReason(ctx, err) + " before measuring; nothing saved")
		}
		return nil, err
	}
	return st, nil
}

// close unpins the load generator and stops every server still running.
func (st *setup) close() {
	st.restore()
	st.eng.stopAll()
	st.eng.closeDB()
}
