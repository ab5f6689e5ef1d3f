// Package netnstest builds real hosts for tests of harness/remote: network namespaces on a bridge
// of their own, each running Debian's OpenSSH server with host keys, a user key, a known_hosts
// file and an ssh config file made for the test. Nothing outside those namespaces is contacted,
// and Close removes every namespace, link, process and file the lab made.
//
// Names start with "bdrt" (bindrace test) followed by the pid of the process that made them, so
// parallel runs never collide and a later run removes what a crashed one left (CleanStale).
package netnstest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Prefix starts the name of every namespace, link and temporary directory a lab makes.
const Prefix = "bdrt"

// SSHD is the server binary run in each namespace (package openssh-server).
const SSHD = "/usr/sbin/sshd"

// ErrNoCapability: this process may not create network namespaces; tests skip on it.
var ErrNoCapability = errors.New("network namespaces need CAP_NET_ADMIN and CAP_SYS_ADMIN (run as root)")

// Host is one namespace with an sshd listening on Addr:22.
type Host struct {
	Role  string // "server", "client1", "client2", ...
	Netns string // namespace name
	Addr  string // IPv4 address in the lab's /24
	Spec  string // "root@<Addr>", a host spec for harness/remote
}

// Options shape a lab.
type Options struct {
	Clients int // client hosts besides the server; 0 means 2
}

// Lab is a running set of hosts. Its ssh config file (ConfigFile, for ssh -F) names the user,
// the identity and the known_hosts file for every address of the lab's /24.
type Lab struct {
	Subnet     string // "10.213.47.0/24"
	Gateway    string // the root namespace's end of the bridge, ".1"
	Unused     string // an address of the /24 that no host answers: an unreachable host
	Server     Host
	Clients    []Host
	Dir        string // the lab's temporary directory (keys, configs, sshd logs)
	ConfigFile string
	KeyFile    string // the user key every sshd accepts
	KnownHosts string

	base   string // name prefix of this lab's namespaces and links
	bridge string
	links  []string // root-namespace ends of the veth pairs
	netns  []string
	sshds  []*exec.Cmd
	closed sync.Once
	err    error
}

var labSeq atomic.Int32

// Hosts returns the server and the clients.
func (l *Lab) Hosts() []Host { return append([]Host{l.Server}, l.Clients...) }

// Start builds a lab: it removes stale labs of dead processes, picks a free /24 of 10.213.0.0/16
// (10.213.47.0/24 unless another live lab holds it), creates a bridge with the /24's .1, one
// namespace per host joined to it by a veth pair, keys, configs and an sshd per host, and waits
// until every sshd accepts connections. On error everything made so far is removed.
func Start(o Options) (*Lab, error) {
	if err := checkCapabilities(); err != nil {
		return nil, err
	}
	for _, tool := range []string{"ip", "ssh-keygen", SSHD} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("netnstest: %s not found (packages iproute2, openssh-client, openssh-server; scripts/setup.sh installs them): %w", tool, err)
		}
	}
	if o.Clients <= 0 {
		o.Clients = 2
	}
	if o.Clients > 8 {
		return nil, fmt.Errorf("netnstest: at most 8 clients, asked for %d", o.Clients)
	}
	seq := labSeq.Add(1)
	if seq > 26 {
		return nil, errors.New("netnstest: at most 26 labs per process")
	}
	l := &Lab{base: fmt.Sprintf("%s%d%c", Prefix, os.Getpid(), 'a'+seq-1)}
	l.bridge = l.base + "br"
	err := l.build(o)
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("netnstest: %w", err)
	}
	return l, nil
}

func (l *Lab) build(o Options) error {
	unlock, err := lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := cleanStale(); err != nil {
		return fmt.Errorf("removing stale labs: %w", err)
	}
	octet, err := freeSubnet()
	if err != nil {
		return err
	}
	prefix := fmt.Sprintf("10.213.%d.", octet)
	l.Subnet, l.Gateway, l.Unused = prefix+"0/24", prefix+"1", prefix+"99"
	l.Server = Host{Role: "server", Netns: l.base + "-server", Addr: prefix + "10"}
	for i := 1; i <= o.Clients; i++ {
		l.Clients = append(l.Clients, Host{Role: fmt.Sprintf("client%d", i),
			Netns: fmt.Sprintf("%s-client%d", l.base, i), Addr: fmt.Sprintf("%s%d", prefix, 20+i)})
	}
	if err := run("ip", "link", "add", l.bridge, "type", "bridge"); err != nil {
		return err
	}
	l.links = append(l.links, l.bridge)
	if err := runAll(
		[]string{"ip", "link", "set", l.bridge, "addrgenmode", "none"},
		[]string{"ip", "addr", "add", l.Gateway + "/24", "dev", l.bridge},
		[]string{"ip", "link", "set", l.bridge, "up"},
	); err != nil {
		return err
	}
	unlock() // the /24 is on the bridge now: a concurrent lab sees it taken

	l.Server.Spec = "root@" + l.Server.Addr
	for i := range l.Clients {
		l.Clients[i].Spec = "root@" + l.Clients[i].Addr
	}
	for i, h := range l.Hosts() {
		if err := l.addHost(i, h); err != nil {
			return err
		}
	}
	if l.Dir, err = os.MkdirTemp("", l.base+"-"); err != nil {
		return err
	}
	if err := l.writeKeysAndConfigs(); err != nil {
		return err
	}
	// sshd's privilege separation directory; the package's tmpfiles.d entry makes it at boot
	// where systemd runs. It is the system's, so it stays.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		return err
	}
	for _, h := range l.Hosts() {
		if err := l.startSSHD(h); err != nil {
			return err
		}
	}
	for i, h := range l.Hosts() {
		if err := waitListening(h.Addr+":22", l.sshds[i], filepath.Join(l.Dir, h.Role+".sshd.log")); err != nil {
			return fmt.Errorf("sshd of %s (%s): %w", h.Role, h.Addr, err)
		}
	}
	return nil
}

func (l *Lab) addHost(i int, h Host) error {
	if err := run("ip", "netns", "add", h.Netns); err != nil {
		return err
	}
	l.netns = append(l.netns, h.Netns)
	veth := fmt.Sprintf("%sv%d", l.base, i)
	if err := run("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", h.Netns); err != nil {
		return err
	}
	l.links = append(l.links, veth)
	// No default route in the namespace: its hosts reach the /24 and nothing else.
	return runAll(
		[]string{"ip", "link", "set", veth, "addrgenmode", "none"},
		[]string{"ip", "link", "set", veth, "master", l.bridge, "up"},
		[]string{"ip", "-n", h.Netns, "link", "set", "eth0", "addrgenmode", "none"},
		[]string{"ip", "-n", h.Netns, "addr", "add", h.Addr + "/24", "dev", "eth0"},
		[]string{"ip", "-n", h.Netns, "link", "set", "eth0", "up"},
		[]string{"ip", "-n", h.Netns, "link", "set", "lo", "up"},
	)
}

func (l *Lab) writeKeysAndConfigs() error {
	l.KeyFile = filepath.Join(l.Dir, "id_ed25519")
	if err := keygen(l.KeyFile, "bindrace-test-user"); err != nil {
		return err
	}
	pub, err := os.ReadFile(l.KeyFile + ".pub")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(l.Dir, "authorized_keys"), pub, 0o600); err != nil {
		return err
	}
	var known bytes.Buffer
	for _, h := range l.Hosts() {
		key := filepath.Join(l.Dir, h.Role+".hostkey")
		if err := keygen(key, "bindrace-test-"+h.Role); err != nil {
			return err
		}
		hpub, err := os.ReadFile(key + ".pub")
		if err != nil {
			return err
		}
		fields := strings.Fields(string(hpub))
		if len(fields) < 2 {
			return fmt.Errorf("%s.pub: unexpected content %q", key, hpub)
		}
		fmt.Fprintf(&known, "%s %s %s\n", h.Addr, fields[0], fields[1])
		command, err := writeCommand(l.Dir, h)
		if err != nil {
			return err
		}
		cfg := fmt.Sprintf(`# sshd of lab host %s (netnstest)
ListenAddress %s:22
HostKey %s
PidFile none
AuthorizedKeysFile %s
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
PrintLastLog no
AcceptEnv none
X11Forwarding no
AllowTcpForwarding no
ClientAliveInterval 2
ClientAliveCountMax 3
MaxStartups 64:30:128
LogLevel VERBOSE
Subsystem sftp internal-sftp
ForceCommand exec %s
`, h.Role, h.Addr, key, filepath.Join(l.Dir, "authorized_keys"), command)
		if err := os.WriteFile(filepath.Join(l.Dir, h.Role+".sshd_config"), []byte(cfg), 0o600); err != nil {
			return err
		}
	}
	l.KnownHosts = filepath.Join(l.Dir, "known_hosts")
	if err := os.WriteFile(l.KnownHosts, known.Bytes(), 0o600); err != nil {
		return err
	}
	cfg, err := l.WriteConfig("ssh_config", l.KeyFile)
	l.ConfigFile = cfg
	return err
}

// WriteConfig writes another ssh config file for the lab's hosts into the lab's directory, with
// identity as the key offered; a test of a refused key passes one the sshds do not accept.
func (l *Lab) WriteConfig(name, identity string) (string, error) {
	pattern := strings.TrimSuffix(l.Subnet, "0/24") + "*"
	cfg := fmt.Sprintf(`# ssh client config for the netnstest lab %s
Host %s
  User root
  IdentityFile %s
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  UpdateHostKeys no
  CheckHostIP no
  PasswordAuthentication no
  KbdInteractiveAuthentication no
  # The quickest key exchange: a test makes many short connections on a small machine.
  KexAlgorithms curve25519-sha256
`, l.Subnet, pattern, identity, l.KnownHosts)
	path := filepath.Join(l.Dir, name)
	return path, os.WriteFile(path, []byte(cfg), 0o600)
}

// NewKey makes a user key that no sshd of the lab accepts and returns its private key file.
func (l *Lab) NewKey(name string) (string, error) {
	path := filepath.Join(l.Dir, name)
	return path, keygen(path, "bindrace-test-"+name)
}

// RefusedConfig writes an ssh config file for the lab's hosts that offers a new key, name, which
// no sshd of the lab accepts: for tests of a refused key.
func (l *Lab) RefusedConfig(name string) (string, error) {
	key, err := l.NewKey(name)
	if err != nil {
		return "", err
	}
	return l.WriteConfig(name+".ssh_config", key)
}

// startSSHD runs h's sshd in h's network namespace only (nsenter, not `ip netns exec`, which
// also gives it a mount namespace with a /sys of its own and no cgroups): what it starts sees
// this machine's mounts, as a process on a real host sees its own, so a server capped through
// the cpu cgroup (T@cpuNN) runs on a lab host.
func (l *Lab) startSSHD(h Host) error {
	cmd := exec.Command("nsenter", "--net=/run/netns/"+h.Netns, SSHD, "-D",
		"-f", filepath.Join(l.Dir, h.Role+".sshd_config"),
		"-E", filepath.Join(l.Dir, h.Role+".sshd.log"))
	// Own group, and SIGKILL should the test process die: an sshd never outlives its test.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting sshd in %s: %w", h.Netns, err)
	}
	l.sshds = append(l.sshds, cmd)
	return nil
}

// Exec runs argv inside h's namespace on this machine (not over ssh) and returns its output.
func (l *Lab) Exec(h Host, argv ...string) ([]byte, error) {
	out, err := exec.Command("ip", append([]string{"netns", "exec", h.Netns}, argv...)...).CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("in %s: %s: %w: %s", h.Netns, strings.Join(argv, " "), err, bytes.TrimSpace(out))
	}
	return out, nil
}

// SetLink takes h's network link down or up: down, the host is cut off as by a lost connection.
func (l *Lab) SetLink(h Host, up bool) error {
	state := "down"
	if up {
		state = "up"
	}
	return run("ip", "-n", h.Netns, "link", "set", "eth0", state)
}

// Close stops every process in the lab's namespaces (its sshds and anything started over
// them), deletes the namespaces, the bridge and the veth pairs, and the temporary directory.
// It is idempotent and returns what could not be removed.
func (l *Lab) Close() error {
	l.closed.Do(func() {
		var errs []error
		for _, cmd := range l.sshds {
			cmd.Process.Signal(syscall.SIGTERM)
		}
		for _, cmd := range l.sshds {
			waitOrKill(cmd, 2*time.Second)
		}
		for _, ns := range l.netns {
			errs = append(errs, removeNetns(ns))
		}
		for _, link := range l.links {
			errs = append(errs, deleteLink(link))
		}
		if l.Dir != "" {
			errs = append(errs, os.RemoveAll(l.Dir))
		}
		l.err = errors.Join(errs...)
	})
	return l.err
}

// removeNetns kills every process inside ns, waits until they are gone, and deletes ns.
func removeNetns(ns string) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids, err := netnsPids(ns)
		if err != nil {
			return err
		}
		if len(pids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("namespace %s: processes %v survive SIGKILL", ns, pids)
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return run("ip", "netns", "del", ns)
}

// netnsPids lists the live (not zombie) processes in ns.
func netnsPids(ns string) ([]int, error) {
	out, err := exec.Command("ip", "netns", "pids", ns).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("ip netns pids %s: %w: %s", ns, err, bytes.TrimSpace(out))
	}
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		pid, err := strconv.Atoi(f)
		if err == nil && !zombie(pid) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// zombie reports whether pid has exited and waits to be reaped (or is gone already).
func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X'
}

func waitOrKill(cmd *exec.Cmd, grace time.Duration) {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		cmd.Process.Kill()
		<-done
	}
}

// waitListening waits until addr accepts TCP connections, failing early if sshd exits.
func waitListening(addr string, sshd *exec.Cmd, logFile string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		if zombie(sshd.Process.Pid) { // our child: it stays a zombie until Close reaps it
			log, _ := os.ReadFile(logFile)
			return fmt.Errorf("sshd exited: %s", bytes.TrimSpace(log))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not listening after 10s: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func keygen(path, comment string) error {
	return run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path)
}

func run(argv ...string) error {
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

func runAll(cmds ...[]string) error {
	for _, argv := range cmds {
		if err := run(argv...); err != nil {
			return err
		}
	}
	return nil
}

// deleteLink deletes a link of the lab's. A veth's end here goes with its namespace, but in
// the kernel's own time (namespaces are torn down by a worker after "ip netns del" returns), so
// it may vanish between a look and the delete: gone is what was wanted, and not an error.
func deleteLink(name string) error {
	if err := run("ip", "link", "del", name); err != nil && linkExists(name) {
		return err
	}
	return nil
}

func linkExists(name string) bool {
	_, err := net.InterfaceByName(name)
	return err == nil
}

// freeSubnet picks the third octet of a 10.213.X.0/24 that no interface of this namespace has
// an address in: 47 first, so a single run always uses 10.213.47.0/24.
func freeSubnet() (int, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return 0, err
	}
	taken := map[int]bool{}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if ip4 := n.IP.To4(); ip4 != nil && ip4[0] == 10 && ip4[1] == 213 {
				taken[int(ip4[2])] = true
			}
		}
	}
	for octet := 47; octet < 47+64; octet++ {
		if !taken[octet] {
			return octet, nil
		}
	}
	return 0, errors.New("no free /24 in 10.213.47.0-10.213.110.0")
}

// lock serialises lab set-up between processes (the stale clean-up and the choice of a /24)
// with an abstract unix socket: only one process can bind the name, the kernel releases it when
// the process dies, and it leaves no file behind.
func lock() (func(), error) {
	deadline := time.Now().Add(time.Minute)
	for {
		ln, err := net.Listen("unix", "@"+Prefix+"-netnstest-lock")
		if err == nil {
			var once sync.Once
			return func() { once.Do(func() { ln.Close() }) }, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) || time.Now().After(deadline) {
			return nil, fmt.Errorf("lab set-up lock: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// CleanStale removes what labs of processes that no longer run left behind (after a crash or
// a test binary killed on timeout): processes in their namespaces, the namespaces, bridges,
// veth pairs and temporary directories. Labs of live processes are left alone.
func CleanStale() error {
	unlock, err := lock()
	if err != nil {
		return err
	}
	defer unlock()
	return cleanStale()
}

func cleanStale() error {
	var errs []error
	out, err := exec.Command("ip", "netns", "list").CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip netns list: %w: %s", err, bytes.TrimSpace(out))
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 && stale(f[0]) {
			errs = append(errs, removeNetns(f[0]))
		}
	}
	ifaces, err := net.Interfaces()
	if err != nil {
		return err
	}
	for _, ifc := range ifaces {
		if !stale(ifc.Name) {
			continue
		}
		errs = append(errs, deleteLink(ifc.Name))
	}
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), Prefix+"*"))
	for _, d := range dirs {
		if stale(filepath.Base(d)) {
			errs = append(errs, os.RemoveAll(d))
		}
	}
	return errors.Join(errs...)
}

// stale reports whether name is a lab's ("bdrt<pid>...") and that pid no longer runs.
func stale(name string) bool {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return false
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	pid, err := strconv.Atoi(rest[:n])
	if err != nil || n == len(rest) {
		return false
	}
	if pid == os.Getpid() {
		return false
	}
	_, err = os.Stat(fmt.Sprintf("/proc/%d", pid))
	return errors.Is(err, os.ErrNotExist)
}

// checkCapabilities reads the effective capability set: creating namespaces needs
// CAP_SYS_ADMIN (ip netns add mounts) and CAP_NET_ADMIN (links, addresses).
func checkCapabilities() error {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoCapability, err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		hex, ok := strings.CutPrefix(line, "CapEff:")
		if !ok {
			continue
		}
		caps, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		if err != nil {
			return fmt.Errorf("%w: CapEff %q", ErrNoCapability, hex)
		}
		const capNetAdmin, capSysAdmin = 12, 21
		var missing []string
		if caps&(1<<capNetAdmin) == 0 {
			missing = append(missing, "CAP_NET_ADMIN")
		}
		if caps&(1<<capSysAdmin) == 0 {
			missing = append(missing, "CAP_SYS_ADMIN")
		}
		if len(missing) > 0 {
			return fmt.Errorf("%w: this process lacks %s", ErrNoCapability, strings.Join(missing, " and "))
		}
		return nil
	}
	return fmt.Errorf("%w: no CapEff line in /proc/self/status", ErrNoCapability)
}
