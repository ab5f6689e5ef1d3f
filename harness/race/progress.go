package race

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/bindrace/bindrace/harness/load"
)

// Progress prints what the session is doing on stderr: one updating line on a terminal
// ("pair 3/10 AB binding  measuring 4.1s  482,113 rps"), plain log lines otherwise.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	shown bool // a status line is on screen
}

// NewProgress writes to w; it updates a line in place only when w is a terminal.
func NewProgress(w io.Writer) *Progress {
	return &Progress{w: w, tty: load.IsTerminal(w)}
}

// Status shows the current state of a run, its current rate in unit ("rps", "messages/s").
// On a terminal it rewrites one line; elsewhere it is silent (Logf carries the plain log lines).
func (p *Progress) Status(label, phase string, elapsed time.Duration, rate float64, unit string) {
	if p == nil || !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	line := fmt.Sprintf("%s  %s %.1fs", label, phase, elapsed.Seconds())
	if rate > 0 {
		line += "  " + Thousands(rate) + " " + unit
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
	p.shown = true
}

// Logf prints one log line (clearing the status line on a terminal first).
func (p *Progress) Logf(format string, args ...any) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLine()
	msg := fmt.Sprintf(format, args...)
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	if p.tty {
		fmt.Fprint(p.w, msg)
	} else {
		fmt.Fprintf(p.w, "%s %s", time.Now().Format("15:04:05"), msg)
	}
}

// Done clears the status line.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLine()
}

// clearLine erases the status line if one is shown; p.mu is held.
func (p *Progress) clearLine() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// Thousands formats a number with thousands separators: 482113.4 -> "482,113".
func Thousands(v float64) string { return load.GroupThousands(int64(math.Round(v))) }
