package procfs

import (
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

func TestParseThreads(t *testing.T) {
	// Lines as /proc/PID/task/TID/stat shows them: a node worker's name holds a space, a
	// thread may name itself with parentheses, and one exited between the listing and the read.
	stats := []string{
		"4100 (node) S 1 4100 4100 0 -1 4194560 9000 0 0 0 731 129 0 0 20 0 11 0 5555 0 0\n",
		"",
		"4107 (node (worker)) R 1 4100 4100 0 -1 4194624 12 0 0 0 96 4 0 0 20 0 11 0 5601 0 0\n",
		"4109 (a b) c)) S 1 4100 4100 0 -1 4194624 0 0 0 0 0 1 0 0 20 0 11 0 5601 0 0\n",
	}
	th, err := ParseThreads(stats)
	want := []Thread{{4100, "node", 8.6}, {4107, "node (worker)", 1}, {4109, "a b) c)", 0.01}}
	if err != nil || len(th) != len(want) {
		t.Fatalf("ParseThreads = %+v, %v", th, err)
	}
	for i := range want {
		if th[i] != want[i] {
			t.Errorf("thread %d = %+v, want %+v", i, th[i], want[i])
		}
	}
	if _, err := ParseThreads([]string{stats[0], "4101 (x) S 1 2"}); err == nil {
		t.Error("a malformed thread stat parsed")
	}
	if _, err := ParseThreads([]string{"", "\n"}); err == nil {
		t.Error("a process with no thread parsed")
	}
	if err := TooManyThreads(MaxThreads + 1); !strings.Contains(err.Error(), "513 threads") {
		t.Errorf("the bound's error: %v", err)
	}
}

// A thread of this process that names itself and burns CPU is read with its name and time,
// and the main thread is the one whose id is the pid.
func TestReadThreadsSelf(t *testing.T) {
	const name = "t (x) y"
	type seen struct {
		tid int
		th  []Thread
		err error
	}
	done := make(chan seen)
	go func() {
		// The goroutine may run on the main thread, whose name is the process's: it is put back.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var old [16]byte
		syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_GET_NAME, uintptr(unsafe.Pointer(&old[0])), 0)
		b := append([]byte(name), 0)
		syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_NAME, uintptr(unsafe.Pointer(&b[0])), 0)
		for start := time.Now(); time.Since(start) < 60*time.Millisecond; {
		}
		th, err := ReadThreads(Self)
		syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_NAME, uintptr(unsafe.Pointer(&old[0])), 0)
		done <- seen{syscall.Gettid(), th, err}
	}()
	s := <-done
	if s.err != nil {
		t.Fatal(s.err)
	}
	var mine, main *Thread
	for i, th := range s.th {
		if th.Tid == s.tid {
			mine = &s.th[i]
		}
		if th.Tid == os.Getpid() {
			main = &s.th[i]
		}
	}
	if mine == nil || mine.Comm != name || mine.CPUSeconds <= 0 {
		t.Errorf("the spinning thread %d in %+v: %+v", s.tid, s.th, mine)
	}
	if main == nil {
		t.Errorf("no thread %d (the pid) in %+v", os.Getpid(), s.th)
	}
	u, err := ReadUsage(Self)
	if err != nil || u.ThreadsErr != nil || u.Pid != os.Getpid() || len(u.Threads) == 0 {
		t.Fatalf("own usage: %+v, %v", u, err)
	}
}
