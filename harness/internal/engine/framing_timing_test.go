package engine

import (
	"strings"
	"testing"
)

// A fasthttp-style ping response, as a pipelined batch of ten arrives in one read.
const benchResp = "HTTP/1.1 200 OK\r\nServer: fasthttp\r\nDate: Sun, 29 Nov 2026 22:00:00 GMT\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\nContent-Length: 2\r\n\r\nhi"

func benchFrame(b *testing.B, batch []byte, per int, hc *headCache) {
	f := framer{seen: hc}
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	for b.Loop() {
		got := 0
		for off := 0; off < len(batch); {
			n, ev := f.next(batch[off:])
			off += n
			if ev != evResponse {
				b.Fatalf("event %d: %s", ev, f.why)
			}
			got++
		}
		if got != per {
			b.Fatalf("got %d responses", got)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*per), "ns/response")
}

// Cached is the steady state of a run (header blocks repeat); Parsed is the full parse that
// runs when they change (a new Date second) or differ.
func BenchmarkFramerPipelined10Cached(b *testing.B) {
	benchFrame(b, []byte(strings.Repeat(benchResp, 10)), 10, newHeadCache())
}

func BenchmarkFramerPipelined10Parsed(b *testing.B) {
	benchFrame(b, []byte(strings.Repeat(benchResp, 10)), 10, nil)
}

func BenchmarkFramerChunked10Cached(b *testing.B) {
	benchFrame(b, []byte(strings.Repeat(okChunked, 10)), 10, newHeadCache())
}
