package procfs

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/threadname"
)

func TestParseThreads(t *testing.T) {
	// Lines as /proc/PID/task/TID/stat shows them: a node worker's name holds a space, a
	// thread may name itself with parentheses, and one exited between the listing and the read.
	// Each stat is followed by the thread's schedstat: on-CPU ns, run-queue ns, timeslices (one
	// kernel had none).
	files := []string{
		"4100 (node) S 1 4100 4100 0 -1 4194560 9000 0 0 0 731 129 0 0 20 0 11 0 5555 0 0\n", "8612000000 250000000 4411\n",
		"", "",
		"4107 (node (worker)) R 1 4100 4100 0 -1 4194624 12 0 0 0 96 4 0 0 20 0 11 0 5601 0 0\n", "1003000000 0 91\n",
		"4109 (a b) c)) S 1 4100 4100 0 -1 4194624 0 0 0 0 0 1 0 0 20 0 11 0 5601 0 0\n", "",
	}
	th, err := ParseThreads(files)
	want := []Thread{{4100, "node", 8.6, 0.25, true}, {4107, "node (worker)", 1, 0, true}, {4109, "a b) c)", 0.01, 0, false}}
	if err != nil || len(th) != len(want) {
		t.Fatalf("ParseThreads = %+v, %v", th, err)
	}
	for i := range want {
		if th[i] != want[i] {
			t.Errorf("thread %d = %+v, want %+v", i, th[i], want[i])
		}
	}
	for _, bad := range [][]string{
		{files[0], files[1], "4101 (x) S 1 2", ""},
		{files[0], "1 2\n"},
		{files[0], "1 x 3\n"},
		{files[0]},
		{"", "", "\n", ""},
	} {
		if th, err := ParseThreads(bad); err == nil {
			t.Errorf("%q parsed: %+v", bad, th)
		}
	}
	if err := TooManyThreads(MaxThreads + 1); !strings.Contains(err.Error(), "513 threads") {
		t.Errorf("the bound's error: %v", err)
	}
}

// A thread of this process that names itself and burns CPU is read with its name and time,
// and the main thread is the one whose id is the pid.
func TestReadThreadsSelf(t *testing.T) {
	const name = "t (x) y"
	var all []Thread
	var err error
	tid := threadname.On(name, func() {
		for start := time.Now(); time.Since(start) < 60*time.Millisecond; {
		}
		all, err = ReadThreads(Self)
	})
	if err != nil {
		t.Fatal(err)
	}
	var mine, main *Thread
	for i, th := range all {
		if th.Tid == tid {
			mine = &all[i]
		}
		if th.Tid == os.Getpid() {
			main = &all[i]
		}
	}
	if mine == nil || mine.Comm != name || mine.CPUSeconds <= 0 || !mine.WaitKnown || mine.WaitSeconds < 0 {
		t.Errorf("the spinning thread %d in %+v: %+v", tid, all, mine)
	}
	if main == nil {
		t.Errorf("no thread %d (the pid) in %+v", os.Getpid(), all)
	}
	u, err := ReadUsage(Self)
	if err != nil || u.ThreadsErr != nil || u.Pid != os.Getpid() || len(u.Threads) == 0 {
		t.Fatalf("own usage: %+v, %v", u, err)
	}
}

// ReadThread reads one thread: here the main thread (its id is the pid), whose CPU is within
// the process's; a thread that does not exist is an error.
func TestReadThread(t *testing.T) {
	pid := os.Getpid()
	th, err := ReadThread(pid, pid)
	all, _ := ReadStat(pid)
	if err != nil || th.Tid != pid || th.CPUSeconds > all.CPUSeconds() {
		t.Fatalf("main thread %+v, %v (the process's CPU %v s)", th, err, all.CPUSeconds())
	}
	if _, err := ReadThread(pid, 1<<30); err == nil {
		t.Error("a thread that does not exist was read")
	}
}
