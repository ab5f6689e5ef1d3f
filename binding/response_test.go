package binding

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Bodies and headers larger than the initial arenas grow them mid-batch without losing earlier
// answers of the same batch.
func TestLargeResponsesInOneBatch(t *testing.T) {
	big := strings.Repeat("x", 300<<10)
	a := testApp(t, Config{}, 1, func(a *App) {
		a.Get("/big/:n", func(w *Response, r *Request) {
			w.Header("x-long", big[:20000])
			w.Write(r.Param("n"))
			w.WriteString(big)
		})
	})
	c := dial(t, a)
	br := bufio.NewReader(c)
	io.WriteString(c, get("/big/1")+get("/")+get("/big/2")+get("/big/3"))
	for _, want := range []string{"1" + big, "hi", "2" + big, "3" + big} {
		res := roundTrip(t, c, br, "", "GET")
		if got := body(t, res); got != want || (len(want) > 2 && len(res.Header.Get("x-long")) != 20000) {
			t.Fatalf("got %d bytes, want %d", len(got), len(want))
		}
	}
}

// A detached response keeps its place: pipelined answers behind it wait for it.
func TestAsyncInOrder(t *testing.T) {
	a := testApp(t, Config{}, 2, asyncRoutes)
	conn := dial(t, a)
	br := bufio.NewReader(conn)
	io.WriteString(conn, get("/async/50")+get("/")+get("/s")+get("/async/1")+get("/id/3?name=z"))
	for _, want := range []string{"async 50", "hi", "static", "async 1", "3 z"} {
		if got := body(t, roundTrip(t, conn, br, "", "GET")); got != want {
			t.Fatalf("%q want %q", got, want)
		}
	}
}

// Send ends a response with what was written before it and p; p is the caller's again when it
// returns (the worker scribbles over it at once), and a finished response refuses more. Inside a
// handler Send writes, and the return ends the response.
func TestSend(t *testing.T) {
	errs := make(chan error, 1)
	a := testApp(t, Config{}, 1, func(a *App) {
		a.Get("/send/later", func(w *Response, r *Request) {
			d := w.Detach()
			go func() {
				d.Header("x-k", "v")
				d.WriteString("written ")
				p := []byte("sent")
				err := d.Send(p)
				copy(p, "XXXX")
				if err == nil && d.Send(p) != ErrFinished {
					err = errors.New("a second Send was not refused")
				}
				errs <- err
			}()
		})
		a.Get("/send/now", func(w *Response, r *Request) {
			w.WriteString("in ")
			w.Send([]byte("handler"))
		})
	})
	c := dial(t, a)
	br := bufio.NewReader(c)
	io.WriteString(c, get("/send/later")+get("/send/now"))
	res := roundTrip(t, c, br, "", "GET")
	if got := body(t, res); got != "written sent" || res.Header.Get("x-k") != "v" {
		t.Errorf("detached: body %q, x-k %q", got, res.Header.Get("x-k"))
	}
	if err := <-errs; err != nil {
		t.Error(err)
	}
	if got := body(t, roundTrip(t, c, br, "", "GET")); got != "in handler" {
		t.Errorf("in the handler: body %q", got)
	}
}

// validValue's word-at-a-time check agrees with the byte rule for every byte value at every
// position of every length up to 17 (two words and a tail), among valid neighbours that take
// the fast path (no tab: a tab sends its word to the byte-by-byte check).
func TestValidValueEveryByte(t *testing.T) {
	for n := 1; n <= 17; n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				v := []byte(strings.Repeat("ab~\x80 Z", 3)[:n])
				v[pos] = byte(c)
				want := (c >= 0x20 || c == '\t') && c != 0x7f
				if got := validValue(string(v)); got != want {
					t.Fatalf("validValue(%q) = %v, want %v", v, got, want)
				}
			}
		}
	}
}

// validName's word-at-a-time check agrees with the token table for every byte value at every
// position of every length up to 17, among neighbours that take the fast path (letters of both
// cases, digits and '-') and among ones that do not ('!' and '~' send a word to the table).
func TestValidNameEveryByte(t *testing.T) {
	for _, fill := range []string{"aZ-09xY", "a!Z~-b9"} {
		for n := 1; n <= 17; n++ {
			for pos := 0; pos < n; pos++ {
				for c := 0; c < 256; c++ {
					k := []byte(strings.Repeat(fill, 3)[:n])
					k[pos] = byte(c)
					if got, want := validName(string(k)), tokenBytes(k); got != want {
						t.Fatalf("validName(%q) = %v, want %v", k, got, want)
					}
				}
			}
		}
	}
	if validName("") {
		t.Error(`validName("") = true`)
	}
}

// Every request's Response starts as new, whatever the handler before it on the loop did with
// its own: begin resets the loop's Response field by field, so each field a handler can change
// is changed here before a plain answer, in one batch and across connections of one loop.
func TestResponseStartsClean(t *testing.T) {
	type plainErrs struct{ header, write error }
	errs := make(chan plainErrs, 16)
	shared := NewBody([]byte("shared"))
	t.Cleanup(shared.Release) // after the app's shutdown (cleanups run last first)
	a := testApp(t, Config{}, 1, func(a *App) {
		a.Get("/status", func(w *Response, r *Request) {
			w.Status(201)
			w.Header("x-a", "1")
			w.Header("x-b", "2")
			w.WriteString("status")
		})
		a.Get("/shared", func(w *Response, r *Request) { w.SendBody(shared) })
		a.Get("/stream", func(w *Response, r *Request) {
			s, err := w.Stream(-1)
			if err == nil {
				s.Write([]byte("stream"))
				s.Close()
			}
		})
		a.Get("/detach", func(w *Response, r *Request) {
			d := w.Detach()
			go func() { d.WriteString("detached"); d.End() }()
		})
		a.Get("/panic", func(w *Response, r *Request) {
			w.Header("x-a", "1")
			w.WriteString("lost")
			panic("boom")
		})
		a.Get("/close", func(w *Response, r *Request) { w.Header("connection", "close"); w.WriteString("close") })
		a.Get("/plain", func(w *Response, r *Request) {
			var e plainErrs
			e.header = w.Header("x-p", "1")
			_, e.write = w.WriteString("plain")
			errs <- e
		})
	})
	checkPlain := func(res *http.Response, after string) {
		t.Helper()
		e := <-errs
		if got := body(t, res); e.header != nil || e.write != nil || got != "plain" || res.StatusCode != 200 ||
			res.Header.Get("x-a") != "" || res.Header.Get("x-b") != "" || res.Header.Get("x-p") != "1" || res.Close {
			t.Fatalf("after %s: status %d, body %q, header %v, close %v; Header %v, Write %v",
				after, res.StatusCode, got, res.Header, res.Close, e.header, e.write)
		}
	}
	c := dial(t, a)
	br := bufio.NewReader(c)
	paths := []string{"/status", "/shared", "/stream", "/detach", "/panic"}
	want := map[string]string{"/status": "status", "/shared": "shared", "/stream": "stream", "/detach": "detached", "/panic": ""}
	var raw strings.Builder
	for _, p := range paths {
		raw.WriteString(get(p) + get("/plain"))
	}
	io.WriteString(c, raw.String()) // one write: mostly one batch
	for _, p := range paths {
		res := roundTrip(t, c, br, "", "GET")
		if got := body(t, res); got != want[p] {
			t.Fatalf("%s: %q, want %q", p, got, want[p])
		}
		checkPlain(roundTrip(t, c, br, "", "GET"), p)
	}
	// The close flag of one connection's answer is not the next connection's.
	c1 := dial(t, a)
	br1 := bufio.NewReader(c1)
	if res := roundTrip(t, c1, br1, get("/close"), "GET"); body(t, res) != "close" || !res.Close {
		t.Fatalf("/close: not closed: %v", res.Header)
	}
	checkPlain(roundTrip(t, c, br, get("/plain"), "GET"), "/close on another connection")
	checkPlain(roundTrip(t, c, br, get("/plain"), "GET"), "/plain")
}
