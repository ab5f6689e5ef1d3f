package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/bindrace/bindrace/harness/load"
)

// progressLine reports a running load on stderr: one line rewritten in place on a terminal,
// plain log lines otherwise (a CI log or a file should not fill with carriage returns).
type progressLine struct {
	w      io.Writer
	tty    bool
	warmup time.Duration
	unit   string
	shown  bool
}

// newProgressLine reports on w a load with that warm-up, its rate in unit ("rps").
func newProgressLine(w io.Writer, warmup time.Duration, unit string) *progressLine {
	return &progressLine{w: w, tty: load.IsTerminal(w), warmup: warmup, unit: unit}
}

// update shows pr; it is a Hooks.Progress.
func (p *progressLine) update(pr load.Progress) {
	var what string
	switch pr.Phase {
	case "measure":
		what = "measure " + secs(pr.Elapsed)
		if p.warmup > 0 {
			what = "warmup " + secs(p.warmup) + " / " + what
		}
	default:
		what = fmt.Sprintf("%s %s", pr.Phase, secs(pr.Elapsed))
	}
	rate := load.GroupThousands(int64(pr.Rate + 0.5))
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s  %s %s", what, rate, p.unit)
		p.shown = true
		return
	}
	fmt.Fprintf(p.w, "load: %s  %s %s\n", what, rate, p.unit)
}

// done clears the terminal line so the results start on a clean one.
func (p *progressLine) done() {
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s" }
