package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/session"
)

func TestProgressLine(t *testing.T) {
	if s := thousands(482113.4); s != "482,113" {
		t.Errorf("thousands: %s", s)
	}
	var b bytes.Buffer
	out := newSessionOutput(&b) // not a terminal: no status lines, time-stamped log lines
	out.event(measure.Status{Label: "pair 1/2 AB binding", Phase: "measuring", Rate: 1, Unit: "rps"})
	out.event(measure.Note{Text: "hello 1"})
	out.event(measure.Note{Text: "busy", Warning: true})
	if s := b.String(); strings.Contains(s, "\r") || !strings.Contains(s, " hello 1\n") || !strings.Contains(s, " warning: busy\n") || s[2] != ':' {
		t.Errorf("non-TTY output: %q", s)
	}
	out.line.tty = true
	b.Reset()
	out.event(measure.Status{Label: "pair 3/10 AB binding", Phase: "measuring", Elapsed: 4100 * time.Millisecond, Rate: 482113, Unit: "rps"})
	if !strings.Contains(b.String(), "\r\x1b[Kpair 3/10 AB binding  measuring 4.1s  482,113 rps") {
		t.Errorf("TTY line: %q", b.String())
	}
	b.Reset()
	out.event(measure.RunDone{Label: "pair 1/2 AB fasthttp", Unit: "messages/s", Run: session.Run{RPS: 91234.6, P99Ms: 1.5, ServerCPUPct: 99}})
	if s := b.String(); !strings.HasPrefix(s, "\r\x1b[K") || !strings.Contains(s, "pair 1/2 AB fasthttp: 91,235 messages/s  p99 1.50 ms  server CPU 99%  errors 0\n") {
		t.Errorf("a run's line clears the status first: %q", s)
	}
}

// A load's progress off a terminal is one "load: …" line a second, no time stamp.
func TestLoadProgress(t *testing.T) {
	var b bytes.Buffer
	p := newLoadProgress(&b, time.Second, "rps")
	p.update(load.Progress{Phase: "measure", Elapsed: 2 * time.Second, Rate: 1234})
	p.done()
	if got := b.String(); got != "load: warmup 1.0s / measure 2.0s  1,234 rps\n" {
		t.Errorf("%q", got)
	}
}

// Every saved session directory gets its reports; one that cannot be written is an error the
// session's exit status keeps.
func TestSessionOutputWritesReports(t *testing.T) {
	var b bytes.Buffer
	out := newSessionOutput(&b)
	out.event(measure.Saved{Dir: t.TempDir()}) // no summary.json: the reports cannot be rendered
	if out.reportErr == nil || !strings.Contains(b.String(), "error: ") {
		t.Errorf("report error %v, output %q", out.reportErr, b.String())
	}
	if !errors.Is(out.err(nil), out.reportErr) {
		t.Error("err() does not carry the report error")
	}
}
