package binding

import (
	"bytes"
	"io"
	"net"
	"testing"
)

// pipeliner sends depth identical requests per write and reads their responses into a fixed
// buffer, so the client side allocates nothing and any allocation counted is the server's.
type pipeliner struct {
	c       net.Conn
	req     []byte
	buf     []byte
	respLen int
	depth   int
}

func newPipeliner(t testing.TB, a *App, path string, depth int) *pipeliner {
	c, err := net.Dial("tcp", addr(a))
	if err != nil {
		t.Fatal(err)
	}
	one := "GET " + path + " HTTP/1.1\r\nHost: x\r\nX-Bench: 1\r\nUser-Agent: bench\r\n\r\n"
	p := &pipeliner{c: c, req: bytes.Repeat([]byte(one), depth), buf: make([]byte, 1<<20), depth: depth}
	// Learn one response's length (Date has a fixed width, so every response has it).
	io.WriteString(c, one)
	n, err := c.Read(p.buf)
	if err != nil {
		t.Fatal(err)
	}
	p.respLen = n
	return p
}

func (p *pipeliner) round(t testing.TB) {
	if _, err := p.c.Write(p.req); err != nil {
		t.Fatal(err)
	}
	want := p.respLen * p.depth
	for got := 0; got < want; {
		n, err := p.c.Read(p.buf[got:want])
		if err != nil {
			t.Fatal(err)
		}
		got += n
	}
}

// The per-request path through the binding (native parse, batch, Go handler, arena write,
// native response) allocates nothing for ping and params.
func TestZeroAllocsPerRequest(t *testing.T) {
	a := testApp(t, Config{}, 1, nil)
	for _, path := range []string{"/", "/id/42?name=bun"} {
		p := newPipeliner(t, a, path, 10)
		for i := 0; i < 100; i++ { // warm up buffers and pools
			p.round(t)
		}
		if allocs := testing.AllocsPerRun(200, func() { p.round(t) }); allocs != 0 {
			t.Errorf("%s: %v allocations per 10 pipelined requests", path, allocs)
		}
		p.c.Close()
	}
}

func benchmarkPipelined(b *testing.B, path string, static bool) {
	a := testApp(b, Config{}, 1, func(a *App) {
		if static {
			a.Static("GET", "/static-ping", 200, "text/plain", []byte("hi"))
		}
	})
	p := newPipeliner(b, a, path, 10)
	defer p.c.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 10 {
		p.round(b)
	}
}

func BenchmarkPingPipelined(b *testing.B)       { benchmarkPipelined(b, "/", false) }
func BenchmarkParamsPipelined(b *testing.B)     { benchmarkPipelined(b, "/id/42?name=bun", false) }
func BenchmarkStaticPingPipelined(b *testing.B) { benchmarkPipelined(b, "/static-ping", true) }

// wsPipeliner sends depth masked 64-byte binary messages per write and reads their echoes into a
// fixed buffer: the client allocates nothing, so any allocation counted is the server's.
type wsPipeliner struct {
	c     net.Conn
	out   []byte
	buf   []byte
	depth int
}

func newWSPipeliner(t testing.TB, a *App, path string, depth int) *wsPipeliner {
	c, br := wsDial(t, a, path)
	if br.Buffered() > 0 {
		t.Fatal("bytes after the 101")
	}
	one := frame(fin(2), bytes.Repeat([]byte{0xab}, 64), true)
	return &wsPipeliner{c: c, out: bytes.Repeat(one, depth), buf: make([]byte, 66*depth), depth: depth}
}

func (p *wsPipeliner) round(t testing.TB) {
	if _, err := p.c.Write(p.out); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(p.c, p.buf); err != nil {
		t.Fatal(err)
	}
}

// An echoed WebSocket message (native frame parse, batch event, Go Message callback, Send into
// the ws arena, native frame write) allocates nothing.
func TestZeroAllocsPerWSMessage(t *testing.T) {
	a, _ := wsApp(t, WSConfig{})
	p := newWSPipeliner(t, a, "/ws", 10)
	for i := 0; i < 100; i++ {
		p.round(t)
	}
	if allocs := testing.AllocsPerRun(200, func() { p.round(t) }); allocs != 0 {
		t.Errorf("%v allocations per 10 echoed messages", allocs)
	}
}

func benchmarkWSEcho(b *testing.B, path string) {
	a, _ := wsApp(b, WSConfig{})
	p := newWSPipeliner(b, a, path, 10)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 10 {
		p.round(b)
	}
}

func BenchmarkWSEchoPipelined(b *testing.B)       { benchmarkWSEcho(b, "/ws") }
func BenchmarkStaticWSEchoPipelined(b *testing.B) { benchmarkWSEcho(b, "/echo") }

// A detached request answered from another goroutine with Status, a header and Send costs two
// allocations whatever its body: the detached Response and its head buffer. Send hands the
// body to the core without a Go copy, and the head grows once, not per append.
func TestDetachedAllocs(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 180) // get-user's body is about this size
	jobs := make(chan *Response, 16)
	defer close(jobs)
	go func() {
		for w := range jobs {
			w.Status(200)
			w.Header("content-type", "application/json")
			w.Send(body)
		}
	}()
	a := testApp(t, Config{}, 1, func(a *App) {
		a.Get("/later", func(w *Response, r *Request) { jobs <- w.Detach() })
	})
	p := newPipeliner(t, a, "/later", 1)
	defer p.c.Close()
	for i := 0; i < 100; i++ {
		p.round(t)
	}
	if allocs := testing.AllocsPerRun(500, func() { p.round(t) }); allocs > 2 {
		t.Errorf("%v allocations per detached request, want at most 2", allocs)
	}
}
