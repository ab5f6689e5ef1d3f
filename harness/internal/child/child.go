// Package child starts the harness's child processes (the servers of harness/targets, the
// PostgreSQL of harness/db) and keeps what they write: Start forks them from a thread that
// lives as long as the process, Tail keeps their last bytes for an error message, Locked is
// one writer both of a process's output streams can share and Buffer is one that another
// goroutine may read while they write.
package child

import (
	"bytes"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

// spawner runs cmd.Start on one OS thread that never exits. Pdeathsig fires when the thread
// that forked the child exits, not the process, and Go ends threads whose goroutine exits while
// locked to them (perf_event code locks threads): a child forked from such a thread would be
// killed mid-run.
var spawner = sync.OnceValue(func() chan func() {
	ch := make(chan func())
	go func() {
		runtime.LockOSThread() // never unlocked: this thread lives as long as the process
		for f := range ch {
			f()
		}
	}()
	return ch
})

// Start starts cmd from the spawner thread.
func Start(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	spawner() <- func() { done <- cmd.Start() }
	return <-done
}

// Tail keeps the last Max bytes written to it.
type Tail struct {
	mu  sync.Mutex
	buf []byte
	Max int
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.Max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.Max:]...)
	}
	return len(p), nil
}

// String is what the tail holds.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// LastLines formats the last n lines for the end of an error message: "; its last output:" and
// the lines indented, or "; it wrote nothing".
func (t *Tail) LastLines(n int) string {
	text := strings.TrimRight(t.String(), "\n")
	if text == "" {
		return "; it wrote nothing"
	}
	lines := strings.Split(text, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "; its last output:\n    " + strings.Join(lines, "\n    ")
}

// Locked serialises the writers (a process's stdout and stderr copiers) sharing W.
type Locked struct {
	mu sync.Mutex
	W  io.Writer
}

func (l *Locked) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.W.Write(p)
}

// Buffer keeps everything a process writes (its output streams, or a server's log) for a
// reader on another goroutine.
type Buffer struct {
	Locked
	b bytes.Buffer
}

// NewBuffer returns an empty Buffer.
func NewBuffer() *Buffer {
	b := &Buffer{}
	b.W = &b.b
	return b
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
