package binding

import (
	"bufio"
	"sync/atomic"
	"testing"
	"unsafe"
)

// A remembered header line passes only for the same name and value at the same position:
// another value, a name of another case, the same headers in another order, a value whose
// bytes a caller changed under the same pointer (unsafe.String over a reused buffer) and a
// reserved name where a valid one was are each checked as if nothing were remembered.
func TestHeaderLinesCheckedByContent(t *testing.T) {
	buf := []byte("plain")
	type call struct {
		k, v string
		want error
	}
	rounds := [][]call{
		{{"content-type", "text/plain", nil}, {"x-a", "1", nil}},
		{{"content-type", "text/plain", nil}, {"x-a", "1", nil}}, // remembered
		{{"x-a", "1", nil}, {"content-type", "text/plain", nil}}, // swapped
		{{"content-type", "text/plain\r\nx-evil: 1", ErrInvalidHeader}, {"x-a", "2", nil}},
		{{"Content-Type", "text/plain", nil}},
		{{"content-length", "5", ErrReservedHeader}},
		{{"x-b", unsafe.String(&buf[0], len(buf)), nil}},
		{{"x-b", "", nil}}, // the mutation below happens before this round: see the handler
	}
	errs := make(chan error, 16)
	var round atomic.Int32 // set here, read by the loop's goroutine
	a := testApp(t, Config{}, 1, func(a *App) {
		a.Get("/h", func(w *Response, r *Request) {
			i := int(round.Load())
			calls := rounds[i]
			if i == len(rounds)-1 {
				copy(buf, "pl\r\nx") // same pointer, same length, now with CR LF
				calls = []call{{"x-b", unsafe.String(&buf[0], len(buf)), ErrInvalidHeader}}
			}
			for _, c := range calls {
				errs <- w.Header(c.k, c.v)
			}
			w.WriteString("ok")
		})
	})
	c := dial(t, a)
	br := bufio.NewReader(c)
	for i := range rounds {
		round.Store(int32(i))
		res := roundTrip(t, c, br, get("/h"), "GET")
		if got := body(t, res); got != "ok" || res.Header.Get("x-evil") != "" {
			t.Fatalf("round %d: %q %v", i, got, res.Header)
		}
		calls := rounds[i]
		if i == len(rounds)-1 {
			calls = []call{{"x-b", "pl\r\nx", ErrInvalidHeader}}
		}
		for _, cl := range calls {
			if err := <-errs; err != cl.want {
				t.Errorf("round %d: Header(%q, %q) = %v, want %v", i, cl.k, cl.v, err, cl.want)
			} else if err == nil && res.Header.Get(cl.k) != cl.v {
				t.Errorf("round %d: %s: %q, want %q", i, cl.k, res.Header.Get(cl.k), cl.v)
			}
		}
	}
}

// sameBytes finds every differing byte, at every position of names and values from 0 to 40
// bytes long, the bytes around them equal; and holds tells a line from one whose name or value
// differs in any byte, or in length.
func TestSameBytes(t *testing.T) {
	for n := 0; n <= 40; n++ {
		a := make([]byte, n+2)
		for i := range a {
			a[i] = byte('a' + i%26)
		}
		s := string(a[1 : n+1]) // a copy: its own memory, the bytes around it not compared
		if !sameBytes(unsafe.Pointer(&a[1]), s) {
			t.Fatalf("%d bytes: equal bytes reported different", n)
		}
		for i := 0; i < n; i++ {
			b := []byte(s)
			b[i] ^= 0x40
			if sameBytes(unsafe.Pointer(&a[1]), string(b)) {
				t.Fatalf("%d bytes: a difference at %d not seen", n, i)
			}
		}
	}
	line := []byte("content-type: text/plain\r\n")
	e := headerLine{line: line, nameLen: len("content-type")}
	if !e.holds("content-type", "text/plain") {
		t.Fatal("the line's own name and value not held")
	}
	for _, kv := range [][2]string{{"content-typf", "text/plain"}, {"content-type", "text/plaim"},
		{"Content-type", "text/plain"}, {"content-type", "text/plai"}, {"content-typ", "text/plain"},
		{"content-type", "text/plain "}, {"content-type:", "text/plain"},
		{"content-typ", " text/plain"}} { // the line's bytes, split elsewhere
		if e.holds(kv[0], kv[1]) {
			t.Errorf("%q: %q held by %q", kv[0], kv[1], line)
		}
	}
}
