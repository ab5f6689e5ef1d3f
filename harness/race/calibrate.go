package race

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/session"
)

// Calibration is calibration.json: how often races of a profile on this machine FAIL a target
// against itself made slower by known amounts (a CPU cap), so a release engineer knows what the
// gate can catch here, measured rather than assumed.
type Calibration struct {
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
	Stdout    io.Writer
	Stderr    io.Writer
	Command   []string
}

// Calibrate races Target@cpu(100-s) against Target, Races times for each slowdown s, and
// writes calibration.json. It returns 0, or 2 when a race could not be run to its end.
func Calibrate(ctx context.Context, o CalibrateOptions) int {
	cal := Calibration{Target: o.Target, Profile: o.Profile.Name, Races: o.Races, Started: time.Now().UTC()}
	man := machine.Environment(o.Command)
	cal.Machine = fmt.Sprintf("%s, %d CPUs", man.CPUModel, man.CPUCount)
	if err := session.CreateDir(o.Out); err != nil {
		fmt.Fprintf(o.Stderr, "bindrace calibrate: %v\n", err)
		return 2
	}
	for _, slow := range o.Slowdowns {
		row := CalibrationRow{SlowdownPct: slow, Candidate: o.Target}
		if slow > 0 {
			row.Candidate = fmt.Sprintf("%s@cpu%d", o.Target, 100-slow)
		}
		for i := 1; i <= o.Races; i++ {
			fmt.Fprintf(o.Stderr, "calibrate: %s vs %s, race %d/%d\n", row.Candidate, o.Target, i, o.Races)
			dir := filepath.Join(o.Out, fmt.Sprintf("slowdown-%d-race-%d", slow, i))
			res := Race(ctx, Options{A: row.Candidate, B: o.Target, Profile: o.Profile, Out: dir, JSON: true,
				Command: o.Command, Stdout: io.Discard, Stderr: o.Stderr})
			if res.Exit == 2 || len(res.Summaries) == 0 {
				fmt.Fprintf(o.Stderr, "bindrace calibrate: race %s vs %s did not finish (%s); results so far in %s\n", row.Candidate, o.Target, res.Verdict, o.Out)
				cal.Rows = append(cal.Rows, row)
				writeCalibration(o, &cal)
				return 2
			}
			s := res.Summaries[0]
			row.Verdicts = append(row.Verdicts, res.Verdict)
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
		cal.Rows = append(cal.Rows, row)
	}
	if writeCalibration(o, &cal) != nil {
		return 2
	}
	fmt.Fprintf(o.Stdout, "%-10s %-22s %-40s %s\n", "slowdown", "candidate", "verdicts", "median deltas")
	for _, r := range cal.Rows {
		var ds []string
		for _, d := range r.MedianDeltas {
			ds = append(ds, fmt.Sprintf("%+.1f%%", d))
		}
		fmt.Fprintf(o.Stdout, "%-10s %-22s %-40s %s\n", fmt.Sprintf("%d%%", r.SlowdownPct), r.Candidate,
			strings.Join(r.Verdicts, " "), strings.Join(ds, " "))
	}
	fmt.Fprintf(o.Stdout, "wrote %s\n", filepath.Join(o.Out, "calibration.json"))
	return 0
}

func writeCalibration(o CalibrateOptions, cal *Calibration) error {
	cal.Finished = time.Now().UTC()
	err := session.WriteJSON(filepath.Join(o.Out, "calibration.json"), cal)
	if err != nil {
		fmt.Fprintf(o.Stderr, "bindrace calibrate: %v\n", err)
	}
	return err
}
