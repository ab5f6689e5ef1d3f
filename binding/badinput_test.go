package binding

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestBadInput(t *testing.T) {
	a := testApp(t, Config{MaxURI: 1024, MaxHeaderBytes: 2048, MaxHeaders: 16, MaxBody: 4096}, 1, nil)
	h := "Host: x\r\n"
	cases := []struct {
		name, raw string
		status    int
	}{
		{"garbage request line", "HELLO\r\n\r\n", 400},
		{"no version", "GET /\r\n" + h + "\r\n", 400},
		{"bad version shape", "GET / HTTP/1.x\r\n" + h + "\r\n", 400},
		{"lower-case version", "GET / http/1.1\r\n" + h + "\r\n", 400},
		{"two spaces", "GET  / HTTP/1.1\r\n" + h + "\r\n", 400},
		{"bare CR in header", "GET / HTTP/1.1\r\n" + h + "X-A: a\rb\r\n\r\n", 400},
		{"bare LF line end", "GET / HTTP/1.1\r\n" + h + "X-A: a\n\r\n", 400},
		{"space before colon", "GET / HTTP/1.1\r\n" + h + "X-A : a\r\n\r\n", 400},
		{"obs-fold", "GET / HTTP/1.1\r\n" + h + "X-A: a\r\n b\r\n\r\n", 400},
		{"invalid token char", "GET / HTTP/1.1\r\n" + h + "X(A): a\r\n\r\n", 400},
		{"control char in value", "GET / HTTP/1.1\r\n" + h + "X-A: a\x01b\r\n\r\n", 400},
		{"NUL in target", "GET /\x00 HTTP/1.1\r\n" + h + "\r\n", 400},
		{"missing host", "GET / HTTP/1.1\r\n\r\n", 400},
		{"repeated host", "GET / HTTP/1.1\r\n" + h + h + "\r\n", 400},
		{"CL with TE", "POST /echo HTTP/1.1\r\n" + h + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
		{"two different CL", "POST /echo HTTP/1.1\r\n" + h + "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400},
		{"bad CL", "POST /echo HTTP/1.1\r\n" + h + "Content-Length: 3x\r\n\r\nabc", 400},
		{"invalid chunk size", "POST /echo HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n", 400},
		{"chunk without CRLF", "POST /echo HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n0\r\n\r\n", 400},
		{"chunked not the final coding", "POST /echo HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked, gzip\r\n\r\n", 400},
		{"no chunked coding", "POST /echo HTTP/1.1\r\n" + h + "Transfer-Encoding: gzip\r\n\r\n", 400},
		{"empty Transfer-Encoding", "POST /echo HTTP/1.1\r\n" + h + "Transfer-Encoding:\r\n\r\n", 400},
		{"Transfer-Encoding of commas", "POST /echo HTTP/1.1\r\n" + h + "Transfer-Encoding: ,\r\n\r\n", 400},
		{"empty Transfer-Encoding with CL", "POST /echo HTTP/1.1\r\n" + h + "Transfer-Encoding:\r\nContent-Length: 5\r\n\r\nhello", 400},
		{"unsupported coding before chunked", "POST /echo HTTP/1.1\r\n" + h + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501},
		{"chunk extension without name", "POST /echo HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n2;\r\nab\r\n0\r\n\r\n", 400},
		{"whitespace after chunk size", "POST /echo HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n2 \r\nab\r\n0\r\n\r\n", 400},
		{"non-ASCII target", "GET /\xff HTTP/1.1\r\n" + h + "\r\n", 400},
		{"invalid Host value", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400},
		{"method longer than any routed", strings.Repeat("M", 33) + " / HTTP/1.1\r\n" + h + "\r\n", 501},
		{"body over limit (CL)", "POST /echo HTTP/1.1\r\n" + h + "Content-Length: 5000\r\n\r\n", 413},
		{"body over limit (chunked)", "POST /echo HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n1001\r\n" + strings.Repeat("a", 4097) + "\r\n0\r\n\r\n", 413},
		{"URI over limit", "GET /" + strings.Repeat("a", 1100) + " HTTP/1.1\r\n" + h + "\r\n", 414},
		{"URI over limit, incomplete", "GET /" + strings.Repeat("a", 1100), 414},
		{"headers over limit", "GET / HTTP/1.1\r\n" + h + "X-A: " + strings.Repeat("a", 2100) + "\r\n\r\n", 431},
		{"too many headers", "GET / HTTP/1.1\r\n" + h + strings.Repeat("X-A: a\r\n", 17) + "\r\n", 431},
		{"HTTP/2.0", "GET / HTTP/2.0\r\n" + h + "\r\n", 505},
		{"HTTP/0.9 style", "GET / HTTP/0.9\r\n" + h + "\r\n", 505},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn := dial(t, a)
			br := bufio.NewReader(conn)
			io.WriteString(conn, c.raw)
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			body(t, res)
			if res.StatusCode != c.status || !res.Close {
				t.Fatalf("status %d close %v, want %d and close", res.StatusCode, res.Close, c.status)
			}
			expectClosed(t, conn, br)
			// The server goes on serving others.
			other := dial(t, a)
			if got := body(t, roundTrip(t, other, bufio.NewReader(other), get("/"), "GET")); got != "hi" {
				t.Fatal(got)
			}
		})
	}
}

// An error answer keeps its place behind earlier pipelined answers.
func TestBadInputAfterPipelined(t *testing.T) {
	a := testApp(t, Config{}, 1, nil)
	conn := dial(t, a)
	br := bufio.NewReader(conn)
	io.WriteString(conn, get("/id/7")+get("/s")+"BROKEN\r\n\r\n")
	for _, want := range []string{"7 ", "static", "Bad Request"} {
		if got := body(t, roundTrip(t, conn, br, "", "GET")); got != want {
			t.Fatalf("%q want %q", got, want)
		}
	}
	expectClosed(t, conn, br)
}

func TestHeaderInjection(t *testing.T) {
	errs := make(chan error, 4)
	a := testApp(t, Config{}, 1, func(a *App) {
		a.Get("/inject", func(w *Response, r *Request) {
			errs <- w.Header("x-a", "a\r\nSet-Cookie: evil=1")
			errs <- w.Header("x-b\r\nx-c", "v")
			errs <- w.Header("x-d", "a\nb")
			errs <- w.Header("content-length", "5")
			w.WriteString("ok")
		})
	})
	conn := dial(t, a)
	br := bufio.NewReader(conn)
	res := roundTrip(t, conn, br, get("/inject"), "GET")
	if got := body(t, res); got != "ok" || res.Header.Get("set-cookie") != "" || res.Header.Get("x-c") != "" {
		t.Fatalf("%q %v", got, res.Header)
	}
	for i, want := range []error{ErrInvalidHeader, ErrInvalidHeader, ErrInvalidHeader, ErrReservedHeader} {
		if err := <-errs; err != want {
			t.Errorf("header %d: %v, want %v", i, err, want)
		}
	}
	// The connection is still in sync.
	if got := body(t, roundTrip(t, conn, br, get("/"), "GET")); got != "hi" {
		t.Fatal(got)
	}
}

func TestTimeouts(t *testing.T) {
	a := testApp(t, Config{HeaderTimeout: 300 * time.Millisecond, IdleTimeout: 600 * time.Millisecond}, 1, nil)
	// slowloris: a head that never completes gets 408 and is closed
	conn := dial(t, a)
	br := bufio.NewReader(conn)
	start := time.Now()
	io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n")
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != 408 {
		t.Fatal(res, err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("took %v", d)
	}
	// idle keep-alive connection is closed
	conn = dial(t, a)
	br = bufio.NewReader(conn)
	body(t, roundTrip(t, conn, br, get("/"), "GET"))
	expectClosed(t, conn, br)
}

func TestConnectionLimit(t *testing.T) {
	a := testApp(t, Config{MaxConns: 2}, 1, nil)
	c1, c2 := dial(t, a), dial(t, a)
	body(t, roundTrip(t, c1, bufio.NewReader(c1), get("/"), "GET"))
	body(t, roundTrip(t, c2, bufio.NewReader(c2), get("/"), "GET"))
	c3 := dial(t, a)
	res, err := http.ReadResponse(bufio.NewReader(c3), nil)
	if err != nil || res.StatusCode != 503 {
		t.Fatal(res, err)
	}
	c1.Close()
	time.Sleep(100 * time.Millisecond)
	c4 := dial(t, a)
	if got := body(t, roundTrip(t, c4, bufio.NewReader(c4), get("/"), "GET")); got != "hi" {
		t.Fatal(got)
	}
}
