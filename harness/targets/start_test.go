package targets

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/loopback"
	"github.com/bindrace/bindrace/harness/scenario"
)

func checkStatus(t *testing.T, addr, method, path string, want int) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://"+addr+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("%s %s: %v", method, path, err)
		return
	}
	resp.Body.Close()
	if resp.StatusCode != want {
		t.Errorf("%s %s: status %d, want %d", method, path, resp.StatusCode, want)
	}
}

// TestGoTargets runs each Go target as its go-server process and verifies every scenario
// (ws-echo included); unknown paths and methods are 404 and the background routes answer.
func TestGoTargets(t *testing.T) {
	for _, name := range []string{"fasthttp", "nethttp"} {
		t.Run(name, func(t *testing.T) {
			tg, err := Resolve(name)
			if err != nil {
				t.Fatal(err)
			}
			s := startT(t, tg, StartOptions{})
			if err := Verify(context.Background(), name, s.Addr(), scenario.All()); err != nil {
				t.Errorf("Verify: %v", err)
			}
			checkStatus(t, s.Addr(), "GET", "/nope", 404)
			checkStatus(t, s.Addr(), "GET", "/api/v1/users/7/posts", 200)
			checkStatus(t, s.Addr(), "GET", "/static/a/b", 200)
			checkStatus(t, s.Addr(), "DELETE", "/api/v1/users/7", 200)
			checkStatus(t, s.Addr(), "GET", scenario.WSPath, 400) // not an upgrade request
		})
	}
}

// TestStartStopGoTarget runs a Go target as its go-server process, samples it, and checks
// Stop leaves nothing behind.
func TestStartStopGoTarget(t *testing.T) {
	tg, _ := Resolve("fasthttp")
	s := startT(t, tg, StartOptions{CPUs: "0"})
	if s.Startup <= 0 || s.Pid <= 0 {
		t.Fatalf("server %+v", s)
	}
	if err := Verify(context.Background(), tg.Name, s.Addr(), scenario.HTTP()); err != nil {
		t.Fatal(err)
	}
	u, err := s.Usage()
	if err != nil {
		t.Fatal(err)
	}
	// The video is 14 MiB and resident once built.
	if u.RSSBytes < scenario.VideoSize || u.PeakRSSBytes < u.RSSBytes || u.CPUSeconds <= 0 {
		t.Errorf("usage %+v", u)
	}
	// It lives outside the collected heap (goservers/video.go), as the binding keeps it natively.
	if h, err := s.Info(); err != nil || h.HeapBytes <= 0 || h.HeapBytes >= scenario.VideoSize {
		t.Errorf("info %+v, %v", h, err)
	}
	// taskset execs the server: the pid is the server itself, pinned to CPU 0.
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.Pid))
	if !bytes.Contains(status, []byte("Cpus_allowed_list:\t0\n")) {
		t.Errorf("pid %d is not the pinned server:\n%s", s.Pid, status)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	select {
	case <-s.Exited():
	default:
		t.Error("Exited not closed after Stop")
	}
	waitGone(t, s.Pid, "fasthttp server")
	if _, err := s.Usage(); err == nil {
		t.Error("Usage of a stopped server succeeded")
	}
}

// TestStopKillsGroup: a server that spawned a helper is stopped with its helper.
func TestStopKillsGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := dir + "/helper.pid"
	srv := writeScript(t, "hi.py", hiServer)
	tg, _ := Resolve(fmt.Sprintf("cmd:sleep 300 & echo $! > %s; exec python3 %s {port}", pidFile, srv))
	s := startT(t, tg, StartOptions{})
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	helper, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if !alive(helper) {
		t.Fatalf("helper %d not running", helper)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	waitGone(t, s.Pid, "server")
	waitGone(t, helper, "helper in the server's process group")
}

// TestContextCancelStops: cancelling Start's context stops the server (the CLI's Ctrl-C path).
func TestContextCancelStops(t *testing.T) {
	tg, _ := Resolve("nethttp")
	ctx, cancel := context.WithCancel(context.Background())
	s, err := tg.Start(ctx, StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-s.Exited():
	case <-time.After(5 * time.Second):
		t.Fatal("server still running after cancel")
	}
	waitGone(t, s.Pid, "nethttp server")
}

func TestStopAll(t *testing.T) {
	tg, _ := Resolve("nethttp")
	s, err := tg.Start(context.Background(), StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := StopAll(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, s.Pid, "nethttp server")
}

func TestExitsImmediately(t *testing.T) {
	tg, _ := Resolve("cmd:echo 'cannot open config file' >&2; exit 3")
	start := time.Now()
	_, err := tg.Start(context.Background(), StartOptions{})
	if err == nil {
		t.Fatal("Start succeeded")
	}
	for _, want := range []string{"exited during start-up", "exit status 3", "cannot open config file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("took %s to notice the exit", time.Since(start))
	}
}

func TestNeverReady(t *testing.T) {
	tg, _ := Resolve("cmd:sleep 30")
	_, err := tg.Start(context.Background(), StartOptions{StartTimeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no valid answer") {
		t.Fatalf("Start = %v", err)
	}
}

func TestPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	want := fmt.Sprintf("port %d is in use", port)

	tg, _ := Resolve("nethttp")
	if _, err := tg.Start(context.Background(), StartOptions{Port: port}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Start = %v, want %q", err, want)
	}
	fh, _ := Resolve("fasthttp")
	if err := Serve(context.Background(), fh, ServeOptions{Port: port}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Serve = %v; want %q", err, want)
	}
}

// TestPortTakenWhileStarting: the picked port is taken by another process answering "hi" before
// the server binds it. Whether the server fails to bind and exits (python) or is still starting
// when the readiness ping reaches the other process (sleep first), Start sees the port is not
// its server's and starts it on another port.
func TestPortTakenWhileStarting(t *testing.T) {
	ln, _ := loopback.Listen(t)
	foreign := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("hi")) })}
	go foreign.Serve(ln)
	defer foreign.Close()
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	taken, _ := strconv.Atoi(p)
	srv := writeScript(t, "hi.py", hiServer)
	for _, cmd := range []string{"python3 " + srv + " {port}", "sh -c 'sleep 1; exec python3 " + srv + " {port}'"} {
		calls := 0
		pickPort = func() (int, error) {
			if calls++; calls == 1 {
				return taken, nil
			}
			return freePort()
		}
		tg, _ := Resolve("cmd:" + cmd)
		s := startT(t, tg, StartOptions{})
		pickPort = freePort
		if calls != 2 || s.Port == taken {
			t.Errorf("%s: %d ports picked, serving on %d (taken: %d)", cmd, calls, s.Port, taken)
		}
		if !s.ownsListener() {
			t.Errorf("%s: server pid %d does not own its listener on %d", cmd, s.Pid, s.Port)
		}
		if (&Server{Pid: s.Pid, Port: taken}).ownsListener() {
			t.Errorf("%s: server pid %d said to own the other listener on %d", cmd, s.Pid, taken)
		}
	}
}

func TestStopReportsCrash(t *testing.T) {
	srv := writeScript(t, "hi.py", hiServer)
	tg, _ := Resolve("cmd:python3 " + srv + " {port}")
	s := startT(t, tg, StartOptions{})
	// Kill it behind the harness's back: Exited fires and Stop says it had died.
	if err := syscallKill(s.Pid); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Exited():
	case <-time.After(3 * time.Second):
		t.Fatal("Exited not closed after the server died")
	}
	err := s.Stop()
	if err == nil || !strings.Contains(err.Error(), "had already exited") {
		t.Fatalf("Stop after crash = %v", err)
	}
}

// TestWrongAnswerAtStart: a server that answers, but not what the scenario wants, fails its start
// naming the answer. The timeout only bounds a server that never answers: beside a CPU hog,
// python's http.server took over 1.5 s to answer its first GET (a fresh clone's make test).
func TestWrongAnswerAtStart(t *testing.T) {
	tg, _ := Resolve("cmd:python3 -m http.server --bind 127.0.0.1 {port}")
	began := time.Now()
	_, err := tg.Start(context.Background(), StartOptions{StartTimeout: time.Minute})
	if err == nil || !strings.Contains(err.Error(), `GET / answered 200 "<!DOCTYPE`) || !strings.Contains(err.Error(), "in a row") {
		t.Fatalf("Start = %v", err)
	}
	// Wrong answers in a row end the start: it does not wait out the minute.
	if took := time.Since(began); took > 30*time.Second {
		t.Errorf("the start failed after %s of its %s", took, time.Minute)
	}
}
