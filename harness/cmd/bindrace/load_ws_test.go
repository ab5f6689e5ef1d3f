package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/wstest"
)

func TestParseWSURL(t *testing.T) {
	cases := []struct{ in, addr, host, path, err string }{
		{"ws://127.0.0.1:9001/ws", "127.0.0.1:9001", "127.0.0.1:9001", "/ws", ""},
		{"ws://127.0.0.1:9001", "127.0.0.1:9001", "127.0.0.1:9001", "/ws", ""},
		{"127.0.0.1:9001/", "127.0.0.1:9001", "127.0.0.1:9001", "/ws", ""},
		{"http://localhost:80/echo?x=1", "localhost:80", "localhost:80", "/echo?x=1", ""},
		{"ws://[::1]:9/ws", "[::1]:9", "[::1]:9", "/ws", ""},
		{"wss://h:1/ws", "", "", "", "only ws://"},
		{"ws://h:0/ws", "", "", "", "bad port"},
		{"ws://:80/ws", "", "", "", "no host"},
	}
	for _, c := range cases {
		u, err := parseWSURL(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || u.Addr != c.addr || u.Host != c.host || u.Path != c.path {
			t.Errorf("%s: %+v %v", c.in, u, err)
		}
	}
}

func TestLoadWSCommandJSON(t *testing.T) {
	addr := wstest.EchoServer(t, nil)
	var out, errb bytes.Buffer
	code := loadCommand([]string{"--scenario", "ws-echo", "-c", "4", "--pipelining", "3", "-t", "2", "--count", "600", "--json",
		"ws://" + addr + "/ws"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var j map[string]any
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out.String())
	}
	for _, k := range []string{"rps", "responses", "p50_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "errors", "errors_by_kind", "unit"} {
		if _, ok := j[k]; !ok {
			t.Errorf("no %q in %s", k, out.String())
		}
	}
	if j["unit"] != "messages/s" || j["responses"] != 600.0 || j["errors"] != 0.0 || j["size"] != 64.0 || j["rps"].(float64) <= 0 {
		t.Fatalf("json %s", out.String())
	}
}

func TestLoadWSCommandHuman(t *testing.T) {
	addr := wstest.EchoServer(t, nil)
	var out, errb bytes.Buffer
	if code := loadCommand([]string{"--scenario", "ws-echo", "-c", "2", "-d", "0.3", "--warmup", "0.1", addr}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "Messages/sec:") || !strings.Contains(out.String(), "ws://"+addr+"/ws") {
		t.Fatalf("output:\n%s", out.String())
	}
}

func TestLoadWSCommandBadInput(t *testing.T) {
	cases := [][]string{
		{"--scenario", "ping", "ws://127.0.0.1:1/ws"},
		{"wss://127.0.0.1:1/ws"},
		{"--size", "0", "ws://127.0.0.1:1/ws"},
		{"-c", "0", "ws://127.0.0.1:1/ws"},
		{"--nope", "ws://127.0.0.1:1/ws"},
		{},
		{"--count", "1", "ws://127.0.0.1:1/ws"}, // nothing listening
	}
	for _, args := range cases {
		var out, errb bytes.Buffer
		if code := loadCommand(args, &out, &errb); code != 2 || out.Len() != 0 || errb.Len() == 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := loadCommand([]string{"--help"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "--pipelining") {
		t.Errorf("--help: exit %d", code)
	}
}
