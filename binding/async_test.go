package binding

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

func asyncRoutes(a *App) {
	// /async/:ms answers after ms milliseconds from another goroutine.
	a.Get("/async/:ms", func(w *Response, r *Request) {
		ms, _ := strconv.Atoi(string(r.Param("ms")))
		w.Header("content-type", "text/plain")
		d := w.Detach()
		go func() {
			time.Sleep(time.Duration(ms) * time.Millisecond)
			d.WriteString("async " + strconv.Itoa(ms))
			d.End()
		}()
	})
}

func rssKiB(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			v, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return v
		}
	}
	return 0
}
