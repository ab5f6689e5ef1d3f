package binding

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Detached answers (br_loop_complete from the ending goroutines; applied in place while the loop
// idles, where the core does that) race the loop's own steps: two loops, many connections, each pipelining detached
// answers (ended at once, after a moment, or from a stream) between answers in place, and more
// requests than a connection may owe at once (kMaxSlots), so that an answer sent in place lets
// its connection parse buffered requests the loop must then hand to Go. Every answer must come
// back whole and in request order.
func TestDetachedInPlaceKeepsOrder(t *testing.T) {
	a := testApp(t, Config{}, 2, func(a *App) {
		a.Get("/later/:n", func(w *Response, r *Request) {
			n := string(r.Param("n"))
			d := w.Detach()
			go func() {
				switch len(n) % 3 {
				case 1:
					time.Sleep(time.Duration(len(n)) * 50 * time.Microsecond)
				case 2:
					s, err := d.Stream(-1)
					if err != nil {
						t.Error(err)
						return
					}
					s.Write([]byte("later "))
					s.Write([]byte(n))
					s.Close()
					return
				}
				d.WriteString("later " + n)
				d.End()
			}()
		})
	})
	const perRound = 150 // past kMaxSlots (128): reading pauses until answers drain
	for _, err := range concurrently(40, func(c int) error {
		conn := dial(t, a)
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		br := bufio.NewReader(conn)
		for round := 0; round < 4; round++ {
			var b strings.Builder
			var want []string
			for i := 0; i < perRound; i++ {
				if (i+c)%4 == 3 {
					b.WriteString(get("/"))
					want = append(want, "hi")
					continue
				}
				n := fmt.Sprint(c*1000 + round*perRound + i)
				b.WriteString(get("/later/" + n))
				want = append(want, "later "+n)
			}
			go io.WriteString(conn, b.String()) // the server stops reading while it owes 128
			for i := range want {
				res, err := http.ReadResponse(br, nil)
				if err != nil {
					return fmt.Errorf("conn %d round %d req %d: %v", c, round, i, err)
				}
				got, _ := io.ReadAll(res.Body)
				if string(got) != want[i] {
					return fmt.Errorf("conn %d round %d req %d: %q, want %q", c, round, i, got, want[i])
				}
			}
		}
		return nil
	}) {
		t.Error(err)
	}
	if n := a.owed.Load(); n != 0 {
		t.Errorf("%d answers still owed", n)
	}
}

// An answer that lets its connection parse requests it had buffered (reading paused at
// kMaxSlots answers owed) must get them to Go at once, also when the answer is applied in place
// by the ending goroutine: else they wait for the loop's next event, here its timeout sweep a
// second later, round after round.
//
// At GOMAXPROCS=1, as binding-server runs on one CPU: the goroutines that end the answers run
// only once the loop idles, so they end them in place.
func TestDetachedInPlaceWakesForBufferedRequests(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	a := testApp(t, Config{}, 1, func(a *App) {
		a.Get("/later", func(w *Response, r *Request) {
			d := w.Detach()
			go func() {
				d.WriteString("later")
				d.End()
			}()
		})
	})
	conn := dial(t, a)
	br := bufio.NewReader(conn)
	const rounds, perRound = 5, 200 // one connection, past kMaxSlots (128) each round
	start := time.Now()
	for round := 0; round < rounds; round++ {
		// One write, which one read takes whole (7.6 KB; the receive buffer holds 16 KiB): the
		// requests past the 128th wait parsed-not in the connection's buffer, not in the socket.
		if _, err := io.WriteString(conn, strings.Repeat(get("/later"), perRound)); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < perRound; i++ {
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("round %d req %d: %v", round, i, err)
			}
			if got, _ := io.ReadAll(res.Body); string(got) != "later" {
				t.Fatalf("round %d req %d: %q", round, i, got)
			}
		}
	}
	// A lost wake costs a sweep interval (1 s with the default timeouts) per round.
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("%d rounds of %d pipelined detached requests took %v: buffered requests waited for the loop", rounds, perRound, d)
	}
}
