package binding

import (
	"bufio"
	"testing"
)

func TestNewBodyFuncFillsNativeMemory(t *testing.T) {
	const n = 3<<20 + 7 // not a multiple of any buffer size
	fill := func(dst []byte) {
		for i := range dst {
			dst[i] = byte(i * 13)
		}
	}
	b := NewBodyFunc(n, fill)
	defer b.Release()
	if b.Len() != n {
		t.Fatalf("Len %d, want %d", b.Len(), n)
	}
	a := testApp(t, Config{}, 1, func(a *App) {
		a.Get("/gen", func(w *Response, r *Request) { w.SendBody(b) })
	})
	c := dial(t, a)
	res := roundTrip(t, c, bufio.NewReader(c), get("/gen"), "GET")
	got := body(t, res)
	if len(got) != n {
		t.Fatalf("body %d bytes, want %d", len(got), n)
	}
	for i := 0; i < n; i++ {
		if got[i] != byte(i*13) {
			t.Fatalf("byte %d = %d, want %d", i, got[i], byte(i*13))
		}
	}
}
