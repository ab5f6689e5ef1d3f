//go:build long

// Long test tier (make test-all, -tags long): builds and removes network-namespace labs.

package netnstest

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func startLab(t *testing.T, o Options) *Lab {
	t.Helper()
	l, err := Start(o)
	if errors.Is(err, ErrNoCapability) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func netnsNames(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").CombinedOutput()
	if err != nil {
		t.Fatalf("ip netns list: %v: %s", err, out)
	}
	return string(out)
}

// A lab's hosts are separate namespaces with their own address, each with an sshd; Close
// removes namespaces, links, processes and files.
func TestLabLifecycle(t *testing.T) {
	l := startLab(t, Options{Clients: 1})
	if len(l.Hosts()) != 2 || !strings.HasPrefix(l.Subnet, "10.213.") || !strings.HasSuffix(l.Gateway, ".1") {
		t.Fatalf("lab shape: %+v", l)
	}
	for _, h := range l.Hosts() {
		out, err := l.Exec(h, "ip", "-o", "-4", "addr", "show", "dev", "eth0")
		if err != nil || !strings.Contains(string(out), " "+h.Addr+"/24 ") {
			t.Fatalf("%s: eth0 = %q, %v; want %s", h.Role, out, err, h.Addr)
		}
		// The namespace has no default route: only the lab's /24 is reachable from it.
		routes, err := l.Exec(h, "ip", "-4", "route")
		if err != nil || strings.Contains(string(routes), "default") {
			t.Fatalf("%s: routes %q, %v", h.Role, routes, err)
		}
		c, err := net.DialTimeout("tcp", h.Addr+":22", 2*time.Second)
		if err != nil {
			t.Fatalf("%s: sshd: %v", h.Role, err)
		}
		banner := make([]byte, 8)
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, _ := c.Read(banner)
		c.Close()
		if !strings.HasPrefix(string(banner[:n]), "SSH-2.0") {
			t.Fatalf("%s: banner %q", h.Role, banner[:n])
		}
	}
	for _, f := range []string{l.ConfigFile, l.KeyFile, l.KnownHosts} {
		if _, err := os.Stat(f); err != nil {
			t.Fatal(err)
		}
	}
	known, _ := os.ReadFile(l.KnownHosts)
	if strings.Count(string(known), "ssh-ed25519") != 2 {
		t.Fatalf("known_hosts: %s", known)
	}

	// Something started in a namespace (as tests start over ssh) is killed by Close too.
	sleeper := exec.Command("ip", "netns", "exec", l.Clients[0].Netns, "sleep", "300")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { sleeper.Wait(); close(exited) }()
	sshdPids := []int{}
	for _, c := range l.sshds {
		sshdPids = append(sshdPids, c.Process.Pid)
	}

	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	select {
	case <-exited:
	case <-time.After(3 * time.Second):
		t.Fatal("a process in a lab namespace survived Close")
	}
	names := netnsNames(t)
	for _, h := range l.Hosts() {
		if strings.Contains(names, h.Netns) {
			t.Errorf("namespace %s left: %s", h.Netns, names)
		}
	}
	for _, link := range l.links {
		if linkExists(link) {
			t.Errorf("link %s left", link)
		}
	}
	if _, err := os.Stat(l.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("directory %s left: %v", l.Dir, err)
	}
	for _, pid := range sshdPids {
		if !zombie(pid) {
			t.Errorf("sshd %d still runs", pid)
		}
	}
}

// What a crashed run left (named after a pid that cannot run: above the kernel's pid limit)
// is removed by the next lab's start; a live run's lab is not.
func TestCleanStale(t *testing.T) {
	if err := checkCapabilities(); err != nil {
		t.Skip(err)
	}
	const dead = Prefix + "99999999z"
	ns, link := dead+"-server", dead+"br"
	// Under the set-up lock, so a lab starting in another test process meanwhile cannot clean
	// up the fake remains half made. (Cleaning them up later is fine: they must go.)
	unlock, err := lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock() // on a failure below; it is released before the lab starts otherwise
	if err := runAll([]string{"ip", "netns", "add", ns}, []string{"ip", "link", "add", link, "type", "bridge"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // in case the test fails before CleanStale
		exec.Command("ip", "netns", "del", ns).Run()
		exec.Command("ip", "link", "del", link).Run()
	})
	dir := filepath.Join(os.TempDir(), dead+"-keys")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sleeper := exec.Command("ip", "netns", "exec", ns, "sleep", "300")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { sleeper.Wait(); close(exited) }()
	unlock()

	live := startLab(t, Options{Clients: 1}) // its start cleans the stale lab
	select {
	case <-exited:
	case <-time.After(3 * time.Second):
		t.Fatal("process in a stale namespace survived")
	}
	if names := netnsNames(t); strings.Contains(names, ns) {
		t.Errorf("stale namespace %s left: %s", ns, names)
	}
	if linkExists(link) {
		t.Errorf("stale bridge %s left", link)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale directory %s left", dir)
	}
	// This process's own lab is not stale.
	if err := CleanStale(); err != nil {
		t.Fatal(err)
	}
	if names := netnsNames(t); !strings.Contains(names, live.Server.Netns) {
		t.Fatalf("CleanStale removed a live lab: %s", names)
	}
}

func TestStaleNames(t *testing.T) {
	for name, want := range map[string]bool{
		Prefix + "99999999a-server": true,
		Prefix + "99999999abr":      true,
		Prefix + "1":                false, // no suffix: not a lab name
		"eth0":                      false,
		Prefix + "x1a":              false,
	} {
		if got := stale(name); got != want {
			t.Errorf("stale(%q) = %v, want %v", name, got, want)
		}
	}
	own := Prefix + strconv.Itoa(os.Getpid()) + "a-server"
	if stale(own) {
		t.Errorf("stale(%q): this process's own lab", own)
	}
}

// A lying host runs the lie in place of the harness's `bindrace SUB`, given the real binary and
// the arguments; other commands run as asked; a delay slows every command; Truth undoes both.
func TestLie(t *testing.T) {
	l := startLab(t, Options{Clients: 1})
	h := l.Clients[0]
	ssh := func(cmd string) (string, time.Duration) {
		t0 := time.Now()
		out, err := exec.Command("ssh", "-F", l.ConfigFile, "-o", "BatchMode=yes", h.Spec, cmd).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh %s: %v: %s", cmd, err, out)
		}
		return strings.TrimSpace(string(out)), time.Since(t0)
	}
	const asked = "sh -c '/tmp/s/bin/bindrace load --json 2>/dev/null; echo asked'"
	if err := l.Lie(h, "load", "#!/bin/sh\necho lie: \"$@\"\n"); err != nil {
		t.Fatal(err)
	}
	if out, _ := ssh(asked); out != "lie: /tmp/s/bin/bindrace load --json\nasked" {
		t.Errorf("lying host ran %q", out)
	}
	if out, _ := ssh("echo other"); out != "other" {
		t.Errorf("another command gave %q", out)
	}
	if err := l.Delay(h, 700*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, took := ssh("true"); took < 700*time.Millisecond {
		t.Errorf("a command on a slow host took %s", took)
	}
	if err := l.Truth(h); err != nil {
		t.Fatal(err)
	}
	if out, _ := ssh(asked); out != "asked" {
		t.Errorf("after Truth: %q", out)
	}
}

// A lab's veth end goes with its namespace in the kernel's own time, so Close may find it gone
// between looking and deleting (CI saw "Cannot find device" fail a passing run): deleting a link
// that is not there is what Close wanted, and one that is there is deleted.
func TestDeleteLinkThatIsGone(t *testing.T) {
	gone := Prefix + "99999999zg" // a stale name, under the 15 bytes a link name may have
	if err := deleteLink(gone); err != nil {
		t.Fatalf("deleting a link that is gone: %v", err)
	}
	if err := checkCapabilities(); err != nil {
		t.Skip("adding a link to delete needs CAP_NET_ADMIN here: " + err.Error())
	}
	if err := run("ip", "link", "add", gone, "type", "bridge"); err != nil {
		t.Fatal(err)
	}
	if err := deleteLink(gone); err != nil || linkExists(gone) {
		t.Fatalf("deleting a link that is there: %v (still there: %v)", err, linkExists(gone))
	}
}
