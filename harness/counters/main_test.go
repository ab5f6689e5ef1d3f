package counters

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/bindrace/bindrace/harness/internal/testbin"
)

// The test binary re-runs itself as a tiny pipelining HTTP server (testServerEnv set): it answers
// "GET / " with "hi" and "GET /spawn" by running spinner goroutines each locked to an OS thread
// that burns spinCPU of its own CPU time and then exits with the thread (a locked goroutine's
// thread dies with it), so counters must follow threads created and gone inside the window.
const testServerEnv = "BINDRACE_COUNTERS_TEST_SERVER"

const (
	spinners = 6
	spinCPU  = 100 * time.Millisecond
)

func TestMain(m *testing.M) {
	if os.Getenv(testServerEnv) == "1" {
		runTestServer()
		return
	}
	os.Exit(testbin.Run(m)) // the Go targets run as go-server processes
}

func runTestServer() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("listen:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().String())
	for {
		c, err := ln.Accept()
		if err != nil {
			os.Exit(1)
		}
		go serveConn(c)
	}
}

func serveConn(c net.Conn) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 16<<10)
	w := bufio.NewWriterSize(c, 16<<10)
	const ok = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi"
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		spawn := bytes.HasPrefix(line, []byte("GET /spawn "))
		for { // headers
			h, err := r.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(h) <= 2 {
				break
			}
		}
		if spawn {
			body := spin()
			fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		} else {
			w.WriteString(ok)
		}
		if r.Buffered() == 0 {
			if w.Flush() != nil {
				return
			}
		}
	}
}

// spin returns the thread ids the spinners ran on, space separated.
func spin() string {
	var wg sync.WaitGroup
	tids := make([]int, spinners)
	for i := range spinners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
			tids[i] = unix.Gettid()
			for threadCPU() < spinCPU {
				for j := 0; j < 100000; j++ {
					sink.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	parts := make([]string, len(tids))
	for i, t := range tids {
		parts[i] = strconv.Itoa(t)
	}
	return strings.Join(parts, " ")
}

var sink atomic.Int64

func threadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// testServer is the re-run test binary serving on addr.
type testServer struct {
	cmd  *exec.Cmd
	addr string
	pid  int
}

func startTestServer(t *testing.T) *testServer {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), testServerEnv+"=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("test server: %v", err)
	}
	return &testServer{cmd: cmd, addr: strings.TrimSpace(line), pid: cmd.Process.Pid}
}

// hammer drives addr with conns pipelined connections for d and returns complete responses.
func hammer(t *testing.T, addr string, conns, pipe int, d time.Duration) int64 {
	t.Helper()
	req := []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	batch := bytes.Repeat(req, pipe)
	const resp = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi"
	var total atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	errs := make(chan error, conns)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			buf := make([]byte, len(resp)*pipe)
			for time.Now().Before(deadline) {
				if _, err := c.Write(batch); err != nil {
					errs <- err
					return
				}
				c.SetReadDeadline(time.Now().Add(5 * time.Second))
				if _, err := io.ReadFull(c, buf); err != nil {
					errs <- err
					return
				}
				total.Add(int64(pipe))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("client: %v", err)
	}
	return total.Load()
}

// procCPU is utime+stime of all threads of pid (dead ones included), from /proc/<pid>/stat.
func procCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseInt(f[11], 10, 64) // field 14 overall
	st, _ := strconv.ParseInt(f[12], 10, 64) // field 15
	const clkTck = 100                       // USER_HZ on Linux
	return time.Duration(ut+st) * time.Second / clkTck
}
