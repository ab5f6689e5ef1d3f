package measure

import (
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// Probe reads one thing about a server over each measured window, and records what it read
// over a run's kept windows in the run's session record. The rig opens its probes in order as
// a window opens and closes them in reverse order as it closes.
type Probe interface {
	// Open starts a reading of srv as a window of spec's run opens (inside the load
	// generator's MeasureStart hook: keep it short); nil when the probe has nothing to read for
	// that run.
	Open(srv Server, spec Spec) Reading
	// Record writes the probe's figures over kept (the run's windows that count) into rec,
	// which holds the load's figures already.
	Record(rec *session.Run, run *Run, kept []Window)
}

// Reading is one probe's reading over one window in progress.
type Reading interface {
	// Close ends the reading as the window closes and puts the probe's part into w. An error is
	// a warning for the log (the part then says what could not be read).
	Close(w *Window) error
}

// Usage is the server's CPU time and memory at a window's edges.
type Usage struct {
	Start, End procfs.Usage
	Wall       time.Duration // between the two reads, by the server host's clock
}

// CPUSeconds is the server's CPU time during the window.
func (u Usage) CPUSeconds() float64 { return u.End.CPUSeconds - u.Start.CPUSeconds }

// usageProbe reads the server's CPU and RSS, and its threads' CPU (from /proc, here or on the
// server host). The session's targets and plan say which runs are a binding's, and how many
// loops it ran.
type usageProbe struct {
	targets map[string]*targets.Target
	plan    Plan
}

type usageReading struct {
	srv   Server
	start procfs.Usage
	err   error
}

func (usageProbe) Open(srv Server, _ Spec) Reading {
	u, err := srv.Usage()
	return &usageReading{srv: srv, start: u, err: err}
}

func (r *usageReading) Close(w *Window) error {
	end, err := r.srv.Usage()
	if err = errors.Join(r.err, err); err != nil {
		return fmt.Errorf("server CPU/RSS not sampled: %w", err)
	}
	w.Usage = &Usage{Start: r.start, End: end, Wall: end.At.Sub(r.start.At)}
	if err := errors.Join(r.start.ThreadsErr, end.ThreadsErr); err != nil {
		return fmt.Errorf("server threads not read (no thread readings for this window): %w", err)
	}
	return nil
}

// Record: the server's CPU in % of one core over the windows, responses per CPU-second, its
// RSS as the first window opened, its minor faults per response and its threads' CPU.
func (p usageProbe) Record(rec *session.Run, run *Run, kept []Window) {
	p.recordThreads(rec, run.Spec, kept)
	pct, cpu, ok := serverCPU(kept)
	if !ok {
		return
	}
	rec.ServerCPUPct = pct
	if cpu > 0 {
		rec.RPSPerCPUSecond = round.To(float64(rec.Responses)/cpu, 2)
	}
	for _, w := range kept {
		if w.Usage != nil {
			rec.RSSMiB = mib(w.Usage.Start.RSSBytes)
			break
		}
	}
	if f, ok := minorFaults(kept); ok && rec.Responses > 0 {
		addReadings(rec, map[string]session.Reading{MinorFaultsReading: {
			Value: round.Readable(f / float64(rec.Responses)), Label: "minor page faults per response", LowerIsBetter: true}})
	}
}

// recordThreads writes the thread readings over kept, with a binding's loop busy fraction.
func (p usageProbe) recordThreads(rec *session.Run, spec Spec, kept []Window) {
	loops := 0
	if t := p.targets[spec.Target]; t != nil && t.LoopThreads {
		loops = p.plan.of(spec).ServerThreads()
	}
	addReadings(rec, threadReadings(kept, loops))
}

// addReadings adds readings to rec's.
func addReadings(rec *session.Run, readings map[string]session.Reading) {
	if len(readings) == 0 {
		return
	}
	if rec.Readings == nil {
		rec.Readings = map[string]session.Reading{}
	}
	maps.Copy(rec.Readings, readings)
}

// MinorFaultsReading is the key of the server's minor page faults per response in a run's
// readings: memory it touched for the first time (or again, after giving it back) over the
// windows, each fault a trip into the kernel.
const MinorFaultsReading = "minor_faults_per_response"

// minorFaults is the server's minor page faults over the closed windows; ok false when none
// sampled them.
func minorFaults(windows []Window) (faults float64, ok bool) {
	for _, w := range windows {
		if w.Closed && w.Usage != nil && w.Usage.End.MinorFaults >= w.Usage.Start.MinorFaults {
			faults += float64(w.Usage.End.MinorFaults - w.Usage.Start.MinorFaults)
			ok = true
		}
	}
	return faults, ok
}

// serverCPU is the server's CPU over windows in % of one core, and its CPU-seconds; ok false
// when no closed window sampled it.
func serverCPU(windows []Window) (pct, cpu float64, ok bool) {
	var wall float64
	for _, w := range windows {
		if w.Closed && w.Usage != nil {
			cpu += w.Usage.CPUSeconds()
			wall += w.Usage.Wall.Seconds()
			ok = true
		}
	}
	if !ok || wall <= 0 {
		return 0, 0, false
	}
	return round.To(cpu/wall*100, 2), cpu, true
}

// Counts are the server's own counters (its info route: the binding's loops' wakeups, reads,
// sends, batches into Go) at a window's edges.
type Counts struct{ Start, End targets.Info }

// countsProbe reads the server's own counters.
type countsProbe struct{}

type countsReading struct {
	srv   Server
	start targets.Info
}

func (countsProbe) Open(srv Server, _ Spec) Reading {
	i, _ := srv.Info()
	return &countsReading{srv: srv, start: i}
}

func (r *countsReading) Close(w *Window) error {
	end, _ := r.srv.Info()
	w.Counts = &Counts{Start: r.start, End: end}
	return nil
}

// Record: the counts per response, over the windows weighted by their responses.
func (countsProbe) Record(rec *session.Run, _ *Run, kept []Window) {
	sums := map[string]float64{}
	for _, w := range kept {
		if w.Counts == nil || w.Load == nil {
			continue
		}
		for k, v := range w.Counts.End.PerResponse(w.Counts.Start, w.Load.Responses) {
			sums[k] += v * float64(w.Load.Responses)
		}
	}
	if len(sums) == 0 || rec.Responses <= 0 {
		return
	}
	per := map[string]float64{}
	for k, v := range sums {
		per[k] = v / float64(rec.Responses)
	}
	rec.Server = counters.RoundMap(per)
}

// MachineTime is the whole machine during a window, from /proc/stat at its edges: the share
// of all CPUs' time not idle, and the share the hypervisor stole.
type MachineTime struct {
	BusyPct, StealPct float64
}

// machineProbe reads /proc/stat at a window's edges.
type machineProbe struct{}

type machineReading struct {
	start procfs.CPUTimes
	err   error
}

func (machineProbe) Open(Server, Spec) Reading {
	t, err := procfs.ReadCPUTimes("/proc/stat")
	return &machineReading{start: t, err: err}
}

func (r *machineReading) Close(w *Window) error {
	end, err := procfs.ReadCPUTimes("/proc/stat")
	if err = errors.Join(r.err, err); err != nil {
		return fmt.Errorf("stolen time not read: %w", err)
	}
	busy, steal := machine.Busy(r.start, end)
	w.Machine = &MachineTime{BusyPct: round.To(busy, 2), StealPct: round.To(steal, 2)}
	return nil
}

// Record: the steal of each window is in the per-window records (record.go); nothing more.
func (machineProbe) Record(*session.Run, *Run, []Window) {}
