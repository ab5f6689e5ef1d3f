package targets

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/bindrace/bindrace/harness/internal/machine"
)

// command is the argv and extra environment that run the target on port. Every layer execs the
// next (taskset, valgrind, sh -c 'exec …'), so the spawned pid is the server's own and /proc
// figures and signals reach the server, not a wrapper.
func (t *Target) command(port int, o StartOptions) (argv, env []string, err error) {
	p := strconv.Itoa(port)
	// Every kind of server reads where to listen from here (a cmd: target may: its command
	// decides); explicit, so none inherits another address from the harness's environment.
	env = []string{"PORT=" + p, ListenEnv + "=" + o.listen()}
	if o.CPUs != "" {
		cpus, err := machine.ParseCPUs(o.CPUs)
		if err != nil {
			return nil, nil, fmt.Errorf("target %s: %w", t.Name, err)
		}
		n := len(cpus)
		if t.Kind == KindGo || t.Kind == KindBinding {
			// Match the scheduler to the pinned set rather than leave it to the runtime's guess.
			env = append(env, "GOMAXPROCS="+strconv.Itoa(n))
		}
	}
	wrap := append([]string(nil), o.Wrap...)
	switch t.Kind {
	case KindBinding:
		argv = []string{t.binary, "--port", p}
		if o.Threads > 0 {
			argv = append(argv, "--threads", strconv.Itoa(o.Threads))
		}
		if t.static {
			argv = append(argv, "--static")
		}
		if t.ownP {
			argv = append(argv, "--own-p")
		}
		if t.uring {
			// The same binary with its loops on io_uring; it refuses to start, saying why,
			// where the kernel refuses io_uring (docs/io_uring.md).
			env = append(env, "BINDRACE_LOOP=uring")
		}
		argv = append(wrap, argv...)
	case KindGo:
		argv = []string{t.binary, "--target", t.base(), "--port", p} // a capped target serves as itself
		if o.Threads > 0 {
			argv = append(argv, "--threads", strconv.Itoa(o.Threads))
		}
		argv = append(wrap, argv...)
	case KindNode:
		js, err := t.bundle()
		if err != nil {
			return nil, nil, err
		}
		node, err := exec.LookPath("node")
		if err != nil {
			return nil, nil, fmt.Errorf("target uws: node is not on PATH: run scripts/setup.sh")
		}
		// The preload reads the runtime's figures in every thread (a Worker inherits execArgv)
		// without touching the server; it does nothing unless told where to listen.
		argv = append(wrap, node, "--require", preloadPath(t.root), js)
		env = append(env, "NODE_PATH="+modulesDir(t.root))
		if o.nodeDir != "" {
			env = append(env, NodeMetricsEnv+"="+o.nodeDir)
		}
		if o.Threads > 0 {
			env = append(env, "THREADS="+strconv.Itoa(o.Threads))
		}
	case KindCommand:
		cmd := strings.ReplaceAll(t.Command, "{port}", p)
		cmd = strings.ReplaceAll(cmd, "{threads}", strconv.Itoa(max(o.Threads, 1)))
		if isSimpleCommand(cmd) {
			argv = []string{"sh", "-c", "exec " + shellJoin(wrap) + cmd}
		} else {
			// A compound command cannot be exec'd as a whole: the shell stays the measured pid
			// and a wrapper applies to the shell. Users who care end it with `exec server …`.
			argv = append(wrap, "sh", "-c", cmd)
		}
	default:
		return nil, nil, fmt.Errorf("target %s: unknown kind %q", t.Name, t.Kind)
	}
	if o.CPUs != "" {
		argv = append([]string{"taskset", "-c", o.CPUs}, argv...)
	}
	return argv, env, nil
}

// ListenEnv names the variable that tells a scenario server the address to listen on.
const ListenEnv = "BINDRACE_LISTEN_HOST"

// isSimpleCommand reports a command with no shell control operator, which "exec" can prefix.
func isSimpleCommand(cmd string) bool {
	c := strings.TrimSpace(cmd)
	return !strings.HasPrefix(c, "exec ") && !strings.ContainsAny(c, ";&|\n()")
}

// shellJoin quotes words for sh, with a trailing space when not empty.
func shellJoin(words []string) string {
	var b strings.Builder
	for _, w := range words {
		b.WriteString("'" + strings.ReplaceAll(w, "'", `'\''`) + "' ")
	}
	return b.String()
}
