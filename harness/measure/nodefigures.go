package measure

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bindrace/bindrace/harness/internal/strictjson"
)

// nodeThread is one node thread's cumulative runtime figures, as the target's preload
// (harness/targets/uws/preload.cjs) hands them over: since the thread started.
type nodeThread struct {
	Thread      int     `json:"thread"` // 0: the main thread
	ELUIdleMs   float64 `json:"elu_idle_ms"`
	ELUActiveMs float64 `json:"elu_active_ms"`
	HeapUsed    float64 `json:"heap_used_bytes"`
	HeapTotal   float64 `json:"heap_total_bytes"`
	GCObserved  bool    `json:"gc_observed"`
	GCCount     int64   `json:"gc_count"`
	GCMs        float64 `json:"gc_ms"`
}

// check refuses figures no thread can have: the preload is ours, but its line crosses a socket.
func (t nodeThread) check() error {
	for _, f := range []struct {
		name string
		x    float64
	}{{"elu_idle_ms", t.ELUIdleMs}, {"elu_active_ms", t.ELUActiveMs}, {"heap_used_bytes", t.HeapUsed},
		{"heap_total_bytes", t.HeapTotal}, {"gc_ms", t.GCMs}, {"gc_count", float64(t.GCCount)}} {
		if f.x < 0 || math.IsInf(f.x, 0) || math.IsNaN(f.x) {
			return fmt.Errorf("%s is %g", f.name, f.x)
		}
	}
	return nil
}

// nodeRead is every thread's figures at one instant, by thread id; Skipped says which threads
// did not answer, and Err why no thread did.
type nodeRead struct {
	At      time.Time
	Threads map[int]nodeThread
	Skipped []string
	Err     error
}

// nodeAnswerBound is how long a thread's socket may take to answer: a loop that is busy answers
// after the batch in hand, well within it; one that does not is skipped, never waited for.
const nodeAnswerBound = 500 * time.Millisecond

// nodeLine is how a thread's line is read: one JSON object of a few hundred bytes, fields a
// newer preload adds skipped.
var nodeLine = strictjson.Rules{MaxBytes: 4 << 10}

// readNode reads every thread that listens in dir, all at once, each within bound.
func readNode(dir string, bound time.Duration) nodeRead {
	rd := nodeRead{At: time.Now(), Threads: map[int]nodeThread{}}
	socks, err := filepath.Glob(filepath.Join(dir, "*.sock"))
	if err == nil && len(socks) == 0 {
		err = noSockets(dir)
	}
	if err != nil {
		rd.Err = err
		return rd
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range socks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t, err := readThread(s, bound)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				rd.Skipped = append(rd.Skipped, fmt.Sprintf("%s: %v", filepath.Base(s), err))
				return
			}
			rd.Threads[t.Thread] = t
		}()
	}
	wg.Wait()
	sort.Strings(rd.Skipped)
	if len(rd.Threads) == 0 {
		rd.Err = fmt.Errorf("no thread answered: %s", strings.Join(rd.Skipped, "; "))
	}
	return rd
}

// noSockets is why dir holds no socket: the reasons the preload's threads left, or that it never
// ran.
func noSockets(dir string) error {
	errs, _ := filepath.Glob(filepath.Join(dir, "*.err"))
	var why []string
	for _, e := range errs {
		if b, err := os.ReadFile(e); err == nil {
			why = append(why, strings.TrimSpace(string(b)))
		}
	}
	if len(why) == 0 {
		return errors.New("no thread listened: the preload did not run (see the server's log)")
	}
	sort.Strings(why)
	return fmt.Errorf("the preload could not listen: %s", strings.Join(why, "; "))
}

// readThread reads one thread's line from its socket, within bound; the socket's name must be
// the thread the line says it is.
func readThread(sock string, bound time.Duration) (nodeThread, error) {
	c, err := net.DialTimeout("unix", sock, bound)
	if err != nil {
		return nodeThread{}, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(bound))
	b, err := io.ReadAll(io.LimitReader(c, int64(nodeLine.MaxBytes)+1))
	if err != nil {
		return nodeThread{}, fmt.Errorf("no answer within %s: %w", bound, err)
	}
	return decodeNodeLine(b, strings.TrimSuffix(filepath.Base(sock), ".sock"))
}

// decodeNodeLine is the one reading of a thread's line: one JSON object within nodeLine's
// bound, figures a thread can have, from the thread its socket is named after.
func decodeNodeLine(b []byte, thread string) (nodeThread, error) {
	var t nodeThread
	if err := nodeLine.Decode(b, &t); err != nil {
		return t, err
	}
	if err := t.check(); err != nil {
		return t, err
	}
	if thread != strconv.Itoa(t.Thread) {
		return t, fmt.Errorf("answered as thread %d", t.Thread)
	}
	return t, nil
}
