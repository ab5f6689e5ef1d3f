package binding

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestStreamFromGoroutine(t *testing.T) {
	payload := bytes.Repeat([]byte("stream-bytes-"), 400000) // ~5 MB
	a := testApp(t, Config{SendBuffer: 64 << 10}, 1, func(a *App) {
		a.Get("/chunked", func(w *Response, r *Request) {
			w.Header("content-type", "application/octet-stream")
			s, err := w.Stream(-1)
			if err != nil {
				t.Error(err)
				return
			}
			go func() {
				for p := payload; len(p) > 0; {
					n := min(len(p), 32<<10)
					if _, err := s.Write(p[:n]); err != nil {
						t.Error(err)
						return
					}
					p = p[n:]
				}
				s.Close()
			}()
		})
		a.Get("/sized", func(w *Response, r *Request) {
			s, _ := w.Stream(int64(len(payload)))
			go func() {
				s.Write(payload)
				s.Close()
			}()
		})
		a.Get("/async-stream", func(w *Response, r *Request) {
			d := w.Detach()
			go func() {
				s, _ := d.Stream(-1)
				s.Write([]byte("late "))
				s.Write([]byte("stream"))
				s.Close()
			}()
		})
	})
	conn := dial(t, a)
	br := bufio.NewReader(conn)
	io.WriteString(conn, get("/chunked")+get("/sized")+get("/async-stream")+get("/"))
	for i, want := range []string{string(payload), string(payload), "late stream", "hi"} {
		res := roundTrip(t, conn, br, "", "GET")
		if i < 2 {
			time.Sleep(50 * time.Millisecond) // a slow reader: the writer must wait, not buffer
		}
		if got := body(t, res); got != want {
			t.Fatalf("response %d: %d bytes, want %d", i, len(got), len(want))
		}
	}
}

// bigBody is an 8 MiB shared body generated into native memory, with a byte pattern a reader
// can check position by position.
const bigBodyLen = 8 << 20

func bigByte(i int) byte { return byte(i*7 + i>>13) }

func newBigBody() *Body { return newPatternBody(bigBodyLen) }

func newPatternBody(n int) *Body {
	return NewBodyFunc(n, func(dst []byte) {
		for i := range dst {
			dst[i] = bigByte(i)
		}
	})
}

// peakRSS samples VmRSS every 20 ms until stop is closed; the returned func reports the peak.
func peakRSS(t testing.TB, stop <-chan struct{}) func() int64 {
	var peak atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if r := rssKiB(t); r > peak.Load() {
				peak.Store(r)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() int64 { <-done; return peak.Load() }
}

// Slow readers of one large SendBody body at once: the body is referenced, not copied per
// response, and each connection's queued output is bounded by SendBuffer, so the process RSS
// stays under baseline + 64 MiB (20 copies of 14 MiB would be 280 MiB, 100 of 8 MiB 800 MiB;
// the clients' own read buffers are readers x 48 KiB of it).
func TestSlowReadersOfLargeBodyBoundedRSS(t *testing.T) {
	t.Run("20 readers of 14 MiB", func(t *testing.T) { slowReaders(t, 20, 14<<20) })
	t.Run("100 readers of 8 MiB", func(t *testing.T) { slowReaders(t, 100, 8<<20) })
}

func slowReaders(t *testing.T, readers, bodyLen int) {
	const boundKiB = 64 << 10
	needFiles(t, uint64(2*readers+512))
	big := newPatternBody(bodyLen)
	defer big.Release()
	a := testApp(t, Config{}, 1, func(a *App) {
		a.Get("/big", func(w *Response, r *Request) { w.SendBody(big) })
	})
	runtime.GC()
	base := rssKiB(t)
	stop := make(chan struct{})
	peak := peakRSS(t, stop)
	start := time.Now()
	errs := concurrently(readers, func(i int) error {
		c, err := net.Dial("tcp", addr(a))
		if err != nil {
			return err
		}
		defer c.Close()
		c.(*net.TCPConn).SetReadBuffer(32 << 10)
		c.SetDeadline(time.Now().Add(40 * time.Second))
		io.WriteString(c, get("/big"))
		br := bufio.NewReaderSize(c, 16<<10)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			return fmt.Errorf("reader %d: %v", i, err)
		}
		buf := make([]byte, 32<<10)
		got := 0
		for {
			n, err := res.Body.Read(buf)
			for j := 0; j < n; j += 4093 { // spot-check the pattern
				if buf[j] != bigByte(got+j) {
					return fmt.Errorf("reader %d: byte %d is %d, want %d", i, got+j, buf[j], bigByte(got+j))
				}
			}
			got += n
			if err != nil {
				break
			}
			time.Sleep(4 * time.Millisecond) // slow: at most ~8 MB/s per reader
		}
		if got != bodyLen {
			return fmt.Errorf("reader %d: got %d of %d bytes", i, got, bodyLen)
		}
		return nil
	})
	close(stop)
	for _, err := range errs {
		t.Error(err)
	}
	p := peak()
	t.Logf("%d slow readers of %d MiB in %v: RSS baseline %d KiB, peak %d KiB (+%d KiB, bound +%d KiB)",
		readers, bodyLen>>20, time.Since(start).Round(time.Millisecond), base, p, p-base, boundKiB)
	if p-base > boundKiB {
		t.Fatalf("RSS grew %d KiB over the %d KiB baseline with %d slow readers (bound %d KiB)", p-base, base, readers, boundKiB)
	}
}
