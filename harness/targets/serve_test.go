package targets

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/child"
	"github.com/bindrace/bindrace/harness/scenario"
)

var listening = regexp.MustCompile(`listening on :(\d+) \(pid (\d+)`)

// TestServeForeground runs Serve (`bindrace serve`) for a Go target and a cmd: target until its
// context is cancelled (what SIGTERM/SIGINT do), checking it served and returned no error (exit
// 0) without leftovers.
func TestServeForeground(t *testing.T) {
	srv := writeScript(t, "hi.py", hiServer)
	for _, name := range []string{"nethttp", "cmd:python3 " + srv + " {port}"} {
		t.Run(name, func(t *testing.T) {
			tg, err := Resolve(name)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			out, errb := child.NewBuffer(), child.NewBuffer()
			code := make(chan error, 1)
			go func() {
				code <- Serve(ctx, tg, ServeOptions{Log: errb, Listening: func(port, pid int, _ time.Duration) {
					fmt.Fprintf(out, "listening on :%d (pid %d)\n", port, pid)
				}})
			}()
			var m []string
			for deadline := time.Now().Add(5 * time.Second); m == nil; time.Sleep(5 * time.Millisecond) {
				if m = listening.FindStringSubmatch(out.String()); m == nil && time.Now().After(deadline) {
					t.Fatalf("no listening line: %q %q", out.String(), errb.String())
				}
			}
			port, _ := strconv.Atoi(m[1])
			pid, _ := strconv.Atoi(m[2])
			if err := Verify(context.Background(), name, "127.0.0.1:"+m[1], scenario.HTTP()[:1]); err != nil || port == 0 {
				t.Fatalf("port %d: %v", port, err)
			}
			cancel()
			select {
			case err := <-code:
				if err != nil {
					t.Errorf("serve: %v: %s", err, errb.String())
				}
			case <-time.After(5 * time.Second):
				t.Fatal("serve did not return")
			}
			waitGone(t, pid, "served process")
		})
	}
}
