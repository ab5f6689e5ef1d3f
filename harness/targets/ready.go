package targets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Ready is the line `bindrace serve` prints on stdout once its server listens: one JSON object,
// the way a harness that started it on another host learns the port to dial and the pid whose
// CPU and memory to read.
type Ready struct {
	Target string `json:"target"`
	Port   int    `json:"port"`
	Pid    int    `json:"pid"` // the serving process
	// StartedMs is the server's start-up, spawn to first valid answer.
	StartedMs float64 `json:"started_ms,omitempty"`
}

func newReady(target string, port, pid int, startup time.Duration) Ready {
	return Ready{Target: target, Port: port, Pid: pid, StartedMs: float64(startup.Microseconds()) / 1000}
}

// write prints r as its one line.
func (r Ready) write(w io.Writer) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ParseReady reads the ready line from the start of a `bindrace serve`'s stdout: false while
// the line is not complete yet, an error when what came is not a ready line.
func ParseReady(out []byte) (Ready, bool, error) {
	line, _, complete := bytes.Cut(out, []byte("\n"))
	if !complete {
		return Ready{}, false, nil
	}
	var r Ready
	if err := json.Unmarshal(line, &r); err != nil || r.Port <= 0 || r.Pid <= 0 {
		return Ready{}, false, fmt.Errorf("bindrace serve printed %q, not its ready line {\"target\", \"port\", \"pid\"}", truncate(string(line), 200))
	}
	return r, true, nil
}
