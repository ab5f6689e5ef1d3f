package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Numbers are formatted for people: thousands separators, fixed decimals per kind of figure,
// signed deltas, and "—" for a figure that was not measured (0 or NaN), never a fake 0.

const dash = "—"

func missing(x float64) bool { return x == 0 || math.IsNaN(x) || math.IsInf(x, 0) }

// group formats x with dec decimals and comma thousands separators: 1234567.891, 2 -> 1,234,567.89.
func group(x float64, dec int) string {
	s := fmt.Sprintf("%.*f", dec, math.Abs(x))
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	var b strings.Builder
	if x < 0 && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + frac
}

func fmtRPS(x float64) string {
	if missing(x) {
		return dash
	}
	return group(x, 0)
}

func fmtMs(x float64) string {
	if missing(x) {
		return dash
	}
	return fmt.Sprintf("%.2f ms", x)
}

// fmtPct is a signed delta: +12.71%.
func fmtPct(x float64) string { return percent("%+.2f%%", x) }

// fmtPlainPct is an unsigned share (CPU, CV): 98.30%.
func fmtPlainPct(x float64) string { return percent("%.2f%%", x) }

// percent formats x, or a dash when it is not a number (0 is a real 0% here).
func percent(format string, x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return dash
	}
	return fmt.Sprintf(format, x)
}

// fmtLevel prints a confidence level: 0.975 -> "97.5%".
func fmtLevel(x float64) string {
	if missing(x) {
		return dash
	}
	return strconv.FormatFloat(math.Round(x*10000)/100, 'f', -1, 64) + "%"
}

func fmtMiB(x float64) string {
	if missing(x) {
		return dash
	}
	return fmt.Sprintf("%.2f MiB", x)
}

func fmtBytes(x float64) string {
	if missing(x) {
		return dash
	}
	if x < 1024*1024 {
		return group(x/1024, 1) + " KiB"
	}
	return group(x/(1024*1024), 2) + " MiB"
}

// fmtCount is a per-response counter: 9,177.51; small ones keep precision (0.131).
func fmtCount(x float64) string {
	if math.IsNaN(x) {
		return dash
	}
	if math.Abs(x) < 10 {
		return group(x, 3)
	}
	return group(x, 2)
}

func fmtSeconds(x float64) string {
	if x == math.Trunc(x) {
		return fmt.Sprintf("%.0fs", x)
	}
	return fmt.Sprintf("%gs", x)
}

// shellQuote renders a command line a reader can paste into a shell.
func shellQuote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
