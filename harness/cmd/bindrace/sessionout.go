package main

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/report"
)

// sessionOutput renders a session's events on the progress line (stderr) and writes the
// reports of every session directory the session saved.
type sessionOutput struct {
	line      *progressLine
	mu        sync.Mutex
	reportErr error // a report that could not be written
}

func newSessionOutput(stderr io.Writer) *sessionOutput {
	return &sessionOutput{line: newProgressLine(stderr, true)}
}

// event is the session's measure.Events.
func (s *sessionOutput) event(e measure.Event) {
	switch e := e.(type) {
	case measure.Status:
		line := fmt.Sprintf("%s  %s %.1fs", e.Label, e.Phase, e.Elapsed.Seconds())
		if e.Rate > 0 {
			line += "  " + thousands(e.Rate) + " " + e.Unit
		}
		s.line.status(line)
	case measure.Note:
		if e.Warning {
			s.line.log("warning: " + e.Text)
		} else {
			s.line.log(e.Text)
		}
	case measure.RunDone:
		r := e.Run
		if r.Error != "" { // measured, but nothing counts (every window set aside)
			s.line.log(fmt.Sprintf("%s: %s", e.Label, r.Error))
			break
		}
		s.line.log(fmt.Sprintf("%s: %s %s  p99 %.2f ms  server CPU %.0f%%  errors %d", e.Label, thousands(r.RPS), e.Unit, r.P99Ms, r.ServerCPUPct, r.Errors))
	case measure.Saved:
		if err := report.WriteAll(e.Dir); err != nil {
			s.line.log("error: " + err.Error())
			s.mu.Lock()
			s.reportErr = errors.Join(s.reportErr, err)
			s.mu.Unlock()
		}
	}
}

// err is writeErr (a session file not written) joined with the reports not written.
func (s *sessionOutput) err(writeErr error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(writeErr, s.reportErr)
}

// done clears the progress line before the results are printed.
func (s *sessionOutput) done() { s.line.done() }
