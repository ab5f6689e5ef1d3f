package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/remote/netnstest"
)

// The test binary doubles as the programs the tests run on the lab's hosts (copied there like
// the harness's binaries will be): an HTTP server, an HTTP client, and a command that waits for
// a start instant.
const (
	envServe   = "BINDRACE_REMOTE_TEST_SERVE"    // listen address: serve GET / -> "hi"
	envGet     = "BINDRACE_REMOTE_TEST_GET"      // URL: print the body of GET URL
	envStartAt = "BINDRACE_REMOTE_TEST_START_AT" // instant: SleepUntil it, print the time
)

func TestMain(m *testing.M) {
	switch {
	case os.Getenv(envServe) != "":
		os.Exit(serveMode(os.Getenv(envServe)))
	case os.Getenv(envGet) != "":
		os.Exit(getMode(os.Getenv(envGet)))
	case os.Getenv(envStartAt) != "":
		os.Exit(startAtMode(os.Getenv(envStartAt)))
	}
	// Ctrl-C or a kill during the tests still removes the lab.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		lab.Close()
		os.Exit(1)
	}()
	os.Exit(lab.Run(m))
}

func serveMode(addr string) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "hi")
	})}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM)
		<-sig
		srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func getMode(url string) int {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Printf("%d %s\n", resp.StatusCode, body)
	return 0
}

func startAtMode(s string) int {
	at, err := ParseStartAt(s)
	if err == nil {
		err = SleepUntil(context.Background(), at)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(time.Now().UnixNano())
	return 0
}

// lab is the package's lab, a server and two client hosts, started by the first test to need it.
var lab netnstest.Shared

func host(t *testing.T, h netnstest.Host) Host {
	t.Helper()
	hh, err := ParseHost(h.Spec)
	if err != nil {
		t.Fatal(err)
	}
	return hh
}

// labRunner is a Runner for the lab: its ssh config, short timeouts.
func labRunner(t *testing.T, o Options) (*netnstest.Lab, *Runner) {
	t.Helper()
	l := lab.Get(t)
	if o.ConfigFile == "" {
		o.ConfigFile = l.ConfigFile
	}
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = 3 * time.Second
	}
	r, err := NewRunner(o)
	if err != nil {
		t.Fatal(err)
	}
	return l, r
}

// labSession opens a session that the test closes (and checks) at its end.
func labSession(t *testing.T, r *Runner, o SessionOptions) *Session {
	t.Helper()
	if o.StopGrace == 0 {
		o.StopGrace = time.Second
	}
	s, err := r.NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("session close: %v", err)
		}
		if left := localTagged(sessionTag(s.ID)); len(left) > 0 {
			t.Errorf("processes of session %s left after Close: %v", s.ID, left)
		}
	})
	return s
}

// sessionInLab is the start of most session tests: the lab, a test context and a session of
// a lab runner, closed when the test ends.
func sessionInLab(t *testing.T, o SessionOptions) (*netnstest.Lab, context.Context, *Session) {
	t.Helper()
	l, r := labRunner(t, Options{})
	return l, testContext(t), labSession(t, r, o)
}

// testContext bounds a test that hangs; a passing test never waits for it. A test of a dozen
// copies and commands over ssh took over 20 s with another long-tier package racing servers on
// the same two CPUs (TestCopy, TestPlanStart and TestServerReachableFromClients ran out of a 20 s
// context in a fresh clone's make test-long and passed in 9 s alone).
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// The lab's hosts share this machine's PID namespace and /proc, so a test checks from here
// what is left of a remote process.

// localGroup lists the live (not zombie) processes of process group pgid.
func localGroup(pgid int) []int {
	return localProcs("stat", func(_ int, stat string) bool {
		i := strings.LastIndexByte(stat, ')') // the command name may hold spaces and parentheses
		if i < 0 {
			return false
		}
		fields := strings.Fields(stat[i+1:])
		if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" {
			return false
		}
		g, _ := strconv.Atoi(fields[2])
		return g == pgid
	})
}

// localTagged lists the live processes with an environment entry that starts with tag, as the
// stop scripts find them.
func localTagged(tag string) []int {
	return localProcs("environ", func(pid int, environ string) bool {
		return pid != os.Getpid() && strings.Contains("\x00"+environ, "\x00"+tag)
	})
}

// localProcs lists the processes whose /proc/PID/file match says yes to; a process gone while
// it is read is left out.
func localProcs(file string, match func(pid int, content string) bool) []int {
	var pids []int
	paths, _ := filepath.Glob("/proc/[0-9]*/" + file)
	for _, f := range paths {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if pid, _ := strconv.Atoi(strings.Split(f, "/")[2]); match(pid, string(b)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// eventually polls cond until it holds or within passes.
func eventually(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}
