package load

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// progressLine reports a running load on stderr: one line rewritten in place on a terminal,
// plain log lines otherwise (a CI log or a file should not fill with carriage returns).
type progressLine struct {
	w      io.Writer
	tty    bool
	warmup time.Duration
	shown  bool
}

func newProgressLine(w io.Writer, warmup time.Duration) *progressLine {
	return &progressLine{w: w, tty: isTerminal(w), warmup: warmup}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

func (p *progressLine) update(pr Progress) {
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
	rate := groupThousands(int64(pr.Rate + 0.5))
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s  %s rps", what, rate)
		p.shown = true
		return
	}
	fmt.Fprintf(p.w, "load: %s  %s rps\n", what, rate)
}

// done clears the terminal line so the results start on a clean one.
func (p *progressLine) done() {
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s" }

// groupThousands renders 482113 as "482,113".
func groupThousands(n int64) string {
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
