package counters

import (
	"os"
	"strings"
	"testing"
)

func TestParseDeath(t *testing.T) {
	// testdata/valgrind-rdtscp.log: binding-server on this VM without the switches. The Go
	// runtime catches valgrind's SIGILL and exits 2 itself: no "Process terminating" line.
	rdtscp, err := os.ReadFile("testdata/valgrind-rdtscp.log")
	if err != nil {
		t.Fatal(err)
	}
	const head = "==7== Cachegrind, a cache and branch-prediction profiler\n==7== \n"
	cases := []struct {
		name, log string
		want      *DiedError // nil: not a death
		message   []string
	}{
		{name: "RDTSCP in a Go server", log: string(rdtscp),
			want:    &DiedError{Signal: "4 (SIGILL)", Function: "runtime.cputicks.abi0 (asm_amd64.s:1261)", Bytes: "0xF 0x1 0xF9 0x48 0xC1 0xE2 0x20 0x48 0x1 0xD0"},
			message: []string{"died under valgrind: signal 4 (SIGILL) in runtime.cputicks.abi0", "(RDTSCP, bytes 0xF 0x1 0xF9"}},
		{name: "stopped by the harness", log: head + "==7== Process terminating with default action of signal 15 (SIGTERM)\n==7==    at 0x4A: epoll_wait (epoll_wait.c:30)\n"},
		{name: "a crash of its own", log: head + "==7== Process terminating with default action of signal 11 (SIGSEGV)\n==7==  Access not within mapped region at address 0x0\n==7==    at 0x401136: main (crash.c:3)\n",
			want:    &DiedError{Signal: "11 (SIGSEGV)", Function: "main (crash.c:3)"},
			message: []string{"signal 11 (SIGSEGV) in main (crash.c:3); valgrind's log: "}},
		{name: "a normal exit", log: head + "==7== I   refs:      201,654,802\n"},
	}
	for _, c := range cases {
		got := parseDeath(c.log)
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
			continue
		}
		for _, m := range c.message {
			if !strings.Contains(got.Error(), m) {
				t.Errorf("%s: %q lacks %q", c.name, got.Error(), m)
			}
		}
	}
}
