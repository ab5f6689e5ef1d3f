package remote

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Options configure how hosts are reached. The zero value uses the user's own ssh setup.
type Options struct {
	// ConfigFile is passed to ssh as -F, rsync's too (so a test or CI job brings its own keys,
	// known_hosts and host settings without touching ~/.ssh); "" uses the user's ~/.ssh/config.
	ConfigFile string
	// ConnectTimeout bounds each connection attempt (ssh's ConnectTimeout); 0 means 5 s.
	ConnectTimeout time.Duration
	// AliveInterval is ssh's ServerAliveInterval: a connection that answers none of 3 probes is
	// reported lost. 0 means 5 s.
	AliveInterval time.Duration
	// CommandTimeout bounds the short commands of methods that take no context (Stop, Usage,
	// Close); 0 means 30 s.
	CommandTimeout time.Duration
	// SSH and Rsync are the client binaries; "" means "ssh" and "rsync" from PATH. The hosts
	// need rsync too (on their PATH).
	SSH, Rsync string
	// Node is the node command on the hosts (name or path); "" means "node".
	Node string
	// PathPrepend lists directories on the hosts put in front of PATH for every command run
	// there (a node installed under the user's home directory, say).
	PathPrepend []string
}

// Runner runs commands on hosts with the system ssh and copies files with rsync over it.
type Runner struct {
	o Options
}

// NewRunner checks the options: the config file must exist and ssh and rsync must be found.
func NewRunner(o Options) (*Runner, error) {
	if o.ConfigFile != "" {
		if _, err := os.Stat(o.ConfigFile); err != nil {
			return nil, fmt.Errorf("ssh config file: %w", err)
		}
	}
	o.ConnectTimeout = positiveOr(o.ConnectTimeout, 5*time.Second)
	o.AliveInterval = positiveOr(o.AliveInterval, 5*time.Second)
	o.CommandTimeout = positiveOr(o.CommandTimeout, 30*time.Second)
	o.SSH, o.Rsync, o.Node = cmp.Or(o.SSH, "ssh"), cmp.Or(o.Rsync, "rsync"), cmp.Or(o.Node, "node")
	for _, bin := range []string{o.SSH, o.Rsync} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, fmt.Errorf("%s not found (packages openssh-client, rsync): %w", bin, err)
		}
	}
	for _, d := range o.PathPrepend {
		if d == "" || strings.ContainsAny(d, ":\n") {
			return nil, fmt.Errorf("PathPrepend entry %q: empty or holds ':' or a newline", d)
		}
	}
	return &Runner{o: o}, nil
}

// positiveOr is d, or def when d is not positive: a duration option left unset.
func positiveOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// The kinds of failure an *Error carries; test them with errors.Is.
var (
	ErrUnreachable = errors.New("host unreachable")
	ErrAuth        = errors.New("permission denied (key refused)")
	ErrHostKey     = errors.New("host key unknown or changed")
	ErrLost        = errors.New("connection lost")
	ErrSSH         = errors.New("ssh failed")
	ErrCommand     = errors.New("command failed")
	ErrRequirement = errors.New("requirement not met")
)

// Error is a failure on one host: which host, what was being done, what kind of failure, and
// the tail of what ssh or the command wrote to stderr.
type Error struct {
	Host     Host
	Op       string // "run uname -r", "copy bin/bindrace", "start server-1", ...
	Kind     error  // one of the Err* kinds above, or the context's error
	ExitCode int    // the command's exit status when Kind is ErrCommand, else -1
	Detail   string // stderr tail or an explanation
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "host %s: %s: %v", e.Host, e.Op, e.Kind)
	if e.Kind == ErrCommand && e.ExitCode >= 0 {
		fmt.Fprintf(&b, " (exit status %d)", e.ExitCode)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Kind }

// sshArgs are the options every ssh invocation gets (and extra ones), then the destination.
func (r *Runner) sshArgs(h Host, extra ...string) []string {
	return append(r.sshOptions(h, extra...), "--", h.Name)
}

// sshOptions are the options of sshArgs without the destination: what rsync runs ssh with.
func (r *Runner) sshOptions(h Host, extra ...string) []string {
	args := append(r.commonArgs(), extra...)
	args = append(args, "-T", "-o", "ServerAliveInterval="+seconds(r.o.AliveInterval), "-o", "ServerAliveCountMax=3")
	if h.Port != 0 {
		args = append(args, "-p", strconv.Itoa(h.Port))
	}
	if h.User != "" {
		args = append(args, "-l", h.User)
	}
	return args
}

func (r *Runner) commonArgs() []string {
	var args []string
	if r.o.ConfigFile != "" {
		args = append(args, "-F", r.o.ConfigFile)
	}
	return append(args, "-o", "BatchMode=yes", "-o", "ConnectTimeout="+seconds(r.o.ConnectTimeout))
}

func seconds(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}

// remoteCommand wraps a POSIX sh script for the host: whatever the user's login shell is, the
// script runs under sh, with C locale and PathPrepend in front of PATH.
func (r *Runner) remoteCommand(script string) string {
	prefix := "LC_ALL=C; export LC_ALL; "
	if len(r.o.PathPrepend) > 0 {
		prefix += "PATH=" + Quote(strings.Join(r.o.PathPrepend, ":")) + ":\"$PATH\"; export PATH; "
	}
	return "sh -c " + Quote(prefix+script)
}

// Run runs a POSIX sh script on h and returns what it wrote to stdout. Cancelling ctx ends
// the local ssh; a command meant to outlive a call belongs in Session.Start instead.
func (r *Runner) Run(ctx context.Context, h Host, script string) ([]byte, error) {
	return r.run(ctx, h, "run "+abbrev(script), script, nil)
}

// RunInput is Run with stdin fed from in.
func (r *Runner) RunInput(ctx context.Context, h Host, script string, in io.Reader) ([]byte, error) {
	return r.run(ctx, h, "run "+abbrev(script), script, in)
}

func (r *Runner) run(ctx context.Context, h Host, op, script string, in io.Reader, extra ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, r.o.SSH, append(r.sshArgs(h, extra...), r.remoteCommand(script))...)
	var stdout bytes.Buffer
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &stdout, stderr, in
	err := r.exec(ctx, cmd, h, op, stderr)
	return stdout.Bytes(), err
}

// exec runs cmd (ssh or rsync) and turns a failure into an *Error for h.
func (r *Runner) exec(ctx context.Context, cmd *exec.Cmd, h Host, op string, stderr *tailBuffer) error {
	// Its own process group: a Ctrl-C at the terminal reaches the harness, which decides what
	// ends (through ctx), instead of killing every ssh at once.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return &Error{Host: h, Op: op, Kind: ctx.Err(), ExitCode: -1}
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return &Error{Host: h, Op: op, Kind: ErrSSH, ExitCode: -1, Detail: err.Error()}
	}
	return newError(h, op, ee.ExitCode(), stderr.String())
}

// newError classifies a failed ssh or rsync from its exit status and stderr. ssh exits 255 for
// its own failures and passes the remote command's status through otherwise; rsync exits 255
// when its ssh did.
func newError(h Host, op string, code int, stderr string) *Error {
	e := &Error{Host: h, Op: op, Kind: ErrCommand, ExitCode: code, Detail: lastLines(stderr, 6)}
	if code != 255 {
		return e
	}
	low := strings.ToLower(stderr)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(low, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("permission denied", "too many authentication failures", "no more authentication methods"):
		e.Kind = ErrAuth
	case has("host key verification failed", "remote host identification has changed", "no matching host key"):
		e.Kind = ErrHostKey
	case has("closed by remote host", "not responding", "broken pipe", "client_loop"):
		e.Kind = ErrLost
	case has("connection timed out", "no route to host", "connection refused", "network is unreachable",
		"could not resolve hostname", "name or service not known", "temporary failure in name resolution",
		"kex_exchange_identification", "connection closed by", "connection reset by"):
		e.Kind = ErrUnreachable
	case strings.TrimSpace(stderr) != "":
		e.Kind = ErrSSH
	default:
		return e // the remote command itself exited 255 and said nothing
	}
	e.ExitCode = -1
	return e
}

// rsync mirrors src to destPath on h (rsync -rlp --checksum --delete) over ssh run as sshArgs
// runs it (extra: the session's shared connection), making destPath's parent first, and
// returns rsync's itemized changes, one "%i %l %n" line each.
func (r *Runner) rsync(ctx context.Context, h Host, op, src, destPath string, extra ...string) ([]byte, error) {
	var rsh []string
	for _, a := range append([]string{r.o.SSH}, r.sshOptions(h, extra...)...) {
		rsh = append(rsh, "'"+strings.ReplaceAll(a, "'", "''")+"'") // rsync's own quoting of -e
	}
	args := []string{"-rlp", "--checksum", "--delete", "--out-format=%i %l %n", "-e", strings.Join(rsh, " "),
		"--rsync-path=" + r.remoteCommand(`mkdir -p "$0" && exec rsync "$@"`) + " " + Quote(path.Dir(path.Clean(destPath))),
		"--", src, h.rsyncTarget() + ":" + destPath}
	cmd := exec.CommandContext(ctx, r.o.Rsync, args...)
	var stdout bytes.Buffer
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	err := r.exec(ctx, cmd, h, op, stderr)
	var e *Error
	// The host's shell exits 127 when it has no rsync; the local rsync passes that on, or, when
	// the connection closes before the status arrives, reports a protocol error (12) with the
	// shell's "not found" in the output.
	if errors.As(err, &e) && e.Kind == ErrCommand && (e.ExitCode == 127 || strings.Contains(e.Detail, "rsync: not found") || strings.Contains(e.Detail, "rsync: command not found")) {
		e.Kind, e.ExitCode = ErrRequirement, -1
		e.Detail = "rsync is not installed there (Debian: apt-get install rsync): " + e.Detail
	}
	return stdout.Bytes(), err
}

// Quote makes s one word for a POSIX shell.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Command quotes each word of argv and joins them into one shell command line.
func Command(argv ...string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

func abbrev(script string) string {
	s := strings.Join(strings.Fields(script), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// lastLines is the last n non-empty lines of s, joined by " | ", at most 600 bytes.
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := strings.Join(lines, " | ")
	if len(out) > 600 {
		out = "..." + out[len(out)-597:]
	}
	return out
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.buf) }
