package db

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bindrace/bindrace/harness/internal/child"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/procfs"
)

// ClusterOptions shape the private PostgreSQL cluster the harness starts.
type ClusterOptions struct {
	// CacheDir holds the cluster, one data directory per major version (<CacheDir>/15/data),
	// created by initdb on first use and reused after. "": <repo root>/build/pg, or a directory
	// under /var/tmp when the server's OS user cannot reach the checkout.
	CacheDir string
	// BinDir holds postgres and initdb. "": the newest /usr/lib/postgresql/<major>/bin
	// (Debian's layout), else the directory of postgres on PATH.
	BinDir string
	// User is the OS user that runs initdb and postgres when the harness runs as root (both
	// refuse to run as root). "": postgres, which Debian's package creates. Ignored when not
	// root: then the harness's own user runs them.
	User string
	// StartTimeout bounds the wait for the server to accept connections (not initdb). 0: 60 s.
	StartTimeout time.Duration
	// Log receives the server's log (its stderr) when set; the last lines are kept anyway for
	// error messages.
	Log io.Writer
}

// ErrNoPostgres: the PostgreSQL server binaries are not installed.
var ErrNoPostgres = errors.New("PostgreSQL server binaries (postgres, initdb) not found; scripts/setup.sh installs them (Debian's postgresql package)")

// Superuser is the database role initdb creates; the harness connects as it.
const Superuser = "bindrace"

const (
	defaultStartTimeout = 60 * time.Second
	// stopGrace bounds a fast shutdown, which ends with a checkpoint of every dirty buffer.
	stopGrace = 30 * time.Second
	pollEvery = 25 * time.Millisecond
)

// Cluster is a running private PostgreSQL server.
type Cluster struct {
	Pid       int    // the postmaster
	Port      int    // TCP port on 127.0.0.1
	DataDir   string // PGDATA
	SocketDir string // the Unix socket's directory, owned by the server's user, removed by Stop
	Version   string // e.g. "15.18"
	// Startup is the time from spawning the postmaster to its first accepted connection.
	Startup time.Duration

	password string
	cmd      *exec.Cmd
	exited   chan struct{}
	waitErr  error // set before exited is closed
	log      *child.Tail
	stop     sync.Once
	stopErr  error
}

// runAs is who runs the server: nil credential means the harness's own user.
type runAs struct {
	cred *syscall.Credential
	uid  uint32
	gids []uint32
	name string
}

// StartCluster initialises the cluster's data directory if it is new, starts postgres in its
// own process group listening on 127.0.0.1 (a free port) and a private Unix socket directory,
// and waits until it accepts connections. ctx covers the cluster's whole life, like
// exec.CommandContext: cancelling it stops the cluster. Call Stop when done; it is safe to call
// after a cancellation and waits for the shutdown to finish.
func StartCluster(ctx context.Context, o ClusterOptions) (*Cluster, error) {
	bin, err := findBinDir(o.BinDir)
	if err != nil {
		return nil, err
	}
	version, major, err := serverVersion(bin)
	if err != nil {
		return nil, err
	}
	who, err := serverUser(o.User)
	if err != nil {
		return nil, err
	}
	cache := o.CacheDir
	if cache == "" {
		if cache, err = defaultCacheDir(who.uid, who.gids); err != nil {
			return nil, err
		}
	}
	if cache, err = filepath.Abs(cache); err != nil {
		return nil, err
	}
	if !reachable(cache, who.uid, who.gids) {
		return nil, fmt.Errorf("postgres: OS user %s cannot reach the cache directory %s (a parent is not searchable by it); choose another ClusterOptions.CacheDir", who.name, cache)
	}
	dataDir := filepath.Join(cache, major, "data")
	if err := initDataDir(ctx, bin, dataDir, who); err != nil {
		return nil, err
	}
	timeout := o.StartTimeout
	if timeout == 0 {
		timeout = defaultStartTimeout
	}
	// A port picked here is free only until someone else binds it; when postgres then fails
	// to bind it, a fresh port is tried.
	for attempt := 1; ; attempt++ {
		c, err := startServer(ctx, o, bin, dataDir, version, who, timeout)
		if err == nil || !errors.Is(err, errPortTaken) || attempt == 3 {
			return c, err
		}
	}
}

var errPortTaken = errors.New("port taken by another process")

// URL is a connection URL for database on this cluster, over TCP on 127.0.0.1 with the
// superuser's password (set afresh at every start, kept only in memory).
func (c *Cluster) URL(database string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(Superuser, c.password),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(c.Port)),
		Path:     "/" + database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Exited is closed when the postmaster has died, for whatever reason.
func (c *Cluster) Exited() <-chan struct{} { return c.exited }

// Usage is the CPU and memory of the postmaster and all its children together, from /proc.
func (c *Cluster) Usage() (Usage, error) {
	u, err := treeUsage(c.Pid)
	if err != nil {
		return Usage{}, fmt.Errorf("postgres (pid %d): %w", c.Pid, err)
	}
	return u, nil
}

// Processes lists the pids of the postmaster (first) and its children.
func (c *Cluster) Processes() ([]int, error) {
	tree, err := procfs.Tree(c.Pid)
	if err != nil {
		return nil, fmt.Errorf("postgres (pid %d): %w", c.Pid, err)
	}
	pids := make([]int, len(tree))
	for i, p := range tree {
		pids[i] = p.Pid
	}
	return pids, nil
}

// Stop shuts the cluster down: SIGINT (PostgreSQL's fast shutdown: disconnect clients, write
// a checkpoint, exit), up to 30 s, then SIGKILL to the postmaster's group and to every child
// it had, and waits until none of them runs. It removes the socket directory and keeps the
// data directory. It is idempotent and returns an error when the server had died before, did
// not shut down cleanly, or left a process it could not kill.
func (c *Cluster) Stop() error {
	c.stop.Do(func() {
		defer os.RemoveAll(c.SocketDir)
		tree, _ := procfs.Tree(c.Pid) // children to reap if the postmaster cannot
		var errs []error
		select {
		case <-c.exited:
			errs = append(errs, fmt.Errorf("postgres (pid %d) had already exited: %v%s", c.Pid, c.waitErr, c.log.LastLines(15)))
		default:
			syscall.Kill(c.Pid, syscall.SIGINT)
			select {
			case <-c.exited:
				if c.waitErr != nil {
					errs = append(errs, fmt.Errorf("postgres (pid %d) fast shutdown: %v%s", c.Pid, c.waitErr, c.log.LastLines(15)))
				}
			case <-time.After(stopGrace):
				syscall.Kill(-c.Pid, syscall.SIGKILL)
				<-c.exited
				errs = append(errs, fmt.Errorf("postgres (pid %d) did not finish a fast shutdown in %s and was killed%s", c.Pid, stopGrace, c.log.LastLines(15)))
			}
		}
		// After a clean shutdown the postmaster has waited for all its children; after a crash
		// or a kill they notice its death and exit by themselves, and are killed if they linger.
		if len(tree) > 1 {
			if err := killAll(tree[1:], 10*time.Second); err != nil {
				errs = append(errs, fmt.Errorf("postgres (pid %d): %w", c.Pid, err))
			}
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}

// findBinDir locates postgres and initdb.
func findBinDir(dir string) (string, error) {
	if dir != "" {
		if hasServerBinaries(dir) {
			return dir, nil
		}
		return "", fmt.Errorf("%w (looked in %s)", ErrNoPostgres, dir)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// Newest major first: "15" > "9.6" numerically, not as strings.
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(a)), 64)
		vb, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(b)), 64)
		switch {
		case va > vb:
			return -1
		case va < vb:
			return 1
		}
		return 0
	})
	for _, d := range dirs {
		if hasServerBinaries(d) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("postgres"); err == nil && hasServerBinaries(filepath.Dir(p)) {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("%w (looked in /usr/lib/postgresql/*/bin and PATH)", ErrNoPostgres)
}

func hasServerBinaries(dir string) bool {
	for _, name := range []string{"postgres", "initdb"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// serverVersion runs `postgres --version` (allowed as root) and returns e.g. "15.18", "15".
func serverVersion(bin string) (version, major string, err error) {
	out, err := exec.Command(filepath.Join(bin, "postgres"), "--version").Output()
	if err != nil {
		return "", "", fmt.Errorf("%s/postgres --version: %w", bin, err)
	}
	// "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
	f := strings.Fields(string(out))
	if len(f) < 3 {
		return "", "", fmt.Errorf("%s/postgres --version: unexpected %q", bin, out)
	}
	version = f[2]
	major, _, _ = strings.Cut(version, ".")
	if _, err := strconv.Atoi(major); err != nil {
		return "", "", fmt.Errorf("%s/postgres --version: unexpected %q", bin, out)
	}
	return version, major, nil
}

// serverUser resolves who runs initdb and postgres.
func serverUser(name string) (runAs, error) {
	if os.Geteuid() != 0 {
		me, err := user.Current()
		if err != nil {
			return runAs{}, err
		}
		return runAs{uid: uint32(os.Geteuid()), gids: groupIDs(me), name: me.Username}, nil
	}
	if name == "" {
		name = "postgres"
	}
	u, err := user.Lookup(name)
	if err != nil {
		return runAs{}, fmt.Errorf("postgres refuses to run as root and needs an OS user to run as: %w; scripts/setup.sh installs Debian's postgresql package, which creates the user postgres", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return runAs{}, fmt.Errorf("user %s: non-numeric uid %q or gid %q", name, u.Uid, u.Gid)
	}
	if uid == 0 {
		return runAs{}, fmt.Errorf("user %s is root; postgres refuses to run as root", name)
	}
	gids := groupIDs(u)
	return runAs{
		cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: gids},
		uid:  uint32(uid), gids: gids, name: name,
	}, nil
}

func groupIDs(u *user.User) []uint32 {
	ids, _ := u.GroupIds()
	var out []uint32
	for _, s := range append(ids, u.Gid) {
		if g, err := strconv.ParseUint(s, 10, 32); err == nil && !containsID(out, uint32(g)) {
			out = append(out, uint32(g))
		}
	}
	return out
}

// chownTo gives path to the server's user when the harness runs as root.
func (w runAs) chownTo(path string) error {
	if w.cred == nil {
		return nil
	}
	return os.Chown(path, int(w.cred.Uid), int(w.cred.Gid))
}

// procAttr: own process group (Stop and cancellation signal it whole), SIGKILL if the thread
// that forked it dies (a safety net when the harness itself is killed), and the server's user.
func (w runAs) procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: w.cred}
}

// serverEnv is the environment of initdb and postgres: the C locale and PATH, nothing of the
// harness's PG* variables.
func serverEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C", "LANG=C"}
}

// initDataDir runs initdb once: into <data>.init, renamed to <data> when it succeeded, so an
// interrupted initdb never leaves a data directory that looks usable.
func initDataDir(ctx context.Context, bin, dataDir string, who runAs) error {
	if _, err := os.Stat(filepath.Join(dataDir, "PG_VERSION")); err == nil {
		return nil
	}
	parent := filepath.Dir(dataDir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("postgres cache: %w", err)
	}
	tmp := dataDir + ".init"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("postgres cache: %w", err)
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return fmt.Errorf("postgres cache: %w", err)
	}
	if err := who.chownTo(tmp); err != nil {
		return fmt.Errorf("postgres cache: %w", err)
	}
	out := &child.Tail{Max: 8 << 10}
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", tmp, "-U", Superuser,
		"-E", "UTF8", "--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256")
	cmd.SysProcAttr = who.procAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Env = serverEnv()
	cmd.Dir = parent // a working directory the server's user may enter
	cmd.Stdout, cmd.Stderr = out, out
	err := child.Start(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("initdb %s failed: %w (scripts/setup.sh installs PostgreSQL)%s", dataDir, err, out.LastLines(15))
	}
	if err := os.Rename(tmp, dataDir); err != nil {
		return fmt.Errorf("postgres cache: %w", err)
	}
	return nil
}

func startServer(ctx context.Context, o ClusterOptions, bin, dataDir, version string, who runAs, timeout time.Duration) (*Cluster, error) {
	port, err := pickPort()
	if err != nil {
		return nil, fmt.Errorf("postgres: picking a free port: %w", err)
	}
	sockDir, err := os.MkdirTemp("", "bindrace-pg-")
	if err != nil {
		return nil, fmt.Errorf("postgres: socket directory: %w", err)
	}
	if err := who.chownTo(sockDir); err != nil {
		os.RemoveAll(sockDir)
		return nil, fmt.Errorf("postgres: socket directory: %w", err)
	}
	log := &child.Tail{Max: 16 << 10}
	var w io.Writer = log
	if o.Log != nil {
		w = &child.Locked{W: io.MultiWriter(log, o.Log)}
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", dataDir, "-p", strconv.Itoa(port),
		"-k", sockDir, "-c", "listen_addresses=127.0.0.1")
	cmd.SysProcAttr = who.procAttr()
	cmd.Env = serverEnv()
	cmd.Dir = filepath.Dir(dataDir)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.WaitDelay = time.Second // a child holding the pipes must not hang Wait

	spawned := time.Now()
	if err := child.Start(cmd); err != nil {
		os.RemoveAll(sockDir)
		return nil, fmt.Errorf("postgres: starting %s: %w", cmd.Path, err)
	}
	c := &Cluster{Pid: cmd.Process.Pid, Port: port, DataDir: dataDir, SocketDir: sockDir,
		Version: version, cmd: cmd, exited: make(chan struct{}), log: log}
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	go func() {
		select {
		case <-ctx.Done():
			c.Stop()
		case <-c.exited:
		}
	}()
	if err := c.waitReady(ctx, timeout); err != nil {
		c.Stop()
		if strings.Contains(log.String(), "could not bind IPv4 address") {
			return nil, fmt.Errorf("%w: postgres on port %d: %v", errPortTaken, port, err)
		}
		return nil, fmt.Errorf("postgres did not start: %w (scripts/setup.sh installs PostgreSQL; command: %s)%s",
			err, strings.Join(cmd.Args, " "), log.LastLines(15))
	}
	c.Startup = time.Since(spawned)
	return c, nil
}

// waitReady connects over the Unix socket (trust authentication: only the server's user and
// root may enter its directory) until the server accepts, sets a fresh random password for
// the superuser, and checks that TCP with that password works too.
func (c *Cluster) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	cfg, err := pgconn.ParseConfig("user=" + Superuser + " dbname=postgres sslmode=disable")
	if err != nil {
		return err
	}
	cfg.Host, cfg.Port = c.SocketDir, uint16(c.Port)
	var last error
	for {
		select {
		case <-c.exited:
			return fmt.Errorf("it exited during start-up (%v)", c.waitErr)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no connection within %s (last: %v)", timeout, last)
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgconn.ConnectConfig(cctx, cfg)
		cancel()
		if err == nil {
			err = c.setPassword(ctx, conn)
			conn.Close(context.Background())
			if err != nil {
				return err
			}
			return c.checkTCP(ctx)
		}
		last = err
		time.Sleep(pollEvery)
	}
}

func (c *Cluster) setPassword(ctx context.Context, conn *pgconn.PgConn) error {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	c.password = hex.EncodeToString(b[:])
	// Hex is safe inside a literal. password_encryption is scram-sha-256 by default, so the
	// server stores a salted hash.
	_, err := conn.Exec(ctx, "ALTER ROLE "+Superuser+" PASSWORD '"+c.password+"'").ReadAll()
	if err != nil {
		return fmt.Errorf("setting the superuser's password: %w", err)
	}
	return nil
}

func (c *Cluster) checkTCP(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(cctx, c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("TCP connection to 127.0.0.1:%d: %w", c.Port, err)
	}
	return conn.Close(context.Background())
}

var pickPort = freePort // a test hands out a taken port through it

// freePort asks the kernel for a loopback port nobody listens on.
func freePort() (int, error) { return machine.FreePort("127.0.0.1") }
