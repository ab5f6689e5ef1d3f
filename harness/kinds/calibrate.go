package kinds

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// Calibration is calibration.json: how often races of a profile on this machine FAIL a target
// against itself made slower by known amounts (a CPU cap), so a release engineer knows what the
// gate can catch here, measured rather than assumed.
type Calibration struct {
	Kind     string           `json:"kind"` // "calibration": the harness wrote it (session.Written)
	Target   string           `json:"target"`
	Profile  string           `json:"profile"`
	Races    int              `json:"races_per_slowdown"`
	Rows     []CalibrationRow `json:"rows"`
	Machine  string           `json:"machine"` // CPU model and count
	Started  time.Time        `json:"started"`
	Finished time.Time        `json:"finished"`
}

// CalibrationRow is one slowdown's races.
type CalibrationRow struct {
	SlowdownPct  int       `json:"slowdown_pct"` // A's CPU capped at 100 - this
	Candidate    string    `json:"candidate"`    // the A target, e.g. binding@cpu95
	Verdicts     []string  `json:"verdicts"`     // overall verdict of each race
	MedianDeltas []float64 `json:"median_deltas_pct"`
	HalfWidths   []float64 `json:"half_widths_pct"` // resolving power of each race
	FailRate     float64   `json:"fail_rate"`       // detection rate; for slowdown 0 the false-FAIL rate
	PassRate     float64   `json:"pass_rate"`
	Inconclusive float64   `json:"inconclusive_rate"`
	SessionsDirs []string  `json:"sessions"`
}

// CalibrateOptions say what to calibrate.
type CalibrateOptions struct {
	Target    string
	Profile   *profile.Profile
	Slowdowns []int // percent, e.g. 0 (A/A), 5
	Races     int
	Out       string // directory for calibration.json and every race's session
	Force     bool   // Out may hold files already (Options.Force), its races' folders too
	Command   []string
	Events    measure.Events
}

// Calibrate races Target@cpu(100-s) against Target, Races times for each slowdown s, and
// writes calibration.json into Out. An error is a race that could not be run to its end: what
// was measured is in the Result and in Out.
func Calibrate(ctx context.Context, o CalibrateOptions) (Result[Calibration], error) {
	cal := &Calibration{Kind: "calibration", Target: o.Target, Profile: o.Profile.Name, Races: o.Races, Started: time.Now().UTC()}
	man := machine.Environment(o.Command)
	cal.Machine = fmt.Sprintf("%s, %d CPUs", man.CPUModel, man.CPUCount)
	if err := session.CreateDir(o.Out, o.Force); err != nil {
		return Result[Calibration]{}, err
	}
	if o.Profile.DecideOn != stats.MetricRPS {
		// Its slowdowns are CPU quotas, which slow a server's throughput and leave its CPU per
		// response as it was: judged per CPU-second, a capped server is not slower.
		o.Events.Notef("calibrate: deciding on rps, not the profile's %s: a CPU quota slows throughput, not CPU per response", o.Profile.DecideOn)
		p := *o.Profile
		p.DecideOn = stats.MetricRPS
		o.Profile = &p
	}
	var cut error
	for _, slow := range o.Slowdowns {
		var row CalibrationRow
		row, cut = calibrateRow(ctx, o, slow)
		cal.Rows = append(cal.Rows, row)
		if cut != nil {
			break
		}
	}
	cal.Finished = time.Now().UTC()
	werr := session.WriteJSON(filepath.Join(o.Out, session.CalibrationFile), cal)
	return Result[Calibration]{Dir: o.Out, Summary: cal, WriteErr: werr}, cut
}

// calibrateRow runs one slowdown's races and their rates.
func calibrateRow(ctx context.Context, o CalibrateOptions, slow int) (CalibrationRow, error) {
	row := CalibrationRow{SlowdownPct: slow, Candidate: o.Target}
	if slow > 0 {
		row.Candidate = fmt.Sprintf("%s@cpu%d", o.Target, 100-slow)
	}
	for i := 1; i <= o.Races; i++ {
		o.Events.Notef("calibrate: %s vs %s, race %d/%d", row.Candidate, o.Target, i, o.Races)
		dir := filepath.Join(o.Out, fmt.Sprintf("slowdown-%d-race-%d", slow, i))
		res, err := Race(ctx, RaceOptions{A: row.Candidate, B: o.Target,
			Options: Options{Profile: o.Profile, Out: dir, Force: o.Force, Command: o.Command, Events: o.Events}})
		set := res.Summary
		if err == nil && (res.WriteErr != nil || set.Verdict == session.Incomplete || len(set.Summaries) == 0) {
			err = fmt.Errorf("%s", set.Verdict)
		}
		if err != nil {
			return row, fmt.Errorf("race %s vs %s did not finish (%v); results so far in %s", row.Candidate, o.Target, err, o.Out)
		}
		s := set.Summaries[0]
		row.Verdicts = append(row.Verdicts, set.Verdict)
		row.MedianDeltas = append(row.MedianDeltas, s.MedianDeltaPct)
		hw := 0.0
		if s.Resolution != nil {
			hw = s.Resolution.HalfWidthPct
		}
		row.HalfWidths = append(row.HalfWidths, hw)
		row.SessionsDirs = append(row.SessionsDirs, dir)
	}
	n := float64(len(row.Verdicts))
	for _, v := range row.Verdicts {
		switch v {
		case session.Fail:
			row.FailRate += 1 / n
		case session.Pass:
			row.PassRate += 1 / n
		default:
			row.Inconclusive += 1 / n
		}
	}
	return row, nil
}
