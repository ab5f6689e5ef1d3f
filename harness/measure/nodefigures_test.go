package measure

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeThread listens on dir/<name>.sock and answers each connection with line (nil: holds the
// connection open, answering nothing, as a thread stuck in a long handler would).
func fakeThread(t *testing.T, dir, name string, line []byte) {
	ln, err := net.Listen("unix", filepath.Join(dir, name+".sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if line == nil {
				t.Cleanup(func() { c.Close() })
				continue
			}
			c.Write(line)
			c.Close()
		}
	}()
}

// TestReadNode: every thread is read at once; one that does not answer within the bound, or
// answers nonsense, is skipped with the reason and never holds the read up.
func TestReadNode(t *testing.T) {
	dir := t.TempDir()
	fakeThread(t, dir, "0", []byte(`{"thread":0,"elu_idle_ms":10,"elu_active_ms":90,"heap_used_bytes":1024,"heap_total_bytes":2048,"gc_observed":true,"gc_count":1,"gc_ms":0.5,"newer_field":1}`+"\n"))
	fakeThread(t, dir, "1", nil)
	fakeThread(t, dir, "2", []byte("not json\n"))
	fakeThread(t, dir, "3", []byte(`{"thread":3,"elu_idle_ms":-5}`))
	fakeThread(t, dir, "4", []byte(`{"thread":9}`))
	bound := 150 * time.Millisecond
	began := time.Now()
	rd := readNode(dir, bound)
	if took := time.Since(began); took > 3*bound {
		t.Errorf("read took %s with a bound of %s", took, bound)
	}
	if rd.Err != nil || len(rd.Threads) != 1 || rd.Threads[0].ELUActiveMs != 90 || rd.Threads[0].HeapTotal != 2048 {
		t.Fatalf("read %+v", rd)
	}
	skipped := strings.Join(rd.Skipped, "\n")
	for _, want := range []string{"1.sock: no answer within", "2.sock: ", "3.sock: elu_idle_ms is -5", "4.sock: answered as thread 9"} {
		if !strings.Contains(skipped, want) {
			t.Errorf("skipped %q: want %q", skipped, want)
		}
	}
}

// TestReadNodeNothing: with no socket the read says why: the preload's own reasons when it left
// them, otherwise that it did not run; a directory that is gone is said too.
func TestReadNodeNothing(t *testing.T) {
	dir := t.TempDir()
	if rd := readNode(dir, time.Second); rd.Err == nil || !strings.Contains(rd.Err.Error(), "the preload did not run") {
		t.Errorf("empty directory: %v", rd.Err)
	}
	os.WriteFile(filepath.Join(dir, "0.err"), []byte("cannot listen on x/0.sock: the path is longer than 107 bytes\n"), 0o644)
	if rd := readNode(dir, time.Second); rd.Err == nil || !strings.Contains(rd.Err.Error(), "could not listen: cannot listen on x/0.sock: the path is longer") {
		t.Errorf("a reason left: %v", rd.Err)
	}
	if rd := readNode(filepath.Join(dir, "gone"), time.Second); rd.Err == nil {
		t.Error("a missing directory read as fine")
	}
}

// FuzzDecodeNodeLine: a thread's line, seeded with real lines of the preload (main thread and a
// worker); whatever it is sent never panics, what is accepted holds figures a thread can have,
// and it survives an encode-decode round trip unchanged.
func FuzzDecodeNodeLine(f *testing.F) {
	for name, thread := range map[string]string{"node-line-main.json": "0", "node-line-worker.json": "1"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, thread)
	}
	f.Add([]byte(`{"thread":0,"elu_idle_ms":1e308,"elu_active_ms":-0}`), "0")
	f.Add([]byte(`{"thread":0}{"thread":0}`), "0")
	f.Fuzz(func(t *testing.T, b []byte, thread string) {
		got, err := decodeNodeLine(b, thread)
		if err != nil {
			return
		}
		if err := got.check(); err != nil {
			t.Fatalf("accepted %q: %v", b, err)
		}
		enc, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeNodeLine(enc, thread)
		if err != nil || again != got {
			t.Fatalf("round trip of %q: %+v, %v; want %+v", b, again, err, got)
		}
	})
}
