package measure

import (
	"fmt"
	"time"

	"github.com/bindrace/bindrace/harness/session"
)

// Event is what a measurement reports while it runs: Status, Note, RunDone or Saved. The CLI
// renders them (a progress line on a terminal, log lines elsewhere); tests collect them.
type Event interface{ event() }

// Events receives a session's events, from one goroutine at a time or several (a run's
// progress comes from the load generator's); nil discards them.
type Events func(Event)

// Status is what a run is doing now: a phase ("starting", "warm-up", "measuring", "cooldown",
// …), how long it has been in it and, under load, the current rate.
type Status struct {
	Label   string // the run: "pair 3/10 AB binding"
	Phase   string
	Elapsed time.Duration
	Rate    float64
	Unit    string // of Rate: "rps", "messages/s"
}

// Note is a line for the session's log: what is being done, or a warning.
type Note struct {
	Text    string
	Warning bool // something the reader must weigh: a busy machine, a value adapted, a failed read
}

// RunDone is a run measured to its end: its label, the unit of its rate and its record.
type RunDone struct {
	Label string
	Unit  string
	Run   session.Run
}

// Saved is a session directory whose JSON files were written (its reports are the CLI's).
type Saved struct{ Dir string }

func (Status) event()  {}
func (Note) event()    {}
func (RunDone) event() {}
func (Saved) event()   {}

// Emit sends e (nil-safe).
func (ev Events) Emit(e Event) {
	if ev != nil {
		ev(e)
	}
}

// Notef emits a Note.
func (ev Events) Notef(format string, args ...any) {
	ev.Emit(Note{Text: fmt.Sprintf(format, args...)})
}

// Warnf emits a warning Note.
func (ev Events) Warnf(format string, args ...any) {
	ev.Emit(Note{Text: fmt.Sprintf(format, args...), Warning: true})
}
