//go:build long

// Long test tier (make test-all, -tags long): the transport against the network-namespace lab.

package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/procfs"
)

// Each host runs the command in its own namespace: it has its own address and none of the others'.
func TestRunOnEachHost(t *testing.T) {
	t.Parallel()
	l, r := labRunner(t, Options{})
	ctx := testContext(t)
	for _, h := range l.Hosts() {
		out, err := r.Run(ctx, host(t, h), "ip -o -4 addr show; echo user=$(id -un)")
		if err != nil {
			t.Fatalf("%s: %v", h.Role, err)
		}
		if !strings.Contains(string(out), " "+h.Addr+"/24 ") || !strings.Contains(string(out), "user=root") {
			t.Errorf("%s: output lacks its address %s or user root:\n%s", h.Role, h.Addr, out)
		}
		for _, other := range l.Hosts() {
			if other.Addr != h.Addr && strings.Contains(string(out), " "+other.Addr+"/") {
				t.Errorf("%s: sees %s's address %s: not its own namespace", h.Role, other.Role, other.Addr)
			}
		}
	}
	// stdin reaches the command; a failing command reports its status and stderr tail.
	srv := host(t, l.Server)
	out, err := r.RunInput(ctx, srv, "tr a-z A-Z", strings.NewReader("piped"))
	if err != nil || string(out) != "PIPED" {
		t.Errorf("RunInput = %q, %v", out, err)
	}
	_, err = r.Run(ctx, srv, "echo first >&2; echo boom >&2; exit 3")
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrCommand) || e.ExitCode != 3 ||
		!strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), l.Server.Addr) {
		t.Errorf("failing command: %v", err)
	}
}

func TestFacts(t *testing.T) {
	t.Parallel()
	l, r := labRunner(t, Options{})
	f, err := r.Facts(testContext(t), host(t, l.Clients[0]))
	if err != nil {
		t.Fatal(err)
	}
	uname, _ := exec.Command("uname", "-r").Output()
	if f.CPUs != runtime.NumCPU() || f.Kernel != strings.TrimSpace(string(uname)) || f.Arch == "" || f.LoadAvg1 < 0 {
		t.Errorf("facts %+v; want %d CPUs and kernel %s", f, runtime.NumCPU(), uname)
	}
	if local, err := exec.Command("node", "--version").Output(); err == nil {
		if f.Node != strings.TrimSpace(string(local)) || f.NodeMajor() < 1 {
			t.Errorf("node %q (major %d); this machine's is %s", f.Node, f.NodeMajor(), local)
		}
	}
}

func TestRequireNode(t *testing.T) {
	t.Parallel()
	l := lab.Get(t)
	ctx := testContext(t)
	cl := host(t, l.Clients[1])

	// A node on the PATH that is too old: the error names the host and the version found.
	fake := t.TempDir()
	if err := os.WriteFile(filepath.Join(fake, "node"), []byte("#!/bin/sh\necho v18.19.0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, r := labRunner(t, Options{PathPrepend: []string{fake}})
	err := r.RequireNode(ctx, cl, 20)
	if !errors.Is(err, ErrRequirement) || !strings.Contains(err.Error(), l.Clients[1].Addr) || !strings.Contains(err.Error(), "v18.19.0") {
		t.Errorf("RequireNode(old node) = %v", err)
	}
	if err := r.RequireNode(ctx, cl, 18); err != nil {
		t.Errorf("RequireNode(18) with v18: %v", err)
	}

	// No node at all.
	_, r = labRunner(t, Options{Node: "/nonexistent/node"})
	err = r.RequireNode(ctx, cl, 20)
	if !errors.Is(err, ErrRequirement) || !strings.Contains(err.Error(), l.Clients[1].Addr) || !strings.Contains(err.Error(), "not found") {
		t.Errorf("RequireNode(no node) = %v", err)
	}
}

func TestUnreachableHost(t *testing.T) {
	t.Parallel()
	l, r := labRunner(t, Options{ConnectTimeout: 2 * time.Second})
	h := Host{User: "root", Name: l.Unused}
	t0 := time.Now()
	_, err := r.Run(testContext(t), h, "true")
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), l.Unused) {
		t.Errorf("unreachable host: %v", err)
	}
	if d := time.Since(t0); d > 8*time.Second {
		t.Errorf("took %s despite a 2 s connect timeout", d)
	}
	// A session cannot open there either, and says where.
	s := labSession(t, r, SessionOptions{})
	if _, err := s.Start(testContext(t), h, ProcessSpec{Name: "x", Argv: []string{"true"}}); !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), l.Unused) {
		t.Errorf("Start on an unreachable host: %v", err)
	}
}

func TestRefusedKey(t *testing.T) {
	t.Parallel()
	l := lab.Get(t)
	cfg, err := l.RefusedConfig("stranger")
	if err != nil {
		t.Fatal(err)
	}
	_, r := labRunner(t, Options{ConfigFile: cfg})
	_, err = r.Run(testContext(t), host(t, l.Server), "true")
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), l.Server.Addr) || !strings.Contains(err.Error(), "Permission denied") {
		t.Errorf("refused key: %v", err)
	}
}

// A file and a directory tree reach the host; what already matches is not sent again.
func TestCopy(t *testing.T) {
	t.Parallel()
	l, ctx, s := sessionInLab(t, SessionOptions{})
	h := host(t, l.Server)
	src := t.TempDir()

	bin := filepath.Join(src, "server-bin")
	if err := os.WriteFile(bin, bytes.Repeat([]byte("binary "), 50000), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := s.Copy(ctx, h, bin, "")
	if err != nil || res.Copied != 1 || res.Skipped != 0 || res.Bytes != 350000 || res.Path != s.Path("server-bin") {
		t.Fatalf("first copy: %+v, %v", res, err)
	}
	sameFile(t, bin, res.Path)
	if len(s.mux(h)) == 0 {
		t.Error("the session has no shared connection to the host")
	}
	out, err := s.Run(ctx, h, "sha256sum "+Quote(res.Path))
	if sum, _ := machine.FileSHA256(bin); err != nil || !strings.HasPrefix(string(out), sum) {
		t.Errorf("sha256 on the host: %q, %v; want %s", out, err, sum)
	}
	if res, err = s.Copy(ctx, h, bin, ""); err != nil || res.Copied != 0 || res.Skipped != 1 {
		t.Errorf("re-copy: %+v, %v; want skipped", res, err)
	}
	if err := os.WriteFile(bin, []byte("changed"), 0o755); err != nil {
		t.Fatal(err)
	}
	if res, err = s.Copy(ctx, h, bin, "server-bin"); err != nil || res.Copied != 1 {
		t.Errorf("copy of a changed file: %+v, %v", res, err)
	}
	sameFile(t, bin, res.Path)
	os.Chmod(bin, 0o700)
	if res, err = s.Copy(ctx, h, bin, "server-bin"); err != nil || res.Copied != 1 {
		t.Errorf("copy after a mode change: %+v, %v", res, err)
	}
	sameFile(t, bin, res.Path)

	tree := writeBundleTree(t, src)
	res, err = s.Copy(ctx, h, tree, "uws")
	if err != nil || res.Files != 6 || res.Copied != 6 || res.Skipped != 0 {
		t.Fatalf("tree copy: %+v, %v", res, err)
	}
	sameTree(t, tree, res.Path)
	if out, err := s.r.Run(ctx, h, Quote(res.Path+"/node_modules/.bin/cli")); err != nil || string(out) != "cli\n" {
		t.Errorf("the copied symlink to an executable: %q, %v", out, err)
	}
	if res, err = s.Copy(ctx, h, tree, "uws"); err != nil || res.Copied != 0 || res.Skipped != 6 || res.Removed != 0 {
		t.Errorf("tree re-copy: %+v, %v; want all skipped", res, err)
	}
	// One file changed, one removed, one added, a directory removed: only those travel.
	os.WriteFile(filepath.Join(tree, "dist/server.js"), []byte("console.log(2)"), 0o644)
	os.Remove(filepath.Join(tree, "node_modules/other/package.json"))
	os.WriteFile(filepath.Join(tree, "dist/new.js"), []byte("new"), 0o644)
	os.RemoveAll(filepath.Join(tree, "node_modules/other/lib"))
	res, err = s.Copy(ctx, h, tree, "uws")
	if err != nil || res.Files != 4 || res.Copied != 2 || res.Skipped != 2 || res.Removed != 5 {
		t.Errorf("tree update: %+v, %v; want 2 copied, 2 skipped, 5 removed (a file, and a directory of a file and a directory of a file)", res, err)
	}
	sameTree(t, tree, res.Path)

	if _, err := s.Copy(ctx, h, filepath.Join(src, "missing"), ""); err == nil {
		t.Error("copy of a missing file succeeded")
	}
	if _, err := s.Copy(ctx, h, bin, "../escape"); err == nil {
		t.Error("copy outside the session directory accepted")
	}
}

// A host without rsync is a requirement not met, named, not a protocol error. (The lab's hosts
// share this machine's rsync; one that is not found there is put first on their PATH.)
func TestCopyNeedsRsyncOnHost(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "rsync"), []byte("#!/bin/sh\necho \"sh: 1: exec: rsync: not found\" >&2\nexit 127\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	l, r := labRunner(t, Options{PathPrepend: []string{bin}})
	s := labSession(t, r, SessionOptions{})
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, []byte("x"), 0o644)
	_, err := s.Copy(testContext(t), host(t, l.Server), file, "")
	if !errors.Is(err, ErrRequirement) || !strings.Contains(err.Error(), "rsync is not installed") || !strings.Contains(err.Error(), l.Server.Addr) {
		t.Errorf("copy to a host without rsync: %v", err)
	}
}

// writeBundleTree writes src/uws, a tree like a Node bundle: nested directories, an executable,
// a symlink, an empty directory.
func writeBundleTree(t *testing.T, src string) string {
	t.Helper()
	tree := filepath.Join(src, "uws")
	for name, body := range map[string]string{
		"dist/server.js":                   "console.log(1)",
		"node_modules/pkg/index.js":        "module.exports = 1",
		"node_modules/pkg/bin/cli":         "#!/bin/sh\necho cli",
		"node_modules/other/package.json":  "{}",
		"node_modules/other/lib/a b.js":    "// a name with a space",
		"node_modules/other/lib/deep/x.js": strings.Repeat("x", 100000),
	} {
		p := filepath.Join(tree, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(tree, "node_modules/pkg/bin/cli"), 0o755)
	os.MkdirAll(filepath.Join(tree, "node_modules/.bin"), 0o755)
	os.MkdirAll(filepath.Join(tree, "empty"), 0o755)
	if err := os.Symlink("../pkg/bin/cli", filepath.Join(tree, "node_modules/.bin/cli")); err != nil {
		t.Fatal(err)
	}
	return tree
}

func sameFile(t *testing.T, local, remote string) {
	t.Helper()
	a, _ := os.ReadFile(local)
	b, err := os.ReadFile(remote) // the lab's hosts share this machine's filesystem
	la, _ := os.Stat(local)
	lb, _ := os.Stat(remote)
	if err != nil || !bytes.Equal(a, b) || la.Mode() != lb.Mode() {
		t.Errorf("%s differs from %s (%v)", remote, local, err)
	}
}

func sameTree(t *testing.T, local, remote string) {
	t.Helper()
	want, err1 := treeOf(local)
	got, err2 := treeOf(remote) // the lab's hosts share this machine's filesystem
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if len(want) != len(got) {
		t.Errorf("tree %s has %d entries, %s has %d", remote, len(got), local, len(want))
	}
	for p, e := range want {
		if got[p] != e {
			t.Errorf("%s/%s = %q, want %q", remote, p, got[p], e)
		}
	}
}

// treeOf describes every entry under root: its kind and mode, and a file's content or a
// symlink's target.
func treeOf(root string) (map[string]string, error) {
	tree := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			desc += " -> " + target
			if err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			sum, err := machine.FileSHA256(p)
			desc += " " + sum
			if err != nil {
				return err
			}
		}
		tree[rel] = desc
		return nil
	})
	return tree, err
}

// A long-running process has its own group; Stop leaves nothing of it, including a child that
// left the group, and needs SIGKILL only for a process that ignores SIGTERM.
func TestStartStop(t *testing.T) {
	t.Parallel()
	l, ctx, s := sessionInLab(t, SessionOptions{StopGrace: 500 * time.Millisecond})
	h := host(t, l.Clients[0])

	p, err := s.Start(ctx, h, ProcessSpec{Name: "sleeper", Argv: []string{"sh", "-c", "setsid sleep 300 & exec sleep 300"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Pid == p.Pgid || !strings.HasPrefix(p.Log, s.Dir+"/") {
		t.Errorf("process %+v", p)
	}
	if alive, err := p.Alive(ctx); !alive || err != nil {
		t.Fatalf("Alive = %v, %v", alive, err)
	}
	var escaped []int
	if !eventually(3*time.Second, func() bool {
		escaped = nil
		for _, pid := range localTagged(p.tag) {
			if g := pgidOf(pid); g != p.Pgid {
				escaped = append(escaped, pid)
			}
		}
		return len(localGroup(p.Pgid)) >= 2 && len(escaped) == 1
	}) {
		t.Fatalf("want the supervisor and sleep in group %d and one escaped sleep; group %v, escaped %v", p.Pgid, localGroup(p.Pgid), escaped)
	}
	if err := p.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if g := localGroup(p.Pgid); len(g) > 0 {
		t.Errorf("group %d still has %v", p.Pgid, g)
	}
	if left := localTagged(p.tag); len(left) > 0 {
		t.Errorf("processes of %s left: %v (the escaped child was %v)", p.Name, left, escaped)
	}
	if alive, err := p.Alive(ctx); alive || err != nil {
		t.Errorf("Alive after Stop = %v, %v", alive, err)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	select {
	case <-p.Exited():
	default:
		t.Error("Exited not closed after Stop")
	}

	stubborn, err := s.Start(ctx, h, ProcessSpec{Name: "stubborn", Argv: []string{"sh", "-c", "trap '' TERM; sleep 300 & wait"}})
	if err != nil {
		t.Fatal(err)
	}
	eventually(2*time.Second, func() bool { return len(localGroup(stubborn.Pgid)) >= 3 })
	err = stubborn.Stop()
	if err == nil || !strings.Contains(err.Error(), "ignored SIGTERM") || !strings.Contains(err.Error(), l.Clients[0].Addr) {
		t.Errorf("Stop of a process ignoring SIGTERM: %v", err)
	}
	if g := localGroup(stubborn.Pgid); len(g) > 0 {
		t.Errorf("group %d still has %v after SIGKILL", stubborn.Pgid, g)
	}
}

func pgidOf(pid int) int {
	g, err := syscall.Getpgid(pid)
	if err != nil {
		return -1
	}
	return g
}

// Exit status, Wait, a crash seen by Stop, a command that is not there.
func TestExit(t *testing.T) {
	t.Parallel()
	l, ctx, s := sessionInLab(t, SessionOptions{})
	h := host(t, l.Clients[1])

	p, err := s.Start(ctx, h, ProcessSpec{Name: "crash", Argv: []string{"sh", "-c", "echo dying >&2; sleep 0.3; exit 7"}})
	if err != nil {
		t.Fatal(err)
	}
	if code, err := p.Wait(ctx); code != 7 || err != nil {
		t.Errorf("Wait = %d, %v; want 7", code, err)
	}
	if err := p.ExitError(); err == nil || !strings.Contains(err.Error(), "status 7") {
		t.Errorf("ExitError = %v", err)
	}
	if log, err := p.LogTail(ctx, 5); err != nil || log != "dying\n" {
		t.Errorf("LogTail = %q, %v", log, err)
	}
	if err := p.Stop(); err == nil || !strings.Contains(err.Error(), "had already exited (exit status 7)") || !strings.Contains(err.Error(), "dying") {
		t.Errorf("Stop after a crash = %v", err)
	}
	if _, err := p.Usage(); err == nil || !strings.Contains(err.Error(), "has exited") {
		t.Errorf("Usage after exit = %v", err)
	}

	ok, err := s.Start(ctx, h, ProcessSpec{Name: "done", Argv: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	if code, err := ok.Wait(ctx); code != 0 || err != nil {
		t.Errorf("Wait = %d, %v", code, err)
	}
	if err := ok.Stop(); err != nil {
		t.Errorf("Stop after a clean exit: %v", err)
	}

	_, err = s.Start(ctx, h, ProcessSpec{Name: "missing", Argv: []string{"no-such-command-here"}})
	var e *Error
	if !errors.As(err, &e) || e.ExitCode != 127 || !strings.Contains(err.Error(), "no-such-command-here: not found") || !strings.Contains(err.Error(), l.Clients[1].Addr) {
		t.Errorf("Start of a missing command: %v", err)
	}
}

// A process reads its Stdin (bytes of any kind, quotes and newlines included) and its stdout is
// its Output; without Stdin it reads /dev/null.
func TestStdin(t *testing.T) {
	t.Parallel()
	l, ctx, s := sessionInLab(t, SessionOptions{})
	h := host(t, l.Clients[0])
	in := []byte("{\"config\": 'quoted'}\n$HOME `x`\n\x00\xff end")
	for _, c := range []struct {
		stdin []byte
		want  string
	}{{in, string(in)}, {nil, ""}} {
		p, err := s.Start(ctx, h, ProcessSpec{Name: "cat", Argv: []string{"cat"}, Stdin: c.stdin, SeparateStdout: true})
		if err != nil {
			t.Fatal(err)
		}
		if code, err := p.Wait(ctx); code != 0 || err != nil {
			t.Fatalf("cat: exit %d, %v", code, err)
		}
		if out, err := p.Output(ctx); err != nil || string(out) != c.want {
			t.Errorf("cat read %q, %v; want %q", out, err, c.want)
		}
	}
}

// Usage of a busy process: CPU seconds grow like wall time, the resident set is there, and
// the figures match what this machine's /proc says about the same pid.
func TestUsage(t *testing.T) {
	l, ctx, s := sessionInLab(t, SessionOptions{})
	p, err := s.Start(ctx, host(t, l.Server), ProcessSpec{Name: "busy", Argv: []string{"sha256sum", "/dev/zero"}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := p.Usage()
	if err != nil {
		t.Fatal(err)
	}
	// CPU seconds grow with a busy loop (however loaded the shared machine is), and never
	// faster than wall time for this single-threaded one.
	var u procfs.Usage
	if !eventually(8*time.Second, func() bool {
		u, err = p.Usage()
		return err != nil || u.CPUSeconds >= first.CPUSeconds+0.3
	}) || err != nil {
		t.Fatalf("usage %+v then %+v, %v", first, u, err)
	}
	elapsed := time.Since(p.Started).Seconds()
	if u.CPUSeconds > elapsed+0.2 || u.RSSBytes <= 0 || u.PeakRSSBytes < u.RSSBytes {
		t.Errorf("usage %+v after %.2fs", u, elapsed)
	}
	local, err := procfs.ReadUsage(p.Pid)
	if err != nil || local.CPUSeconds < u.CPUSeconds || local.CPUSeconds > u.CPUSeconds+1 || local.PeakRSSBytes < u.RSSBytes {
		t.Errorf("remote usage %+v, local reading %+v (%v)", u, local, err)
	}
	// The CPU share is CPU seconds over the host's time between the readings: one busy thread
	// never shows more than one core, however late the answers came back.
	if wall := u.At.Sub(first.At).Seconds(); wall <= 0 || (u.CPUSeconds-first.CPUSeconds)/wall > 1.05 {
		t.Errorf("readings at %v and %v: %.3f CPU-s over %.3f s", first.At, u.At, u.CPUSeconds-first.CPUSeconds, wall)
	}
	// The read carries the threads: sha256sum's one thread is the process, and its time,
	// read just after the process's, lies between that and the next read's.
	next, err := p.Usage()
	if err != nil || u.ThreadsErr != nil || len(u.Threads) != 1 || u.Threads[0].Tid != p.Pid || u.Threads[0].Comm != "sha256sum" || !u.Threads[0].WaitKnown ||
		u.Threads[0].CPUSeconds < u.CPUSeconds || u.Threads[0].CPUSeconds > next.CPUSeconds {
		t.Errorf("threads %+v (%v) of a process of %.2f then %.2f CPU-s (%v)", u.Threads, u.ThreadsErr, u.CPUSeconds, next.CPUSeconds, err)
	}
	if err := p.Stop(); err != nil {
		t.Error(err)
	}
}

// Usage reads go through one channel per host, not an ssh session each (whose login shell's rc
// files can take longer than a window): every read is answered by the same reader on the host.
// A reader killed on the host costs one read, the next reconnects, and Close ends it.
func TestUsageReaderIsOneChannel(t *testing.T) {
	l, ctx, s := sessionInLab(t, SessionOptions{})
	p, err := s.Start(ctx, host(t, l.Server), ProcessSpec{Name: "idle", Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	var readers []string
	for range 5 {
		if _, err := p.Usage(); err != nil {
			t.Fatal(err)
		}
		readers = append(readers, strings.Join(usageReaders(t, s.ID), ","))
	}
	if readers[0] == "" || strings.Contains(readers[0], ",") || strings.Count(strings.Join(readers, " "), readers[0]) != 5 {
		t.Errorf("usage readers on the host after each of 5 reads: %q; want the same one", readers)
	}
	if err := syscall.Kill(atoi(t, readers[0]), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var e *Error
	if _, err := p.Usage(); err != nil && (!errors.As(err, &e) || e.Kind != ErrLost) {
		t.Errorf("read after the reader was killed: %v; want it lost, or answered by a new one", err)
	}
	if u, err := p.Usage(); err != nil || u.RSSBytes <= 0 {
		t.Errorf("read after reconnecting: %+v, %v", u, err)
	}
	if now := usageReaders(t, s.ID); len(now) != 1 || now[0] == readers[0] {
		t.Errorf("usage readers after the reconnect: %q (the killed one was %s)", now, readers[0])
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left := usageReaders(t, s.ID); len(left) > 0 {
		t.Errorf("usage readers left after Close: %q", left)
	}
}

// usageReaders are the pids of session id's usage readers (the lab's hosts share this
// machine's process table).
func usageReaders(t *testing.T, id string) []string {
	t.Helper()
	out, _ := exec.Command("sh", "-c", "grep -lsaz -e "+Quote(tagPattern(sessionTag(id))+"usage;")+" /proc/[0-9]*/environ").Output()
	var pids []string
	for _, f := range strings.Fields(string(out)) {
		pids = append(pids, strings.TrimSuffix(strings.TrimPrefix(f, "/proc/"), "/environ"))
	}
	return pids
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Close stops what the session started on every host and removes its directories; it works
// after the context that started them was cancelled (Ctrl-C).
func TestSessionClose(t *testing.T) {
	t.Parallel()
	l, r := labRunner(t, Options{})
	s, err := r.NewSession(SessionOptions{StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var procs []*Process
	for _, h := range l.Hosts() {
		p, err := s.Start(ctx, host(t, h), ProcessSpec{Name: "sleep", Argv: []string{"sleep", "300"}})
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	// One started with a context of its own that is cancelled: it is stopped at once.
	own, ownCancel := context.WithCancel(context.Background())
	lone, err := s.Start(own, host(t, l.Server), ProcessSpec{Name: "lone", Argv: []string{"sleep", "300"}})
	if err != nil {
		t.Fatal(err)
	}
	ownCancel()
	select {
	case <-lone.Exited():
	case <-time.After(5 * time.Second):
		t.Fatal("cancelling the start context did not stop the process")
	}
	if left := localTagged(lone.tag); len(left) > 0 {
		t.Errorf("lone left %v", left)
	}
	if len(s.Hosts()) != 3 || len(s.Processes()) != 4 {
		t.Errorf("session tracks %d hosts, %d processes", len(s.Hosts()), len(s.Processes()))
	}

	watched := procs[0].Exited() // a watcher is running when the session closes

	cancel() // as Ctrl-C would
	t0 := time.Now()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if left := localTagged(sessionTag(s.ID)); len(left) > 0 {
		t.Errorf("processes left after Close: %v", left)
	}
	<-watched
	if _, err := procs[0].Wait(context.Background()); !errors.Is(err, errClosed) {
		t.Errorf("Wait across Close = %v; want %v", err, errClosed)
	}
	for _, p := range procs {
		if g := localGroup(p.Pgid); len(g) > 0 {
			t.Errorf("%s on %s: group %d still has %v", p.Name, p.Host, p.Pgid, g)
		}
		if err := p.Stop(); err != nil {
			t.Errorf("Stop after Close: %v", err)
		}
	}
	if _, err := os.Stat(s.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("session directory %s left: %v", s.Dir, err)
	}
	t.Logf("Close of 3 hosts took %s", time.Since(t0).Round(time.Millisecond))
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Start(context.Background(), host(t, l.Server), ProcessSpec{Name: "late", Argv: []string{"true"}}); !errors.Is(err, errClosed) {
		t.Errorf("Start after Close: %v", err)
	}
}

// When the harness dies (its lifeline ssh goes), the host ends the session by itself.
func TestLifelineHarnessGone(t *testing.T) {
	t.Parallel()
	l, ctx, s := sessionInLab(t, SessionOptions{})
	h := host(t, l.Clients[0])
	p, err := s.Start(ctx, h, ProcessSpec{Name: "orphan", Argv: []string{"sleep", "300"}})
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	st := s.hosts[h.String()]
	s.mu.Unlock()
	st.cmd.Process.Kill() // as if the harness were killed: its ssh ends
	if !eventually(5*time.Second, func() bool { return len(localTagged(p.tag)) == 0 }) {
		t.Fatalf("process %d survived its session's lifeline", p.Pid)
	}
	if !eventually(3*time.Second, func() bool {
		_, err := os.Stat(s.Dir)
		return errors.Is(err, os.ErrNotExist)
	}) {
		t.Errorf("session directory %s left", s.Dir)
	}
	// The session knows the host is gone and says so.
	<-st.ended
	if _, err := s.Start(ctx, h, ProcessSpec{Name: "again", Argv: []string{"true"}}); !errors.Is(err, ErrLost) || !strings.Contains(err.Error(), l.Clients[0].Addr) {
		t.Errorf("Start after the lifeline ended: %v", err)
	}
}

// A host that is cut off: Close reports it by name and cleans up the others; the host ends the
// session's processes by itself when heartbeats stop.
func TestLostHost(t *testing.T) {
	// Not parallel: Go runs the sequential tests before the parallel ones, so no other test is
	// using the host this one cuts off.
	l, r := labRunner(t, Options{ConnectTimeout: 2 * time.Second, AliveInterval: time.Second})
	s, err := r.NewSession(SessionOptions{StopGrace: 500 * time.Millisecond, Heartbeat: 500 * time.Millisecond, Silence: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := testContext(t)
	lostHost, okHost := l.Clients[1], l.Server
	lost, err := s.Start(ctx, host(t, lostHost), ProcessSpec{Name: "sleep", Argv: []string{"sleep", "300"}})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := s.Start(ctx, host(t, okHost), ProcessSpec{Name: "sleep", Argv: []string{"sleep", "300"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetLink(lostHost, false); err != nil {
		t.Fatal(err)
	}
	defer l.SetLink(lostHost, true)

	t0 := time.Now()
	err = s.Close()
	if err == nil || !(errors.Is(err, ErrUnreachable) || errors.Is(err, ErrLost)) || !strings.Contains(err.Error(), lostHost.Addr) {
		t.Errorf("Close with a lost host = %v", err)
	}
	if strings.Contains(fmt.Sprint(err), okHost.Addr) {
		t.Errorf("Close blames the reachable host: %v", err)
	}
	t.Logf("Close with a lost host took %s: %v", time.Since(t0).Round(time.Millisecond), err)
	if left := localTagged(kept.tag); len(left) > 0 {
		t.Errorf("the reachable host kept %v", left)
	}
	if !eventually(6*time.Second, func() bool { return len(localTagged(lost.tag)) == 0 }) {
		t.Errorf("the lost host did not end the session's process %d by itself", lost.Pid)
	}
}

// A TCP server in the server namespace answers a client namespace at its /24 address: the
// shape of a race with --server-host and --client-hosts. Both programs are copied there.
func TestServerReachableFromClients(t *testing.T) {
	t.Parallel()
	l, ctx, s := sessionInLab(t, SessionOptions{})
	srvHost := host(t, l.Server)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Copy(ctx, srvHost, self, "tester")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Server.Addr + ":18080"
	srv, err := s.Start(ctx, srvHost, ProcessSpec{Name: "server", Argv: []string{res.Path}, Env: []string{envServe + "=" + addr}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range l.Clients {
		ch := host(t, c)
		cres, err := s.Copy(ctx, ch, self, "tester")
		if err != nil {
			t.Fatal(err)
		}
		var body []byte
		ok := eventually(5*time.Second, func() bool {
			p, err := s.Start(ctx, ch, ProcessSpec{Name: "get", Argv: []string{cres.Path}, SeparateStdout: true,
				Env: []string{envGet + "=http://" + addr + "/"}})
			if err != nil {
				t.Fatal(err)
			}
			if code, err := p.Wait(ctx); code != 0 || err != nil {
				return false
			}
			body, err = p.Output(ctx)
			return err == nil
		})
		if !ok || string(body) != "200 hi\n" {
			t.Errorf("%s: GET http://%s/ = %q", c.Role, addr, body)
		}
	}
	// The server is not on this machine's loopback: it listens inside its namespace only.
	if out, err := exec.Command("sh", "-c", "ss -Hltn 'sport = :18080'").Output(); err == nil && len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("port 18080 listens in the root namespace: %s", out)
	}
	if err := srv.Stop(); err != nil {
		t.Errorf("server Stop: %v", err)
	}
}

// A common start instant: each client waits for it in its own clock and they begin together.
func TestPlanStart(t *testing.T) {
	t.Parallel()
	l, ctx, s := sessionInLab(t, SessionOptions{})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var clients []Host
	paths := map[Host]string{}
	for _, c := range l.Clients {
		h := host(t, c)
		clients = append(clients, h)
		res, err := s.Copy(ctx, h, self, "tester")
		if err != nil {
			t.Fatal(err)
		}
		paths[h] = res.Path
	}
	// An 8 s lead: starting both processes over ssh took over 3 s (the lead this test had) with
	// another long-tier package racing servers on the same two CPUs.
	plan, err := s.r.PlanStart(ctx, clients, 8*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range clients {
		// The lab's hosts share this machine's clock.
		if off := plan.Offsets[h.String()]; off < -50*time.Millisecond || off > 50*time.Millisecond {
			t.Errorf("%s: clock offset %s", h, off)
		}
	}
	if plan.Accuracy <= 0 || plan.Accuracy > 100*time.Millisecond || time.Until(plan.At) < 2*time.Second {
		t.Errorf("plan %+v", plan)
	}
	var procs []*Process
	for _, h := range clients {
		p, err := s.Start(ctx, h, ProcessSpec{Name: "load", Argv: []string{paths[h]}, SeparateStdout: true,
			Env: []string{envStartAt + "=" + plan.Arg(h)}})
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	for _, p := range procs {
		if code, err := p.Wait(ctx); code != 0 || err != nil {
			log, _ := p.LogTail(ctx, 5)
			t.Fatalf("%s: exit %d, %v: %s", p.Name, code, err, log)
		}
		out, err := p.Output(ctx)
		ns, convErr := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		if err != nil || convErr != nil {
			t.Fatalf("%s output %q: %v %v", p.Name, out, err, convErr)
		}
		// Late by up to a second: a loaded machine may wake a sleeper that late, and a start
		// plan that failed would begin seconds off (or never).
		if late := time.Unix(0, ns).Sub(plan.At); late < 0 || late > time.Second {
			t.Errorf("%s began %s after the planned instant", p.Name, late)
		}
	}
}
