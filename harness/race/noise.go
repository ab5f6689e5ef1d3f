package race

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
	"github.com/bindrace/bindrace/harness/targets"
)

// Noise is noise.json: one target measured in nested windows — 1 s slices within measured
// windows, windows within one server process, processes — so the run-to-run variance of a race
// can be taken apart level by level, with what the client and the server saw of each window.
type Noise struct {
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

// NoiseOptions say what to measure.
type NoiseOptions struct {
	Target    string
	Profile   *profile.Profile
	Processes int
	Windows   int
	Window    time.Duration
	Wrap      []string // server command prefix, e.g. setarch -R
	Out       string
	Stderr    io.Writer
	ServerLog io.Writer
}

// MeasureNoise runs the nested design and returns it with its levels summarised.
func MeasureNoise(ctx context.Context, o NoiseOptions) (*Noise, error) {
	pl, err := planOf(o.Profile)
	if err != nil {
		return nil, err
	}
	races := o.Profile.Races()
	sc, err := scenario.ByName(races[0].Scenario)
	if err != nil {
		return nil, err
	}
	prog := NewProgress(o.Stderr)
	defer prog.Done()
	eng := newEngine(pl, prog, o.ServerLog)
	defer eng.stopAll()
	if err := eng.resolve(o.Target); err != nil {
		return nil, err
	}
	restore, err := machine.PinSelf(pl.CPUsClient)
	if err != nil {
		return nil, err
	}
	defer restore()
	r := races[0]
	n := &Noise{Target: o.Target, Scenario: sc.Name, Loadgen: pl.Loadgen, Wrap: o.Wrap, Started: time.Now().UTC(),
		Shape: session.Shape{Profile: pl.Profile, Scenario: sc.Name, Connections: r.Connections, Pipelining: r.Pipelining,
			Workers: pl.clientWorkers(), Loadgen: pl.Loadgen, WarmupS: pl.Warmup.Seconds(), DurationS: o.Window.Seconds(),
			CPUsServer: pl.CPUsServer, CPUsClient: pl.CPUsClient}}
	for p := 0; p < o.Processes; p++ {
		proc, err := eng.noiseProcess(ctx, o, sc, r, p)
		if err != nil {
			return n, err
		}
		n.Processes = append(n.Processes, *proc)
	}
	n.Levels = noiseLevels(n.Processes)
	n.Finished = time.Now().UTC()
	return n, nil
}

// noiseProcess starts one server and measures its windows back to back.
func (e *engine) noiseProcess(ctx context.Context, o NoiseOptions, sc scenario.Scenario, r profile.Race, p int) (*NoiseProcess, error) {
	proc := &NoiseProcess{}
	if busy, steal, err := machine.SampleBusy(ctx, max(e.plan.BusySample, 100*time.Millisecond)); err == nil {
		proc.BusyPct, proc.StealPct = round2(busy), round2(steal)
	}
	t := e.resolved[o.Target]
	srv, err := t.Start(ctx, targets.StartOptions{Threads: e.plan.serverThreads(), CPUs: e.plan.CPUsServer,
		Wrap: o.Wrap, StartTimeout: e.plan.StartTimeout, Log: e.log})
	if err != nil {
		return nil, fmt.Errorf("target %s failed to start: %w", o.Target, err)
	}
	defer srv.Stop()
	if err := targets.Verify(ctx, o.Target, srv.Addr(), []scenario.Scenario{sc}); err != nil {
		return nil, fmt.Errorf("target %s failed verification: %w", o.Target, err)
	}
	rs := runSpec{target: o.Target, sc: sc, connections: r.Connections, pipelining: r.Pipelining}
	drive := e.driver(rs, srv.Addr())
	if _, err := drive(ctx, 0, e.plan.Warmup, load.Hooks{}); err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	sleep(ctx, e.plan.Settle)
	for w := 0; w < o.Windows; w++ {
		label := fmt.Sprintf("process %d/%d window %d/%d", p+1, o.Processes, w+1, o.Windows)
		var win NoiseWindow
		var u0, u1 procfs.Usage
		var i0, i1 targets.Info
		var t0, t1 time.Time
		hooks := load.Hooks{
			MeasureStart: func() { i0, _ = srv.Info(); u0, _ = srv.Usage(); t0 = time.Now() },
			MeasureEnd:   func() { t1 = time.Now(); u1, _ = srv.Usage(); i1, _ = srv.Info() },
			Progress: func(pr load.Progress) {
				e.prog.Status(label, pr.Phase, pr.Elapsed, pr.Rate, "rps")
				if pr.Phase == "measure" && pr.Elapsed >= time.Second-50*time.Millisecond {
					win.Slices = append(win.Slices, round2(pr.Rate))
				}
			},
		}
		res, err := drive(ctx, 100*time.Millisecond, o.Window, hooks)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		win.RPS, win.Client = round2(res.RPS), res.Client
		if cpu := u1.CPUSeconds - u0.CPUSeconds; cpu > 0 {
			win.ServerCPUPct = round2(cpu / t1.Sub(t0).Seconds() * 100)
			win.RPSPerCPUSecond = round2(float64(res.Responses) / cpu)
		}
		win.Server = i1.PerResponse(i0, res.Responses)
		e.prog.Logf("%s: %s rps, server CPU %.0f%%", label, Thousands(win.RPS), win.ServerCPUPct)
		proc.Windows = append(proc.Windows, win)
	}
	return proc, nil
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
		return round2(100 * math.Sqrt(math.Max(v, 0)))
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
		return round2(100 * c / total)
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

// WriteNoise writes noise.json into dir.
func WriteNoise(dir string, n *Noise) (string, error) {
	if err := session.CreateDir(dir); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "noise.json")
	return path, session.WriteJSON(path, n)
}
