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
	port := freePort(t)
	srv := exec.Command(bin, "--port", strconv.Itoa(port))
	srv.Stdout, srv.Stderr = os.Stderr, os.Stderr
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	defer func() {
		srv.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-srv.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}()
	hostport := fmt.Sprintf("127.0.0.1:%d", port)
	if !settle(10*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", hostport, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	}) {
		t.Fatalf("soak: %s --port %d not accepting after 10 s", bin, port)
	}
	pid := srv.Process.Pid

	// Requests and expected answers from the scenarios.
	var mix []scenario.Scenario
	for _, n := range []string{"ping", "params", "json"} {
		sc, err := scenario.ByName(n)
		if err != nil {
			t.Fatal(err)
		}
		mix = append(mix, sc)
	}
	stream, err := scenario.ByName("stream")
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var done [4]atomic.Int64 // ping, params, json, stream
	var conns atomic.Int64
	var bad atomic.Int64
	var firstBad atomic.Value
	fail := func(format string, args ...any) {
		if bad.Add(1) == 1 {
			firstBad.Store(fmt.Sprintf(format, args...))
		}
	}
	var wg sync.WaitGroup
	worker := func(w int) {
		defer wg.Done()
		for ctx.Err() == nil {
			c, err := net.DialTimeout("tcp", hostport, 5*time.Second)
			if err != nil {
				fail("dial: %v", err)
				time.Sleep(100 * time.Millisecond)
				continue
			}
			conns.Add(1)
			br := bufio.NewReaderSize(c, 64<<10)
			for i := 0; i < 200 && ctx.Err() == nil; i++ {
				k := (w + i) % len(mix)
				sc := mix[k]
				c.SetDeadline(time.Now().Add(10 * time.Second))
				if _, err := c.Write(sc.Request(hostport)); err != nil {
					fail("%s: write: %v", sc.Name, err)
					break
				}
				res, err := http.ReadResponse(br, nil)
				if err != nil {
					fail("%s: %v", sc.Name, err)
					break
				}
				b, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil || res.StatusCode != sc.Want.Status {
					fail("%s: status %d, %v", sc.Name, res.StatusCode, err)
					break
				}
				if !sc.Want.JSON && !bytes.Equal(b, sc.Want.Body) {
					fail("%s: body %q, want %q", sc.Name, b, sc.Want.Body)
					break
				}
				if sc.Want.JSON && !sameJSON(b, sc.Want.Body) {
					fail("%s: body %q, want the JSON value %q", sc.Name, b, sc.Want.Body)
					break
				}
				done[k].Add(1)
			}
			c.Close()
		}
	}
	streamer := func() {
		defer wg.Done()
		buf := make([]byte, 256<<10)
		for ctx.Err() == nil {
			c, err := net.DialTimeout("tcp", hostport, 5*time.Second)
			if err != nil {
				fail("stream dial: %v", err)
				time.Sleep(100 * time.Millisecond)
				continue
			}
			conns.Add(1)
			br := bufio.NewReaderSize(c, 64<<10)
			for i := 0; i < 20 && ctx.Err() == nil; i++ {
				c.SetDeadline(time.Now().Add(30 * time.Second))
				if _, err := c.Write(stream.Request(hostport)); err != nil {
					fail("stream: write: %v", err)
					break
				}
				res, err := http.ReadResponse(br, nil)
				if err != nil {
					fail("stream: %v", err)
					break
				}
				n, err := io.CopyBuffer(io.Discard, res.Body, buf)
				res.Body.Close()
				if err != nil || n != int64(stream.Want.BodyLen) || res.StatusCode != 200 {
					if ctx.Err() == nil {
						fail("stream: status %d, %d of %d bytes, %v", res.StatusCode, n, stream.Want.BodyLen, err)
					}
					break
				}
				done[3].Add(1)
			}
			c.Close()
		}
	}
	for w := 0; w < 12; w++ {
		wg.Add(1)
		go worker(w)
	}
	for s := 0; s < 2; s++ {
		wg.Add(1)
		go streamer()
	}

	// Sample once a second until the load ends.
	var samples []soakSample
	start := time.Now()
	tick := time.NewTicker(time.Second)
	var died error
sampling:
	for {
		select {
		case <-ctx.Done():
			break sampling
		case err := <-exited:
			died = fmt.Errorf("server exited during the soak: %v", err)
			exited <- err
			cancel()
			break sampling
		case <-tick.C:
			rss, err1 := procRSS(pid)
			fds, err2 := procFDs(pid)
			if err1 != nil || err2 != nil {
				continue
			}
			samples = append(samples, soakSample{time.Since(start), rss, fds})
		}
	}
	tick.Stop()
	wg.Wait()
	if died != nil {
		t.Fatal(died)
	}

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
	total := done[0].Load() + done[1].Load() + done[2].Load() + done[3].Load()
	t.Logf("soak: %v on %s (pid %d): %d responses (ping %d, params %d, json %d, stream %d), %.0f/s, %d connections",
		dur, bin, pid, total, done[0].Load(), done[1].Load(), done[2].Load(), done[3].Load(),
		float64(total)/dur.Seconds(), conns.Load())
	if len(samples) > 0 {
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
	if len(fr) < 3 || len(lr) < 3 {
		t.Fatalf("soak: too few samples for a verdict (first window %d, last %d); use a longer -soak", len(fr), len(lr))
	}
	mf, ml := median(fr), median(lr)
	limit := mf + mf/10 + 4<<10
	t.Logf("soak: warm-up %v, windows of %v: median RSS first %.1f MiB, last %.1f MiB (limit %.1f MiB); median fds first %d, last %d (limit %d)",
		warm, win, float64(mf)/1024, float64(ml)/1024, float64(limit)/1024, median(ff), median(lf), median(ff)+4)
	if n := bad.Load(); n > 0 {
		t.Errorf("soak: %d wrong or failed responses; first: %v", n, firstBad.Load())
	}
	if ml > limit {
		t.Errorf("soak: RSS grew: median %.1f MiB in the last %v vs %.1f MiB in the first (limit first x 1.10 + 4 MiB = %.1f MiB)",
			float64(ml)/1024, win, float64(mf)/1024, float64(limit)/1024)
	}
	if median(lf) > median(ff)+4 {
		t.Errorf("soak: descriptors grew: median %d in the last %v vs %d in the first", median(lf), win, median(ff))
	}
}
