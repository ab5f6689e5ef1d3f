package measure

import (
	"time"

	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// A traced Go server's collector readings (session.Run.Readings), by key.
const (
	GoGCRateReading  = "go_gc_per_s"
	GoGCPauseReading = "go_gc_pause_ms_per_s"
	GoGCLiveReading  = "go_gc_live_heap_mib"
	GoGCCPUReading   = "go_gc_cpu_pct"
)

// viaGCTrace says where every traced reading comes from.
const viaGCTrace = "from GODEBUG=gctrace=1 on the server's stderr"

var goGCLabels = map[string]string{
	GoGCRateReading:  "GC cycles per second of window (" + viaGCTrace + ")",
	GoGCPauseReading: "GC stop-the-world time per second of window (ms/s; " + viaGCTrace + ")",
	GoGCLiveReading:  "heap marked live by the last cycle in the windows (MiB; " + viaGCTrace + ")",
	GoGCCPUReading:   "the runtime's GC CPU since start at the last cycle, % of its Ps' time (" + viaGCTrace + ")",
}

// notTraced is what a run of any other target says of these readings.
const notTraced = "not a Go target of the user's: a built-in Go target's collector is on its info route"

// GoGCWindow is a traced Go server's collections over one window.
type GoGCWindow struct {
	Cycles  int
	PauseMs float64
	Seconds float64
	End     targets.GCTotals // the totals at the window's close
	NotRead string
}

// gcProbe reads a traced Go server's collections at a window's edges.
type gcProbe struct {
	targets map[string]*targets.Target
}

type gcReading struct {
	trace *targets.GCTrace
	start targets.GCTotals
	at    time.Time
	why   string
}

func (p gcProbe) Open(srv Server, spec Spec) Reading {
	if t := p.targets[spec.Target]; t == nil || !t.TracesGC {
		return nil
	}
	s, ok := srv.(localServer)
	if !ok || s.GC == nil {
		return &gcReading{why: "not read: the server's output is not this harness's to read"}
	}
	return &gcReading{trace: s.GC, start: s.GC.Totals(), at: time.Now()}
}

func (r *gcReading) Close(w *Window) error {
	if r.why != "" {
		w.GoGC = &GoGCWindow{NotRead: r.why}
		return nil
	}
	end := r.trace.Totals()
	w.GoGC = &GoGCWindow{Cycles: end.Cycles - r.start.Cycles, PauseMs: end.PauseMs - r.start.PauseMs,
		Seconds: time.Since(r.at).Seconds(), End: end}
	return nil
}

// Record: cycles and pause time per second over the kept windows, and the live heap and the
// runtime's GC CPU share at the last of them.
func (p gcProbe) Record(rec *session.Run, _ *Run, kept []Window) {
	if t := p.targets[rec.Target]; t == nil || !t.TracesGC {
		gcNotRead(rec, notTraced, true)
		return
	}
	var cycles int
	var pause, secs float64
	var last *GoGCWindow
	for _, w := range kept {
		if g := w.GoGC; g != nil && g.NotRead == "" && w.Closed {
			cycles, pause, secs, last = cycles+g.Cycles, pause+g.PauseMs, secs+g.Seconds, g
		} else if g != nil {
			gcNotRead(rec, g.NotRead, false)
			return
		}
	}
	if secs <= 0 || last == nil {
		gcNotRead(rec, "no window was read", false)
		return
	}
	put := func(key string, v float64) {
		addReadings(rec, map[string]session.Reading{key: {Value: v, Label: goGCLabels[key], LowerIsBetter: true}})
	}
	if last.End.Cycles == 0 { // no collection yet: live heap and CPU share are not known
		gcNotRead(rec, "no collection was traced", false)
	} else {
		put(GoGCLiveReading, last.End.LiveMiB)
		put(GoGCCPUReading, last.End.CPUPct)
	}
	put(GoGCRateReading, round.Readable(float64(cycles)/secs))
	put(GoGCPauseReading, round.Readable(pause/secs))
}

// gcNotRead marks every traced reading of rec as not read, and why.
func gcNotRead(rec *session.Run, why string, notApplicable bool) {
	for key, label := range goGCLabels {
		addReadings(rec, map[string]session.Reading{key: {Label: label, NotRead: why, NotApplicable: notApplicable}})
	}
}
