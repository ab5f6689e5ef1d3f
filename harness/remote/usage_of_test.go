package remote

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/threadname"
)

// askUsageLoop runs the host's usage loop here, with maxThreads in place of procfs.MaxThreads,
// and asks it about this process.
func askUsageLoop(maxThreads int) (string, error) {
	cmd := exec.Command("sh", "-c", fill(usageLoop, "TAGVALUE", Quote("test/usage;"), "MAXTHREADS", strconv.Itoa(maxThreads)))
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	defer func() { in.Close(); cmd.Wait() }()
	u := &usageReader{in: in, out: bufio.NewReader(out)}
	return u.exchange(os.Getpid(), "^PATH=")
}

// The loop's answer carries every thread's stat, a thread named with a newline and
// parentheses included, and a process of more threads than the bound gets its CPU and RSS
// read with an error in place of its threads.
func TestUsageLoopAnswersThreads(t *testing.T) {
	const name = "u\n(v) w"
	var all, bounded string
	var err1, err2 error
	named := threadname.On(name, func() {
		all, err1 = askUsageLoop(512)
		bounded, err2 = askUsageLoop(1)
	})
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	u, err := parseUsage(all)
	if err != nil || u.ThreadsErr != nil || u.Pid != os.Getpid() || u.RSSBytes <= 0 || u.At.IsZero() {
		t.Fatalf("usage %+v, %v", u, err)
	}
	var main, mine bool
	for _, th := range u.Threads {
		main = main || th.Tid == os.Getpid()
		mine = mine || (th.Tid == named && th.Comm == name && th.WaitKnown)
	}
	if !main || !mine || len(u.Threads) < 2 {
		t.Errorf("threads %+v: want the main one and %d named %q, with its wait for a CPU", u.Threads, named, name)
	}
	b, err := parseUsage(bounded)
	if err != nil || b.RSSBytes <= 0 || b.Threads != nil || b.ThreadsErr == nil || !strings.Contains(b.ThreadsErr.Error(), " threads, over") {
		t.Errorf("over the bound: %+v, %v", b, err)
	}
	for _, bad := range []string{"", "123\n", "x\x00y\x00z", "123\n\x00garbage\x00VmRSS: 1 kB\n"} {
		if _, err := parseUsage(bad); err == nil {
			t.Errorf("answer %q parsed", bad)
		}
	}
	if th, err := parseThreads([]string{"1 (x) S"}); err == nil {
		t.Errorf("a malformed thread parsed: %+v", th)
	}
}
