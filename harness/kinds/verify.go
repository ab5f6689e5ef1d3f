package kinds

import (
	"context"
	"io"
	"time"

	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
)

// VerifyOptions say what `bindrace verify` checks.
type VerifyOptions struct {
	Targets   []string
	Scenarios []scenario.Scenario
	CPUs      string            // the server's taskset list; "": not pinned
	DB        measure.DBOptions // the database scenarios' database
	ServerLog io.Writer
	Events    measure.Events
	// ScenariosGiven: the user named the scenarios, so one a target's definition does not
	// claim is refused; otherwise each target is checked on the scenarios it claims.
	ScenariosGiven bool
	// Report hears each check: a scenario of a target (its mismatches joined in err), or a
	// target that could not be started or stopped (scenario "").
	Report func(target, scenario string, err error)
	// Skipped hears a scenario a target's definition does not claim, left unchecked.
	Skipped func(target, scenario string)
}

// Verification is what a verify found: how many checks failed.
type Verification struct {
	Failed int `json:"failed"`
}

// Verify starts each target fresh on a rig of its own, checks every scenario (the database
// ones against the database), stops it, and goes on to the next whatever the last one did: the
// preflight of every session, target by target, each check reported. An error is one that
// stopped it: an interrupt, or a database that did not open.
func Verify(ctx context.Context, o VerifyOptions) (Result[Verification], error) {
	v := &Verification{}
	res := Result[Verification]{Summary: v}
	failed := map[string]bool{} // the targets a failed check was reported of
	report := func(target, sc string, err error) {
		if err != nil {
			v.Failed++
			failed[target] = true
		}
		o.Report(target, sc, err)
	}
	if o.ScenariosGiven {
		if err := checkServes(o.Targets, o.Scenarios); err != nil {
			return res, err
		}
	}
	pl := measure.Plan{Method: profile.Method{CPUsServer: o.CPUs}, StartTimeout: 30 * time.Second}
	rig, err := measure.NewRig(measure.Config{Plan: pl, Targets: o.Targets, ServerLog: o.ServerLog, Events: o.Events, OnVerified: report})
	if err != nil {
		return res, err
	}
	defer rig.Close()
	claimed, used := map[string][]scenario.Scenario{}, map[string]scenario.Scenario{}
	for _, t := range o.Targets {
		for _, sc := range o.Scenarios {
			if rig.Target(t).Refuses([]string{sc.Name}) != nil {
				o.Skipped(t, sc.Name)
				continue
			}
			claimed[t] = append(claimed[t], sc)
			used[sc.Name] = sc
		}
	}
	var scs []scenario.Scenario // in the order given, for the database's set-up
	for _, sc := range o.Scenarios {
		if _, ok := used[sc.Name]; ok {
			scs = append(scs, sc)
		}
	}
	if err := rig.OpenDatabase(ctx, o.DB, scs); err != nil {
		return res, err
	}
	for _, t := range o.Targets {
		if len(claimed[t]) == 0 {
			continue
		}
		err := rig.Preflight(ctx, []string{t}, claimed[t])
		switch {
		case ctx.Err() != nil:
			return res, err
		case err != nil && !failed[t]: // not a scenario: its start, or the database's reset after it
			report(t, "", err)
		}
	}
	return res, nil
}
