package binding

import (
	"bufio"
	"io"
	"math/rand"
	"net"
	"net/http"
	"testing"
	"time"
)

// Mutated requests (flipped, dropped, duplicated bytes, random splits) never crash the server,
// never hang it, and every answer is well-formed; a clean request still works afterwards.
func TestMutatedRequests(t *testing.T) {
	a := testApp(t, Config{MaxBody: 1 << 12, HeaderTimeout: 200 * time.Millisecond}, 1, nil)
	seeds := []string{
		get("/id/5?name=q"),
		"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
		"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"GET /s HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
	}
	alphabet := []byte("\r\n :;/?0aZ\t\x00\x7f\xff-")
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 400; i++ {
		b := []byte(seeds[rng.Intn(len(seeds))] + seeds[rng.Intn(len(seeds))])
		for m := rng.Intn(4); m >= 0; m-- {
			p := rng.Intn(len(b))
			switch rng.Intn(3) {
			case 0:
				b[p] = alphabet[rng.Intn(len(alphabet))]
			case 1:
				b = append(b[:p], b[p+1:]...)
			default:
				b = append(b[:p], append([]byte{b[p]}, b[p:]...)...)
			}
		}
		c, err := net.Dial("tcp", addr(a))
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		for rest := b; len(rest) > 0; {
			n := 1 + rng.Intn(len(rest))
			c.Write(rest[:n])
			rest = rest[n:]
		}
		c.(*net.TCPConn).CloseWrite() // EOF: the server answers what is complete, then closes
		br := bufio.NewReader(c)
		for {
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				break // closed by the server (error answer or timeout) or nothing more to read
			}
			if _, err := io.Copy(io.Discard, res.Body); err != nil {
				t.Fatalf("case %d %q: broken body: %v", i, b, err)
			}
			if res.StatusCode >= 500 && res.StatusCode != 501 && res.StatusCode != 505 {
				t.Fatalf("case %d %q: status %d", i, b, res.StatusCode)
			}
		}
		c.Close()
	}
	c := dial(t, a)
	if got := body(t, roundTrip(t, c, bufio.NewReader(c), get("/"), "GET")); got != "hi" {
		t.Fatal(got)
	}
}
