package targets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/netip"
	"time"

	"github.com/bindrace/bindrace/harness/internal/strictjson"
)

// Ready is the line `bindrace serve` prints on stdout once its server listens: one JSON object,
// the way a harness that started it on another host learns the port to dial and the pid whose
// CPU and memory to read.
type Ready struct {
	Target string `json:"target"`
	// Host is the address the server listens on: loopback unless asked otherwise (0.0.0.0:
	// every IPv4 address).
	Host string `json:"host,omitempty"`
	Port int    `json:"port"`
	Pid  int    `json:"pid"` // the serving process
	// StartedMs is the server's start-up, spawn to first valid answer.
	StartedMs float64 `json:"started_ms,omitempty"`
}

func newReady(target, host string, port, pid int, startup time.Duration) Ready {
	return Ready{Target: target, Host: host, Port: port, Pid: pid, StartedMs: float64(startup.Microseconds()) / 1000}
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

// readyLine is how a ready line is read (internal/strictjson): the same bindrace printed it, so
// a field Ready does not know is not a newer version's.
var readyLine = strictjson.Rules{KnownFields: true, MaxBytes: maxReadyLine}

// maxReadyLine bounds the first line: a ready line is under 200 bytes, and a far end that
// prints something else without a newline must not be read for ever.
const maxReadyLine = 4096

// ParseReady reads the ready line from the start of a `bindrace serve`'s stdout: false while
// the line is not complete yet, an error naming the field when what came is not a sane ready
// line (Ready.Check).
func ParseReady(out []byte) (Ready, bool, error) {
	line, _, complete := bytes.Cut(out, []byte("\n"))
	if !complete {
		if len(out) > maxReadyLine {
			return Ready{}, false, fmt.Errorf("bindrace serve printed %d bytes without a newline, not its ready line", len(out))
		}
		return Ready{}, false, nil
	}
	r, err := decodeReady(line)
	if err != nil {
		return Ready{}, false, fmt.Errorf("bindrace serve printed %q, not its ready line: %w", truncate(string(line), 200), err)
	}
	return r, true, nil
}

// decodeReady reads one ready line: one object of Ready's fields and nothing else.
func decodeReady(line []byte) (Ready, error) {
	var r Ready
	if err := readyLine.Decode(line, &r); err != nil {
		return Ready{}, err
	}
	return r, r.Check()
}

// maxStartup bounds started_ms: no start timeout is near a day.
const maxStartup = 24 * time.Hour

// Check says which field of r is impossible: a target named, a port 1-65535, a pid above 1
// (1 is init), a finite start-up of 0 to a day, and a host that is an IP address.
func (r Ready) Check() error {
	switch {
	case r.Target == "" || len(r.Target) > 1000:
		return fmt.Errorf("target %q: want a target's name", truncate(r.Target, 40))
	case r.Port < 1 || r.Port > 65535:
		return fmt.Errorf("port %d: want 1-65535", r.Port)
	case r.Pid <= 1:
		return fmt.Errorf("pid %d: want a process above 1", r.Pid)
	case math.IsNaN(r.StartedMs) || r.StartedMs < 0 || r.StartedMs > float64(maxStartup.Milliseconds()):
		return fmt.Errorf("started_ms %v: want 0 to %d", r.StartedMs, maxStartup.Milliseconds())
	}
	if r.Host != "" {
		if _, err := netip.ParseAddr(r.Host); err != nil {
			return fmt.Errorf("host %q: want an IP address", truncate(r.Host, 60))
		}
	}
	return nil
}
