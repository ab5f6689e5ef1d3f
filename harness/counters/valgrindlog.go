package counters

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// valgrindLog is the file pattern of valgrind's own messages (cachegrindWrap's --log-file),
// one per process, beside its cg.<pid>: a server that dies under valgrind is explained there.
const valgrindLog = "valgrind.%p.log"

// DiedError is a server that died under valgrind: the signal, the instruction valgrind could
// not run when that was the cause, the function it died in, and valgrind's log.
type DiedError struct {
	Signal   string // "4 (SIGILL)"
	Bytes    string // what valgrind could not decode, as it printed them (from the instruction on); "" when not that
	Function string // the innermost frame: "runtime.cputicks (asm_amd64.s:1261)"
	Log      string
}

func (e *DiedError) Error() string {
	s := "the server died under valgrind: signal " + e.Signal
	if e.Function != "" {
		s += " in " + e.Function
	}
	if e.Bytes != "" {
		s += fmt.Sprintf(", at an instruction valgrind cannot run here (%sbytes %s): the program took the path of a CPU feature valgrind does not implement or this host lacks (docs/counters.md, \"Counts on any x86-64 CPU\")", instructionName(e.Bytes), e.Bytes)
	}
	return s + "; valgrind's log: " + e.Log
}

var (
	unhandledRE = regexp.MustCompile(`unhandled instruction bytes: ((?:0x[0-9A-Fa-f]+ ?)+)`)
	terminateRE = regexp.MustCompile(`Process terminating with default action of signal (\d+ \(\w+\))`)
	// valgrind raises SIGILL at an instruction it cannot decode; a Go program catches it and
	// exits 2 after its own traceback, so no "Process terminating" line follows.
	unrecognisedRE = regexp.MustCompile(`valgrind: Unrecognised instruction at address`)
	frameRE        = regexp.MustCompile(`^==\d+==\s+(?:at|by) 0x[0-9A-Fa-f]+: (.+)$`)
)

// DiedIn is the death recorded in one of dir's valgrind logs, nil when every process there
// ended normally or by the SIGTERM the harness sends to stop a server.
func DiedIn(dir string) *DiedError {
	logs, _ := filepath.Glob(filepath.Join(dir, strings.Replace(valgrindLog, "%p", "*", 1)))
	for _, path := range logs {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if d := parseDeath(string(b)); d != nil {
			d.Log = path
			return d
		}
	}
	return nil
}

// parseDeath reads one valgrind log: the first instruction valgrind could not run (it raises
// SIGILL there), or else the first signal that ended the process other than the harness's
// SIGTERM; nil when neither happened.
func parseDeath(text string) *DiedError {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		var d *DiedError
		if unrecognisedRE.MatchString(line) {
			d = &DiedError{Signal: "4 (SIGILL)"}
		} else if m := terminateRE.FindStringSubmatch(line); m != nil && !strings.HasSuffix(m[1], "(SIGTERM)") {
			d = &DiedError{Signal: m[1]}
		} else {
			continue
		}
		for _, next := range lines[i+1:] {
			if f := frameRE.FindStringSubmatch(next); f != nil {
				d.Function = f[1]
				break
			}
		}
		if u := unhandledRE.FindStringSubmatch(text); u != nil {
			d.Bytes = strings.TrimSpace(u[1])
		}
		return d
	}
	return nil
}

// instructionName names the instructions bindrace has seen valgrind refuse, from their first
// bytes.
func instructionName(bytes string) string {
	switch {
	case strings.HasPrefix(bytes, "0xF 0x1 0xF9"):
		return "RDTSCP, "
	case strings.HasPrefix(bytes, "0x62 "):
		return "EVEX-encoded (AVX-512), "
	}
	return ""
}

// logTail is the last lines of dir's valgrind logs, for an error that has nothing better.
func logTail(dir string) string {
	logs, _ := filepath.Glob(filepath.Join(dir, strings.Replace(valgrindLog, "%p", "*", 1)))
	var tail []string
	for _, path := range logs {
		b, _ := os.ReadFile(path)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		tail = append(tail, lines[max(0, len(lines)-8):]...)
	}
	if len(tail) == 0 {
		return "valgrind wrote no log"
	}
	return "valgrind's log ends: " + strings.Join(tail, " | ")
}
