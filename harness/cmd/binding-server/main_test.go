package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bindrace/bindrace/binding"
	"github.com/bindrace/bindrace/harness/internal/loopback"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/gorilla/websocket"
)

// TestMain lets the test binary run as the server itself (for the signal test).
func TestMain(m *testing.M) {
	if os.Getenv("BINDING_SERVER_AS_MAIN") == "1" {
		os.Args = append([]string{"binding-server"}, strings.Fields(os.Getenv("BINDING_SERVER_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func check(t *testing.T, s scenario.Scenario, res *http.Response) {
	t.Helper()
	got, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	w := s.Want
	if res.StatusCode != w.Status {
		t.Fatalf("%s: status %d", s.Name, res.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("content-type")); mt != w.ContentType {
		t.Fatalf("%s: content-type %q", s.Name, res.Header.Get("content-type"))
	}
	for k, v := range w.Header {
		if res.Header.Get(k) != v {
			t.Fatalf("%s: header %s=%q", s.Name, k, res.Header.Get(k))
		}
	}
	switch {
	case w.BodySHA256 != "":
		sum := sha256.Sum256(got)
		if len(got) != w.BodyLen || hex.EncodeToString(sum[:]) != w.BodySHA256 {
			t.Fatalf("%s: %d bytes, bad hash", s.Name, len(got))
		}
	case w.JSON:
		var a, b any
		if json.Unmarshal(got, &a) != nil || json.Unmarshal(w.Body, &b) != nil || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("%s: body %q", s.Name, got)
		}
	default:
		if !bytes.Equal(got, w.Body) {
			t.Fatalf("%s: body %q", s.Name, got)
		}
	}
}

func TestScenarios(t *testing.T) {
	for _, static := range []bool{false, true} {
		t.Run(fmt.Sprintf("static=%v", static), func(t *testing.T) {
			app, err := newApp(binding.Config{}, static, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := app.Listen("127.0.0.1:0", 2); err != nil {
				t.Fatal(err)
			}
			defer app.Shutdown(context.Background())
			host := fmt.Sprintf("127.0.0.1:%d", app.Port())
			c, err := net.Dial("tcp", host)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			br := bufio.NewReader(c)
			for _, s := range scenario.HTTP() {
				for i := 0; i < 2; i++ { // twice on one keep-alive connection
					c.Write(s.Request(host))
					res, err := http.ReadResponse(br, nil)
					if err != nil {
						t.Fatalf("%s: %v", s.Name, err)
					}
					check(t, s, res)
				}
			}
			checkWSEcho(t, host)
			res, err := http.Get("http://" + host + scenario.InfoPath)
			if err != nil {
				t.Fatal(err)
			}
			var heap map[string]any
			if err := json.NewDecoder(res.Body).Decode(&heap); err != nil || heap["heap_bytes"] == 0.0 || heap["threads"] != 2.0 || heap["counters"] == nil {
				t.Fatalf("info: %v %v", heap, err)
			}
			res.Body.Close()
			for _, r := range scenario.BackgroundRoutes {
				path := strings.NewReplacer(":id", "1", ":post", "2", ":comment", "3", ":version", "4", "*", "x").Replace(r.Path)
				req, _ := http.NewRequest(r.Method, "http://"+host+path, nil)
				res, err := http.DefaultClient.Do(req)
				if err != nil || res.StatusCode != 200 {
					t.Fatalf("%s %s: %v %v", r.Method, path, res, err)
				}
				res.Body.Close()
			}
		})
	}
}

// checkWSEcho runs ws-echo's exchange: a binary WSMessageSize message, a text message, a ping,
// and a close 1000 answered with 1000.
func checkWSEcho(t *testing.T, host string) {
	t.Helper()
	c, res, err := websocket.DefaultDialer.Dial("ws://"+host+scenario.WSPath, nil)
	if err != nil || res.StatusCode != 101 {
		t.Fatalf("ws-echo: upgrade: %v", err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	pong := make(chan string, 1)
	c.SetPongHandler(func(p string) error { pong <- p; return nil })
	for _, m := range []struct {
		op  int
		msg []byte
	}{{websocket.BinaryMessage, scenario.WSPayload(scenario.WSMessageSize)}, {websocket.TextMessage, []byte("héllo")}} {
		if err := c.WriteMessage(m.op, m.msg); err != nil {
			t.Fatal(err)
		}
		op, got, err := c.ReadMessage()
		if err != nil || op != m.op || !bytes.Equal(got, m.msg) {
			t.Fatalf("ws-echo: got %d %q %v", op, got, err)
		}
	}
	c.WriteControl(websocket.PingMessage, []byte("p"), time.Now().Add(time.Second))
	c.WriteMessage(websocket.BinaryMessage, []byte{1}) // reading its echo handles the pong
	if _, _, err := c.ReadMessage(); err != nil {
		t.Fatalf("ws-echo: %v", err)
	}
	select {
	case p := <-pong:
		if p != "p" {
			t.Fatalf("ws-echo: pong %q", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ws-echo: no pong")
	}
	c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(1000, ""))
	if _, _, err := c.ReadMessage(); !websocket.IsCloseError(err, 1000) {
		t.Fatalf("ws-echo: close: %v", err)
	}
}

// SIGTERM shuts the server down gracefully and it exits 0; a missing --port is an error.
func TestSignalAndFlags(t *testing.T) {
	port := loopback.Unused(t).Port
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BINDING_SERVER_AS_MAIN=1", fmt.Sprintf("BINDING_SERVER_ARGS=--port %d --threads 2", port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/", port)
	deadline := time.Now().Add(5 * time.Second)
	for {
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}

	bad := exec.Command(os.Args[0], "-test.run=^$")
	bad.Env = append(os.Environ(), "BINDING_SERVER_AS_MAIN=1", "BINDING_SERVER_ARGS=--threads 1")
	out, err := bad.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--port") {
		t.Fatalf("missing --port: %v %s", err, out)
	}
}

// --cpuprofile writes a new file only: a file already there is refused, untouched, and a new
// one is written.
func TestCPUProfileRefusesAFileThere(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := startCPUProfile(mine); err == nil || !strings.Contains(err.Error(), "the file exists") {
		t.Errorf("--cpuprofile over a file: %v", err)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "mine" {
		t.Errorf("the file: %q, %v", b, err)
	}
	fresh := filepath.Join(dir, "cpu.pprof")
	stop, err := startCPUProfile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if st, err := os.Stat(fresh); err != nil || st.Size() == 0 {
		t.Errorf("the new profile: %v", err)
	}
}
