package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bindrace/bindrace/harness/load"
)

// progressLine is the CLI's one progress line on stderr: on a terminal, one status line
// rewritten in place with log lines printed above it; elsewhere (a CI log, a file) log lines
// only, which should not fill with carriage returns.
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	stamp bool // log lines off a terminal start with the time
	shown bool // a status line is on screen
}

// newProgressLine writes to w; stamp puts the time before each log line off a terminal.
func newProgressLine(w io.Writer, stamp bool) *progressLine {
	return &progressLine{w: w, tty: load.IsTerminal(w), stamp: stamp}
}

// status shows text as the status line; off a terminal it is silent.
func (p *progressLine) status(text string) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\x1b[K%s", text)
	p.shown = true
}

// log prints one log line, clearing the status line first.
func (p *progressLine) log(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	text = strings.TrimSuffix(text, "\n") + "\n"
	if p.stamp && !p.tty {
		text = time.Now().Format("15:04:05") + " " + text
	}
	fmt.Fprint(p.w, text)
}

// done clears the status line, so what follows starts on a clean one.
func (p *progressLine) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// clear erases the status line if one is shown; p.mu is held.
func (p *progressLine) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// loadProgress shows a running `bindrace load` on the progress line: the status on a
// terminal, a "load: …" line a second elsewhere.
type loadProgress struct {
	line   *progressLine
	warmup time.Duration
	unit   string
}

// newLoadProgress reports on w a load with that warm-up, its rate in unit ("rps").
func newLoadProgress(w io.Writer, warmup time.Duration, unit string) *loadProgress {
	return &loadProgress{line: newProgressLine(w, false), warmup: warmup, unit: unit}
}

// update shows pr; it is a Hooks.Progress.
func (p *loadProgress) update(pr load.Progress) {
	what := fmt.Sprintf("%s %s", pr.Phase, secs(pr.Elapsed))
	if pr.Phase == "measure" && p.warmup > 0 {
		what = "warmup " + secs(p.warmup) + " / " + what
	}
	text := fmt.Sprintf("%s  %s %s", what, thousands(pr.Rate), p.unit)
	if p.line.tty {
		p.line.status(text)
		return
	}
	p.line.log("load: " + text)
}

func (p *loadProgress) done() { p.line.done() }

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s" }

// thousands formats a number with thousands separators: 482113.4 -> "482,113".
func thousands(v float64) string { return load.GroupThousands(int64(math.Round(v))) }
