package engine

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// frame runs the framer over chunks as a connection would: carrying an incomplete tail over
// to the next chunk, and finishing with the server's close when eof is set.
type framed struct {
	statuses  []int
	closes    int
	malformed string
}

func frame(chunks [][]byte, eof bool) framed { return frameWith(nil, chunks, eof) }

func frameWith(hc *headCache, chunks [][]byte, eof bool) framed {
	f := framer{seen: hc}
	var out framed
	var carry []byte
	for _, ch := range chunks {
		data := append(append([]byte(nil), carry...), ch...)
		carry = nil
		for off := 0; off < len(data); {
			n, ev := f.next(data[off:])
			off += n
			switch ev {
			case evMore:
				carry = append(carry, data[off:]...)
				off = len(data)
			case evResponse:
				out.statuses = append(out.statuses, f.status)
				if f.close {
					out.closes++
				}
			case evMalformed:
				out.malformed = f.why
				return out
			}
		}
	}
	if eof {
		switch f.eof(len(carry)) {
		case evResponse:
			out.statuses = append(out.statuses, f.status)
			out.closes++
		case evMalformed:
			out.malformed = f.why
		}
	}
	return out
}

const (
	okCL      = "HTTP/1.1 200 OK\r\nServer: x\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi"
	okChunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5;ext=1;q=\"a b\"\r\nhello\r\n6 ; x\r\n world\r\nA\r\n0123456789\r\n0\r\nX-Trailer: 1\r\nX-Other: two\r\n\r\n"
)

func TestFramerTable(t *testing.T) {
	cases := []struct {
		name      string
		in        string
		eof       bool
		statuses  []int
		closes    int
		malformed string // substring of why; "" = well-formed
	}{
		{name: "content-length", in: okCL, statuses: []int{200}},
		{name: "content-length zero", in: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", statuses: []int{200}},
		{name: "header case and spacing", in: "HTTP/1.1 200 OK\r\ncOnTeNt-LeNgTh:   3  \r\n\r\nabc", statuses: []int{200}},
		{name: "empty reason", in: "HTTP/1.1 200\r\nContent-Length: 1\r\n\r\nx", statuses: []int{200}},
		{name: "chunked with extensions and trailers", in: okChunked, statuses: []int{200}},
		{name: "chunked no trailers", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n", statuses: []int{200}},
		{name: "chunked overrides content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", statuses: []int{200}},
		{name: "204 has no body", in: "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n" + okCL, statuses: []int{204, 200}},
		{name: "304 has no body", in: "HTTP/1.1 304 Not Modified\r\nETag: x\r\n\r\n" + okCL, statuses: []int{304, 200}},
		{name: "1xx interim skipped", in: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + okCL, statuses: []int{200}},
		{name: "pipelined many in one buffer", in: strings.Repeat(okCL, 7) + okChunked + okCL, statuses: []int{200, 200, 200, 200, 200, 200, 200, 200, 200}},
		{name: "statuses kept", in: "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\nHTTP/1.1 500 Oops\r\nContent-Length: 1\r\n\r\nx", statuses: []int{404, 500}},
		{name: "connection close", in: "HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 2\r\n\r\nhi", statuses: []int{200}, closes: 1},
		{name: "http/1.0 closes by default", in: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi", statuses: []int{200}, closes: 1},
		{name: "http/1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nhi", statuses: []int{200}},
		{name: "close-delimited body", in: "HTTP/1.1 200 OK\r\n\r\nsome body until close", eof: true, statuses: []int{200}, closes: 1},
		{name: "obs-fold tolerated", in: "HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\nContent-Length: 0\r\n\r\n", statuses: []int{200}},
		{name: "same content-length twice", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", statuses: []int{200}},

		{name: "bad status line", in: "HTTX/1.1 200 OK\r\n\r\n", malformed: "status line"},
		{name: "garbage", in: "garbage", malformed: "status line"},
		{name: "bad version", in: "HTTP/1.2 200 OK\r\n\r\n", malformed: "status line"},
		{name: "short status line", in: "HTTP/1.1 20\r\n\r\n", malformed: "status line"},
		{name: "bad status code", in: "HTTP/1.1 2x0 OK\r\n\r\n", malformed: "status code"},
		{name: "status code 600", in: "HTTP/1.1 600 OK\r\n\r\n", malformed: "status code"},
		{name: "bad content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", malformed: "content-length"},
		{name: "negative content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", malformed: "content-length"},
		{name: "empty content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n", malformed: "content-length"},
		{name: "conflicting content-lengths", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx", malformed: "content-length"},
		{name: "huge content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", malformed: "content-length"},
		{name: "bad chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", malformed: "chunk size"},
		{name: "empty chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", malformed: "chunk size"},
		{name: "chunk size bare LF", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\nhi\r\n0\r\n\r\n", malformed: "chunk size"},
		{name: "chunk data without CRLF", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhiXY0\r\n\r\n", malformed: "CRLF"},
		{name: "bad trailer", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nnocolon\r\n\r\n", malformed: "trailer"},
		{name: "header without colon", in: "HTTP/1.1 200 OK\r\nServer x\r\n\r\n", malformed: "header line"},
		{name: "space before colon", in: "HTTP/1.1 200 OK\r\nContent-Length : 1\r\n\r\nx", malformed: "header line"},
		{name: "bare LF header", in: "HTTP/1.1 200 OK\r\nServer: x\n\r\n", malformed: "CRLF"},
		{name: "101 unexpected", in: "HTTP/1.1 101 Switching Protocols\r\n\r\n", malformed: "101"},
		{name: "oversized headers", in: "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Pad: "+strings.Repeat("a", 100)+"\r\n", 700), malformed: "too large"},
		{name: "oversized header line", in: "HTTP/1.1 200 OK\r\nX-Pad: " + strings.Repeat("a", maxHeaderBytes+10), malformed: "too large"},
		{name: "oversized chunk line", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + strings.Repeat("e", maxLineBytes+10), malformed: "too long"},
		{name: "cut short by close", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhi", eof: true, malformed: "cut short"},
		{name: "partial header at close", in: "HTTP/1.1 200 OK\r\nContent-Le", eof: true, malformed: "cut short"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := frame([][]byte{[]byte(tc.in)}, tc.eof)
			check(t, got, tc.statuses, tc.closes, tc.malformed)
			// Through a header cache, twice: the second pass hits what the first stored,
			// and must mean exactly the same.
			hc := newHeadCache()
			for range 2 {
				got = frameWith(hc, [][]byte{[]byte(tc.in)}, tc.eof)
				check(t, got, tc.statuses, tc.closes, tc.malformed)
			}
		})
	}
}

func check(t *testing.T, got framed, statuses []int, closes int, malformed string) {
	t.Helper()
	if malformed != "" {
		if !strings.Contains(got.malformed, malformed) {
			t.Fatalf("want malformed %q, got %+v", malformed, got)
		}
		return
	}
	if got.malformed != "" {
		t.Fatalf("unexpected malformed: %s (after %v)", got.malformed, got.statuses)
	}
	if fmt.Sprint(got.statuses) != fmt.Sprint(statuses) || got.closes != closes {
		t.Fatalf("got statuses %v closes %d, want %v closes %d", got.statuses, got.closes, statuses, closes)
	}
}

// TestFramerSplitEverywhere feeds a stream of mixed responses split in two at every byte
// boundary, then in three at every pair of boundaries for a shorter stream, then one byte at
// a time: framing must not depend on how reads cut the stream.
func TestFramerSplitEverywhere(t *testing.T) {
	stream := okCL + okChunked + "HTTP/1.1 100 Continue\r\n\r\n" + "HTTP/1.1 204 No Content\r\n\r\n" +
		"HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nnot" + okCL
	want := []int{200, 200, 204, 404, 200}
	b := []byte(stream)
	hc := newHeadCache()
	for i := 0; i <= len(b); i++ {
		got := frame([][]byte{b[:i], b[i:]}, false)
		if got.malformed != "" || fmt.Sprint(got.statuses) != fmt.Sprint(want) {
			t.Fatalf("split at %d: %+v", i, got)
		}
		got = frameWith(hc, [][]byte{b[:i], b[i:]}, false)
		if got.malformed != "" || fmt.Sprint(got.statuses) != fmt.Sprint(want) {
			t.Fatalf("cached, split at %d: %+v", i, got)
		}
	}
	short := []byte(okChunked + okCL)
	for i := 0; i <= len(short); i++ {
		for j := i; j <= len(short); j++ {
			got := frame([][]byte{short[:i], short[i:j], short[j:]}, false)
			if got.malformed != "" || len(got.statuses) != 2 {
				t.Fatalf("split at %d,%d: %+v", i, j, got)
			}
		}
	}
	var ones [][]byte
	for i := range b {
		ones = append(ones, b[i:i+1])
	}
	if got := frame(ones, false); got.malformed != "" || fmt.Sprint(got.statuses) != fmt.Sprint(want) {
		t.Fatalf("byte at a time: %+v", got)
	}
	// A close-delimited body split anywhere still ends exactly at the close.
	cd := []byte("HTTP/1.1 200 OK\r\n\r\nbody")
	for i := 0; i <= len(cd); i++ {
		got := frame([][]byte{cd[:i], cd[i:]}, true)
		if got.malformed != "" || len(got.statuses) != 1 || got.closes != 1 {
			t.Fatalf("close-delimited split at %d: %+v", i, got)
		}
	}
}

// TestFramerLargeBody checks a big body is skipped by count across many reads.
func TestFramerLargeBody(t *testing.T) {
	body := bytes.Repeat([]byte("v"), 1<<20)
	stream := append([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(body))), body...)
	stream = append(stream, okCL...)
	var chunks [][]byte
	for i := 0; i < len(stream); i += 4093 {
		chunks = append(chunks, stream[i:min(i+4093, len(stream))])
	}
	if got := frame(chunks, false); got.malformed != "" || len(got.statuses) != 2 {
		t.Fatalf("%+v", got)
	}
}

// TestHeadCacheDistinguishes checks a cached header block is reused only for identical bytes:
// a response differing in one byte (here its length) is parsed afresh.
func TestHeadCacheDistinguishes(t *testing.T) {
	hc := newHeadCache()
	a := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
	b := "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nhey"
	c := "HTTP/1.1 500 OK\r\nContent-Length: 3\r\n\r\nhey"
	got := frameWith(hc, [][]byte{[]byte(a + a + b + b + a + c + c)}, false)
	check(t, got, []int{200, 200, 200, 200, 200, 500, 500}, 0, "")
}

// TestHeadCacheMix checks a round-robin of different responses, more kinds than entries.
func TestHeadCacheMix(t *testing.T) {
	hc := newHeadCache()
	var stream string
	var want []int
	for i := range 40 {
		code := []int{200, 201, 202, 203, 206, 207}[i%(headCacheEntries+2)]
		stream += fmt.Sprintf("HTTP/1.1 %d X\r\nContent-Length: %d\r\n\r\n%s", code, i%3, strings.Repeat("b", i%3))
		want = append(want, code)
	}
	for range 3 {
		check(t, frameWith(hc, [][]byte{[]byte(stream)}, false), want, 0, "")
	}
}
