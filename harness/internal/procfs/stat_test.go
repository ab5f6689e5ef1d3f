package procfs

import (
	"os"
	"testing"
)

func TestParseStat(t *testing.T) {
	// The command name may hold spaces and parentheses; fields count from the last ')'.
	stat := "1234 (a b) c)) S 1 1230 1234 0 -1 4194560 100 0 0 0 250 130 7 3 20 0 3 0 5555 0 0"
	s, err := ParseStat([]byte(stat))
	want := Stat{Pid: 1234, PPid: 1, Pgrp: 1230, State: 'S', MinorFaults: 100, UTime: 250, STime: 130, CUTime: 7, CSTime: 3, StartTime: 5555}
	if err != nil || s != want {
		t.Fatalf("ParseStat = %+v, %v; want %+v", s, err, want)
	}
	if s.CPUSeconds() != 3.8 || s.CPUSecondsWithReaped() != 3.9 {
		t.Errorf("cpu %v, with reaped %v; want 3.8 and 3.9", s.CPUSeconds(), s.CPUSecondsWithReaped())
	}
	for _, bad := range []string{"garbage", "x (a) S 1 2", "12 (a) S 1 2 3", "12 (a) S one 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"} {
		if _, err := ParseStat([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestReadStatSelf(t *testing.T) {
	s, err := ReadStat(Self)
	if err != nil || s.Pid != os.Getpid() || s.PPid != os.Getppid() || s.StartTime == 0 || s.Zombie() {
		t.Fatalf("own stat = %+v, %v", s, err)
	}
	if !Alive(s) {
		t.Error("this process is not alive")
	}
	if Alive(Stat{Pid: s.Pid, StartTime: s.StartTime + 1}) {
		t.Error("a pid reused by a later process counts as the same process")
	}
}

// TestReadThreadStat: a thread's own stat, here the main thread's, whose id is the pid; no
// thread of that id, an error.
func TestReadThreadStat(t *testing.T) {
	pid := os.Getpid()
	s, err := ReadThreadStat(pid, pid)
	all, _ := ReadStat(pid)
	if err != nil || s.Pid != pid || s.CPUSeconds() > all.CPUSeconds() {
		t.Fatalf("main thread's stat %+v, %v (the process's CPU %v s)", s, err, all.CPUSeconds())
	}
	if _, err := ReadThreadStat(pid, 1<<30); err == nil {
		t.Error("a thread that does not exist was read")
	}
}

// TestRunDelay: the run-queue wait is schedstat's second field; this thread's can be read.
func TestRunDelay(t *testing.T) {
	if d, err := ParseRunDelay([]byte("1333688181 2275668475 727\n")); err != nil || d != 2275668475 {
		t.Errorf("ParseRunDelay = %v, %v", d, err)
	}
	for _, bad := range []string{"", "1 2", "1 x 3", "1 -2 3", "1 2 3 4"} {
		if _, err := ParseRunDelay([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	pid := os.Getpid()
	if _, err := ReadThreadRunDelay(pid, pid); err != nil {
		t.Errorf("own main thread: %v", err)
	}
}

func TestTree(t *testing.T) {
	tree, err := Tree(os.Getppid())
	if err != nil || tree[0].Pid != os.Getppid() {
		t.Fatalf("tree of the parent = %v, %v", tree, err)
	}
	found := false
	for _, s := range tree {
		found = found || s.Pid == os.Getpid()
	}
	if !found {
		t.Errorf("this process is not in its parent's tree: %v", tree)
	}
}
