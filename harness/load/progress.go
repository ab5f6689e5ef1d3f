package load

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// ProgressLine reports a running load on stderr: one line rewritten in place on a terminal,
// plain log lines otherwise (a CI log or a file should not fill with carriage returns).
// Shared with harness/wsload, whose rate is in messages/s.
type ProgressLine struct {
	w      io.Writer
	tty    bool
	warmup time.Duration
	unit   string
	shown  bool
}

// NewProgressLine reports on w a load with that warm-up, its rate in unit ("rps").
func NewProgressLine(w io.Writer, warmup time.Duration, unit string) *ProgressLine {
	return &ProgressLine{w: w, tty: IsTerminal(w), warmup: warmup, unit: unit}
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// Update shows pr; it is a Hooks.Progress.
func (p *ProgressLine) Update(pr Progress) {
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
	rate := GroupThousands(int64(pr.Rate + 0.5))
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s  %s %s", what, rate, p.unit)
		p.shown = true
		return
	}
	fmt.Fprintf(p.w, "load: %s  %s %s\n", what, rate, p.unit)
}

// Done clears the terminal line so the results start on a clean one.
func (p *ProgressLine) Done() {
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s" }

// GroupThousands renders 482113 as "482,113".
func GroupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
