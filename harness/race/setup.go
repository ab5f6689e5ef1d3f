package race

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/report"
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

// logWarnings adds the manifest's warnings to a session's own and logs them all.
func logWarnings(prog *Progress, warnings *[]string, man *session.Manifest) {
	*warnings = append(*warnings, man.Warnings...)
	for _, w := range *warnings {
		prog.Logf("warning: %s", w)
	}
}

// makeDir creates the session's folder: out, else one in ResultsDir named by the start time,
// the kind of session and its targets. On an error it closes st.
func (st *setup) makeDir(out, kind string, targets []string) (string, error) {
	dir := out
	if dir == "" {
		dir = filepath.Join(ResultsDir(), st.started.Format("20060102-150405")+"-"+kind+"-"+session.SafeName(strings.Join(targets, "-")))
	}
	if err := session.CreateDir(dir); err != nil {
		st.close()
		return "", err
	}
	return dir, nil
}

// setUpFailed ends a matrix, scale or sweep that could not be set up: the progress line is
// closed and the error printed; the exit status is 2.
func setUpFailed(prog *Progress, stderr io.Writer, kind string, err error) int {
	prog.Done()
	fmt.Fprintf(stderr, "bindrace %s: %v\n", kind, err)
	return 2
}

// finish ends a matrix, scale or sweep: it writes the session's files, then prints it. The exit
// status is 2 when the session is incomplete or a file could not be written, else 0.
func finish(kind string, stderr io.Writer, incomplete string, write func() error, print func()) int {
	werr := write()
	if werr != nil {
		fmt.Fprintf(stderr, "bindrace %s: %v\n", kind, werr)
	}
	print()
	if incomplete != "" || werr != nil {
		return 2
	}
	return 0
}

// writeSession writes a matrix's, scale's or sweep's summary.json, raw.json and manifest.json
// into dir, then its reports.
func writeSession(dir string, summary any, raw session.Raw, man *session.Manifest) error {
	for _, f := range []struct {
		name string
		v    any
	}{{session.SummaryFile, summary}, {session.RawFile, raw}, {session.ManifestFile, man}} {
		if err := session.WriteJSON(filepath.Join(dir, f.name), f.v); err != nil {
			return err
		}
	}
	return report.WriteAll(dir)
}
