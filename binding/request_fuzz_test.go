package binding

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// FuzzQueryValue checks the query lookup against a plain reference built on strings.Split.
func FuzzQueryValue(f *testing.F) {
	for _, s := range [][2]string{{"name=bun", "name"}, {"a=1&name=bun&name=2", "name"}, {"name", "name"},
		{"names=1&name=", "name"}, {"&&=&name==x", "name"}, {"a=b", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, q, name string) {
		got := queryValue([]byte(q), name)
		var want []byte
		found := false
		for _, pair := range strings.Split(q, "&") {
			if pair == name {
				want, found = []byte{}, true
				break
			}
			if strings.HasPrefix(pair, name+"=") {
				want, found = []byte(pair[len(name)+1:]), true
				break
			}
		}
		if q == "" || name == "" {
			found, want = false, nil // no pairs in an empty query; no pair has an empty name
		}
		if found != (got != nil) || !bytes.Equal(got, want) {
			t.Fatalf("queryValue(%q, %q) = %q, want %q (found %v)", q, name, got, want, found)
		}
	})
}

var fuzzApp = struct {
	once sync.Once
	app  *App
	bad  chan string // a handler that saw inconsistent views reports here
}{bad: make(chan string, 16)}

// FuzzRequestViews sends arbitrary bytes through the real core and checks, inside the handler,
// that every view the binding hands out is consistent with the others. The server must answer
// with a well-formed response or close, and never crash or hang.
func FuzzRequestViews(f *testing.F) {
	for _, seed := range []string{
		"GET /f/1/x?x=1&y HTTP/1.1\r\nHost: a\r\n\r\n",
		"POST /f/abc/ HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc",
		"POST /f/2/z HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		"GET http://a/f/9/q?x=%41 HTTP/1.1\r\nHost: a\r\nX-A: 1\r\nx-a: 2\r\n\r\n",
		"GET /f/1/x HTTP/1.0\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	fuzzApp.once.Do(func() {
		fuzzApp.app = New(Config{MaxBody: 4096, HeaderTimeout: 500 * time.Millisecond})
		fuzzApp.app.Any("/f/:a/*", checkViews)
		if err := fuzzApp.app.Listen("127.0.0.1:0", 1); err != nil {
			f.Fatal(err)
		}
	})
	addr := "127.0.0.1:" + strconv.Itoa(fuzzApp.app.Port())
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(2 * time.Second))
		c.Write(raw)
		c.(*net.TCPConn).CloseWrite()
		br := bufio.NewReader(c)
		for {
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					t.Fatalf("no answer and no close within 2 s for %q", raw)
				}
				break // closed (possibly mid-way): the only other outcome allowed
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		select {
		case msg := <-fuzzApp.bad:
			t.Fatalf("%s for %q", msg, raw)
		default:
		}
	})
}

func checkViews(w *Response, r *Request) {
	bad := func(msg string) {
		select {
		case fuzzApp.bad <- msg:
		default:
		}
	}
	if bytes.IndexByte(r.Path(), '?') >= 0 {
		bad("Path holds '?'")
	}
	if len(r.Param("a")) == 0 || !bytes.Equal(r.Param("a"), r.ParamIndex(0)) {
		bad("Param a is empty or differs from ParamIndex(0)")
	}
	if bytes.IndexByte(r.Param("a"), '/') >= 0 {
		bad("a segment param holds '/'")
	}
	if q := r.RawQuery(); len(q) > 0 {
		first, _, _ := bytes.Cut(q, []byte("&"))
		name, _, _ := bytes.Cut(first, []byte("="))
		if len(name) > 0 && r.Query(string(name)) == nil {
			bad("Query misses the first pair of RawQuery")
		}
	}
	r.VisitHeaders(func(name, value []byte) {
		if r.Header(strings.ToUpper(string(name))) == nil {
			bad("Header misses a visited header by case-insensitive name")
		}
		if bytes.ContainsAny(value, "\r\n\x00") {
			bad("a header value holds CR, LF or NUL")
		}
	})
	if cl := r.Header("content-length"); cl != nil && r.Header("transfer-encoding") == nil && string(cl) != strconv.Itoa(len(r.Body())) {
		bad("Body length differs from Content-Length")
	}
	w.Write(r.Body())
}
