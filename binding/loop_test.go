package binding

import (
	"bufio"
	"testing"
)

func TestHandlerPanic(t *testing.T) {
	a := testApp(t, Config{}, 1, func(a *App) {
		a.Get("/panic", func(w *Response, r *Request) {
			w.WriteString("partial")
			panic("boom")
		})
	})
	c := dial(t, a)
	br := bufio.NewReader(c)
	res := roundTrip(t, c, br, get("/panic")+get("/"), "GET")
	if got := body(t, res); res.StatusCode != 500 || got != "" {
		t.Fatalf("%d %q", res.StatusCode, got)
	}
	if got := body(t, roundTrip(t, c, br, "", "GET")); got != "hi" {
		t.Fatal(got)
	}
}
