//go:build soak

package binding

// The soak (make soak; build tag soak, so not in go test ./... or CI): a binding-server process
// under a steady mixed load for a long time, sampled once a second, failing on memory or
// descriptor growth.
//
//	go test -tags soak -run '^TestSoak$' -timeout 0 -v ./binding -soak 10m -soak.server bin/binding-server
//
// Load: 12 keep-alive connections cycling ping, params and json (one request in flight each,
// every response checked against the scenario), 2 connections streaming the 14 MB video and
// checking its length, and connection churn (each request connection is replaced after 200
// requests). Every second: the server's VmRSS (/proc/PID/status) and open descriptors
// (/proc/PID/fd).
//
// Growth (the verdict): the first warm-up = min(60 s, duration/5) is excluded; then window =
// min(60 s, (duration - warm-up)/3) seconds at the start ("first") and at the end ("last").
// It fails if median RSS(last) > median RSS(first) x 1.10 + 4 MiB, if median fds(last) >
// median fds(first) + 4, if any response was wrong, or if the server exited.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/scenario"
)

var (
	soakDuration = flag.Duration("soak", 10*time.Minute, "how long TestSoak runs")
	soakServer   = flag.String("soak.server", "../bin/binding-server", "binding-server binary for TestSoak")
)

type soakSample struct {
	at  time.Duration
	rss int64 // KiB
	fds int
}

func procRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			return strconv.ParseInt(strings.Fields(line)[1], 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

func procFDs(pid int) (int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(ents), err
}

func median[T int | int64](v []T) T {
	s := append([]T(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestSoak(t *testing.T) {
	dur := *soakDuration
	bin, err := filepath.Abs(*soakServer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("soak: server binary %s: %v (run make build first)", bin, err)
	}
	srv := startSoakServer(t, bin)
	defer srv.stop()
	ld := newSoakLoad(t, srv.hostport)
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	ld.start(ctx)
	samples, died := srv.sample(ctx, cancel)
	ld.wg.Wait()
	if died != nil {
		t.Fatal(died)
	}
	total := ld.done[0].Load() + ld.done[1].Load() + ld.done[2].Load() + ld.done[3].Load()
	t.Logf("soak: %v on %s (pid %d): %d responses (ping %d, params %d, json %d, stream %d), %.0f/s, %d connections",
		dur, bin, srv.pid, total, ld.done[0].Load(), ld.done[1].Load(), ld.done[2].Load(), ld.done[3].Load(),
		float64(total)/dur.Seconds(), ld.conns.Load())
	logSamples(t, samples)
	if n := ld.bad.Load(); n > 0 {
		t.Errorf("soak: %d wrong or failed responses; first: %v", n, ld.firstBad.Load())
	}
	judgeGrowth(t, samples, dur)
}

// soakProc is the binding-server process under soak.
type soakProc struct {
	pid      int
	hostport string
	exited   chan error
	stop     func()
}

// startSoakServer starts bin on a free port and waits until it accepts connections.
func startSoakServer(t *testing.T, bin string) *soakProc {
	port := freePort(t)
	srv := exec.Command(bin, "--port", strconv.Itoa(port))
	srv.Stdout, srv.Stderr = os.Stderr, os.Stderr
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	s := &soakProc{pid: srv.Process.Pid, hostport: fmt.Sprintf("127.0.0.1:%d", port), exited: make(chan error, 1)}
	go func() { s.exited <- srv.Wait() }()
	s.stop = func() {
		srv.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-srv.Process.Pid, syscall.SIGKILL)
			<-s.exited
		}
	}
	if !settle(10*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", s.hostport, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	}) {
		s.stop()
		t.Fatalf("soak: %s --port %d not accepting after 10 s", bin, port)
	}
	return s
}

// sample reads the server's RSS and descriptors once a second until ctx ends; if the server
// exits first it cancels the load and returns why.
func (s *soakProc) sample(ctx context.Context, cancel func()) (samples []soakSample, died error) {
	start := time.Now()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return samples, nil
		case err := <-s.exited:
			s.exited <- err
			cancel()
			return samples, fmt.Errorf("server exited during the soak: %v", err)
		case <-tick.C:
			rss, err1 := procRSS(s.pid)
			fds, err2 := procFDs(s.pid)
			if err1 != nil || err2 != nil {
				continue
			}
			samples = append(samples, soakSample{time.Since(start), rss, fds})
		}
	}
}

// soakLoad is the soak's clients: requests of the mix (ping, params, json) and streams, each
// response checked; the counts and the first wrong answer.
type soakLoad struct {
	hostport string
	mix      []scenario.Scenario
	stream   scenario.Scenario
	done     [4]atomic.Int64 // ping, params, json, stream
	conns    atomic.Int64
	bad      atomic.Int64
	firstBad atomic.Value
	wg       sync.WaitGroup
}

func newSoakLoad(t *testing.T, hostport string) *soakLoad {
	ld := &soakLoad{hostport: hostport}
	for _, n := range []string{"ping", "params", "json"} {
		sc, err := scenario.ByName(n)
		if err != nil {
			t.Fatal(err)
		}
		ld.mix = append(ld.mix, sc)
	}
	stream, err := scenario.ByName("stream")
	if err != nil {
		t.Fatal(err)
	}
	ld.stream = stream
	return ld
}

func (ld *soakLoad) fail(format string, args ...any) {
	if ld.bad.Add(1) == 1 {
		ld.firstBad.Store(fmt.Sprintf(format, args...))
	}
}

// start runs 12 request connections and 2 streaming ones until ctx ends (wait on ld.wg).
func (ld *soakLoad) start(ctx context.Context) {
	for w := 0; w < 12; w++ {
		ld.wg.Add(1)
		go ld.worker(ctx, w)
	}
	for s := 0; s < 2; s++ {
		ld.wg.Add(1)
		go ld.streamer(ctx)
	}
}

// dial connects, counting the connection; false (after a pause) when it failed.
func (ld *soakLoad) dial(what string) (net.Conn, bool) {
	c, err := net.DialTimeout("tcp", ld.hostport, 5*time.Second)
	if err != nil {
		ld.fail("%s: %v", what, err)
		time.Sleep(100 * time.Millisecond)
		return nil, false
	}
	ld.conns.Add(1)
	return c, true
}

// worker sends the mix's requests one at a time, 200 per connection.
func (ld *soakLoad) worker(ctx context.Context, w int) {
	ld.connections(ctx, "dial", 200, func(c net.Conn, br *bufio.Reader, i int) bool {
		k := (w + i) % len(ld.mix)
		if !ld.request(c, br, ld.mix[k]) {
			return false
		}
		ld.done[k].Add(1)
		return true
	})
}

// connections opens connection after connection until ctx is done, each for up to perConn
// exchanges: exchange i returns false to drop the connection (after ld.fail).
func (ld *soakLoad) connections(ctx context.Context, dialWhat string, perConn int, exchange func(c net.Conn, br *bufio.Reader, i int) bool) {
	defer ld.wg.Done()
	for ctx.Err() == nil {
		c, ok := ld.dial(dialWhat)
		if !ok {
			continue
		}
		br := bufio.NewReaderSize(c, 64<<10)
		for i := 0; i < perConn && ctx.Err() == nil; i++ {
			if !exchange(c, br, i) {
				break
			}
		}
		c.Close()
	}
}

// request sends one request of sc and checks the answer.
func (ld *soakLoad) request(c net.Conn, br *bufio.Reader, sc scenario.Scenario) bool {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(sc.Request(ld.hostport)); err != nil {
		ld.fail("%s: write: %v", sc.Name, err)
		return false
	}
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		ld.fail("%s: %v", sc.Name, err)
		return false
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	switch {
	case err != nil || res.StatusCode != sc.Want.Status:
		ld.fail("%s: status %d, %v", sc.Name, res.StatusCode, err)
	case !sc.Want.JSON && !bytes.Equal(b, sc.Want.Body):
		ld.fail("%s: body %q, want %q", sc.Name, b, sc.Want.Body)
	case sc.Want.JSON && !sameJSON(b, sc.Want.Body):
		ld.fail("%s: body %q, want the JSON value %q", sc.Name, b, sc.Want.Body)
	default:
		return true
	}
	return false
}

// streamer fetches the video, 20 times per connection, checking its length.
func (ld *soakLoad) streamer(ctx context.Context) {
	buf := make([]byte, 256<<10)
	ld.connections(ctx, "stream dial", 20, func(c net.Conn, br *bufio.Reader, _ int) bool {
		c.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := c.Write(ld.stream.Request(ld.hostport)); err != nil {
			ld.fail("stream: write: %v", err)
			return false
		}
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			ld.fail("stream: %v", err)
			return false
		}
		n, err := io.CopyBuffer(io.Discard, res.Body, buf)
		res.Body.Close()
		if err != nil || n != int64(ld.stream.Want.BodyLen) || res.StatusCode != 200 {
			if ctx.Err() == nil {
				ld.fail("stream: status %d, %d of %d bytes, %v", res.StatusCode, n, ld.stream.Want.BodyLen, err)
			}
			return false
		}
		ld.done[3].Add(1)
		return true
	})
}

// logSamples logs the first, largest and last sample and about a dozen in between.
func logSamples(t *testing.T, samples []soakSample) {
	if len(samples) == 0 {
		return
	}
	var maxR int64
	var maxF int
	for _, s := range samples {
		maxR, maxF = max(maxR, s.rss), max(maxF, s.fds)
	}
	t.Logf("soak: %d samples; RSS first %.1f MiB, max %.1f MiB, last %.1f MiB; fds first %d, max %d, last %d",
		len(samples), float64(samples[0].rss)/1024, float64(maxR)/1024, float64(samples[len(samples)-1].rss)/1024,
		samples[0].fds, maxF, samples[len(samples)-1].fds)
	step := max(1, len(samples)/12)
	var line strings.Builder
	for i := 0; i < len(samples); i += step {
		fmt.Fprintf(&line, " %ds:%.1fMiB/%dfd", int(samples[i].at.Seconds()), float64(samples[i].rss)/1024, samples[i].fds)
	}
	t.Logf("soak: samples (t:RSS/fds):%s", line.String())
}

// judgeGrowth compares the first window after the warm-up with the last: median RSS may grow by
// 10% + 4 MiB, median descriptors by 4.
func judgeGrowth(t *testing.T, samples []soakSample, dur time.Duration) {
	warm := min(60*time.Second, dur/5)
	win := min(60*time.Second, (dur-warm)/3)
	var fr, lr []int64
	var ff, lf []int
	for _, s := range samples {
		switch {
		case s.at >= warm && s.at < warm+win:
			fr, ff = append(fr, s.rss), append(ff, s.fds)
		case s.at >= dur-win:
			lr, lf = append(lr, s.rss), append(lf, s.fds)
		}
	}
	if len(fr) < 3 || len(lr) < 3 {
		t.Fatalf("soak: too few samples for a verdict (first window %d, last %d); use a longer -soak", len(fr), len(lr))
	}
	mf, ml := median(fr), median(lr)
	limit := mf + mf/10 + 4<<10
	t.Logf("soak: warm-up %v, windows of %v: median RSS first %.1f MiB, last %.1f MiB (limit %.1f MiB); median fds first %d, last %d (limit %d)",
		warm, win, float64(mf)/1024, float64(ml)/1024, float64(limit)/1024, median(ff), median(lf), median(ff)+4)
	if ml > limit {
		t.Errorf("soak: RSS grew: median %.1f MiB in the last %v vs %.1f MiB in the first (limit first x 1.10 + 4 MiB = %.1f MiB)",
			float64(ml)/1024, win, float64(mf)/1024, float64(limit)/1024)
	}
	if median(lf) > median(ff)+4 {
		t.Errorf("soak: descriptors grew: median %d in the last %v vs %d in the first", median(lf), win, median(ff))
	}
}
