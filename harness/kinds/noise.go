package kinds

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/setting"
	"github.com/bindrace/bindrace/harness/stats"
)

// Noise is noise.json: one target measured in nested windows — 1 s slices within measured
// windows, windows within one server process, processes — so the run-to-run variance of a race
// can be taken apart level by level, with what the client and the server saw of each window.
type Noise struct {
	Kind      string         `json:"kind"` // "noise": the harness wrote it (session.Written)
	Target    string         `json:"target"`
	Scenario  string         `json:"scenario"`
	Loadgen   string         `json:"loadgen"`
	Wrap      []string       `json:"wrap,omitempty"` // the server's command prefix (e.g. setarch -R)
	Shape     session.Shape  `json:"shape"`
	Processes []NoiseProcess `json:"processes"`
	Levels    []NoiseLevel   `json:"levels"`
	Started   time.Time      `json:"started"`
	Finished  time.Time      `json:"finished"`
}

// NoiseProcess is one fresh server and its windows.
type NoiseProcess struct {
	BusyPct  float64       `json:"busy_pct"`
	StealPct float64       `json:"steal_pct"`
	Windows  []NoiseWindow `json:"windows"`
}

// NoiseWindow is one measured window: its throughput, the 1 s slices it was made of, and how
// the load looked from both ends.
type NoiseWindow struct {
	RPS             float64            `json:"rps"`
	Slices          []float64          `json:"slices"` // rate of each full second, responses/s
	ServerCPUPct    float64            `json:"server_cpu_pct"`
	RPSPerCPUSecond float64            `json:"rps_per_cpu_second"`
	Client          *load.ClientStats  `json:"client,omitempty"`
	Server          map[string]float64 `json:"server,omitempty"` // the server's own counters over the window, per response
}

// NoiseLevel is the spread at one level of nesting: the CV of the units of that level around
// their group's mean, pooled over the groups.
type NoiseLevel struct {
	Level     string  `json:"level"`
	CVPct     float64 `json:"cv_pct"`
	PerCPUCV  float64 `json:"per_cpu_second_cv_pct"`
	N         int     `json:"n"`
	SharePct  float64 `json:"share_of_window_variance_pct"` // of a single window's variance, estimated
	Explained string  `json:"what"`
}

// NoiseOptions say what to measure: Processes fresh servers of Target, each in the profile's
// Windows back-to-back windows of its Duration, with the race's shape from the profile.
type NoiseOptions struct {
	Target    string
	Profile   *profile.Profile
	Processes int
	Wrap      []string // server command prefix, e.g. setarch -R
	Out       string   // the directory noise.json goes to
	Force     bool     // Out may hold files already (Options.Force)
	ServerLog io.Writer
	Events    measure.Events
}

// Check refuses a design too small to take apart.
func (o NoiseOptions) Check() error {
	if o.Processes < 2 || o.Profile.Windows < 2 || o.Profile.Duration.D() < time.Second {
		return setting.Errorf("{processes} and {windows} must be at least 2, {duration} at least 1s")
	}
	return nil
}

// MeasureNoise runs the nested design and writes it, its levels summarised, as noise.json in
// o.Out; on an error, what was measured so far.
func MeasureNoise(ctx context.Context, o NoiseOptions) (Result[Noise], error) {
	if err := session.CheckDir(o.Out, o.Force); err != nil {
		return Result[Noise]{}, err
	}
	n, err := studyNoise(ctx, o)
	if n == nil {
		return Result[Noise]{}, err
	}
	n.Kind = "noise"
	res := Result[Noise]{Dir: o.Out, Summary: n}
	if res.WriteErr = session.CreateDir(o.Out, o.Force); res.WriteErr == nil {
		res.WriteErr = session.WriteJSON(filepath.Join(o.Out, session.NoiseFile), n)
	}
	return res, err
}

// studyNoise runs the nested design and returns it with its levels summarised; on an error,
// what was measured so far.
func studyNoise(ctx context.Context, o NoiseOptions) (*Noise, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	pl, err := measure.NewPlan(o.Profile)
	if err != nil {
		return nil, err
	}
	r := o.Profile.Races()[0]
	sc, err := scenarioOf(r)
	if err != nil {
		return nil, err
	}
	pl.BusySample = profile.Duration(max(pl.BusySample.D(), 100*time.Millisecond)) // a noise study always reads the machine
	pl.Perf = false                                                                // nor does it count with perf_event
	rig, err := measure.NewRig(measure.Config{Plan: pl, Targets: []string{o.Target}, ServerLog: o.ServerLog, Events: o.Events})
	if err != nil {
		return nil, err
	}
	defer rig.Close()
	restore, err := machine.PinSelf(pl.CPUsClient)
	if err != nil {
		return nil, err
	}
	defer restore()
	n := &Noise{Target: o.Target, Scenario: sc.Name, Loadgen: pl.Loadgen, Wrap: o.Wrap, Started: time.Now().UTC(),
		Shape: session.Shape{Profile: o.Profile.Name, Scenario: sc.Name, Connections: r.Connections, Pipelining: r.Pipelining,
			Workers: pl.ClientWorkers(), Loadgen: pl.Loadgen, WarmupS: pl.Warmup.D().Seconds(), DurationS: pl.Duration.D().Seconds(),
			CPUsServer: pl.CPUsServer, CPUsClient: pl.CPUsClient}}
	for p := 0; p < o.Processes; p++ {
		label := fmt.Sprintf("process %d/%d", p+1, o.Processes)
		run, err := rig.Process(ctx, measure.Spec{Target: o.Target, Scenario: sc, Connections: r.Connections, Pipelining: r.Pipelining,
			Label: label, Wrap: o.Wrap}, pl.Windows, func(w measure.Window) {
			o.Events.Notef("%s window %d/%d: %s rps, server CPU %.0f%%", label, w.Index+1, pl.Windows, thousands(w.Load.RPS), noiseWindow(w).ServerCPUPct)
		})
		if err != nil {
			return n, fmt.Errorf("%s: %w", label, err)
		}
		proc := NoiseProcess{BusyPct: run.Busy, StealPct: run.Steal}
		for _, w := range run.Windows {
			proc.Windows = append(proc.Windows, noiseWindow(w))
		}
		n.Processes = append(n.Processes, proc)
	}
	n.Levels = noiseLevels(n.Processes)
	n.Finished = time.Now().UTC()
	return n, nil
}

// noiseWindow is what noise.json keeps of a window.
func noiseWindow(w measure.Window) NoiseWindow {
	win := NoiseWindow{RPS: round.To(w.Load.RPS, 2), Slices: w.Seconds, Client: w.Load.Client}
	if u := w.Usage; u != nil {
		if cpu := u.CPUSeconds(); cpu > 0 {
			win.ServerCPUPct = round.To(cpu/u.Wall.Seconds()*100, 2)
			win.RPSPerCPUSecond = round.To(float64(w.Load.Responses)/cpu, 2)
		}
	}
	if c := w.Counts; c != nil {
		win.Server = c.End.PerResponse(c.Start, w.Load.Responses)
	}
	return win
}

// noiseLevels pools the CV at each level and estimates each level's share of a single window's
// variance (method of moments on the nested design: the variance of group means includes the
// variance of the level below divided by the group size).
func noiseLevels(procs []NoiseProcess) []NoiseLevel {
	var sliceVar, winVar, winVarCPU []float64
	var procMeans, procMeansCPU, all, allCPU []float64
	var slices, windows int
	for _, p := range procs {
		var means, cpus []float64
		for _, w := range p.Windows {
			if len(w.Slices) > 1 {
				sliceVar = append(sliceVar, relVar(w.Slices))
				slices += len(w.Slices)
			}
			means, cpus = append(means, w.RPS), append(cpus, w.RPSPerCPUSecond)
		}
		windows += len(means)
		all, allCPU = append(all, means...), append(allCPU, cpus...)
		if len(means) > 1 {
			winVar, winVarCPU = append(winVar, relVar(means)), append(winVarCPU, relVar(cpus))
		}
		procMeans, procMeansCPU = append(procMeans, stats.Mean(means)), append(procMeansCPU, stats.Mean(cpus))
	}
	cv := func(v float64) float64 {
		if math.IsNaN(v) {
			return 0 // no units at this level (e.g. windows too short for two slices)
		}
		return round.To(100*math.Sqrt(math.Max(v, 0)), 2)
	}
	w := float64(windows) / math.Max(float64(len(procs)), 1)
	vWin, vProc := stats.Mean(winVar), relVar(procMeans)
	if math.IsNaN(vWin) {
		vWin = 0
	}
	compProc := math.Max(vProc-vWin/w, 0) // between-process variance beyond what windows explain
	total := compProc + vWin
	share := func(c float64) float64 {
		if total <= 0 {
			return 0
		}
		return round.To(100*c/total, 2)
	}
	return []NoiseLevel{
		{Level: "1 s slices within a window", CVPct: cv(stats.Mean(sliceVar)), N: slices,
			Explained: "second-to-second wobble of one load against one server"},
		{Level: "windows within a process", CVPct: cv(vWin), PerCPUCV: cv(stats.Mean(winVarCPU)), N: windows, SharePct: share(vWin),
			Explained: "fresh connections, same server process: what a longer window or more windows average out"},
		{Level: "processes (mean of their windows)", CVPct: cv(vProc), PerCPUCV: cv(relVar(procMeansCPU)), N: len(procs), SharePct: share(compProc),
			Explained: "a fresh server each time: layout, start-up, what the process fell into; only more processes average it out"},
		{Level: "single windows, all processes", CVPct: cv(relVar(all)), PerCPUCV: cv(relVar(allCPU)), N: windows,
			Explained: "what one run of a race sees"},
	}
}

// relVar is the squared coefficient of variation: sample variance over the squared mean.
func relVar(xs []float64) float64 {
	m := stats.Mean(xs)
	if len(xs) < 2 || m == 0 {
		return 0
	}
	sd := stats.Stddev(xs)
	return sd * sd / (m * m)
}
