package targets

import (
	"fmt"
	"maps"
	"slices"
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
	ncpu := 0
	if o.CPUs != "" {
		cpus, err := machine.ParseCPUs(o.CPUs)
		if err != nil {
			return nil, nil, fmt.Errorf("target %s: %w", t.Name, err)
		}
		ncpu = len(cpus)
	}
	if t.def == nil {
		argv = shellCommand(t.Command, p, o)
	} else {
		var more []string
		if argv, more, err = t.definedCommand(p, o); err != nil {
			return nil, nil, err
		}
		env = append(env, more...)
		if ncpu > 0 && t.Runtime == RuntimeGo {
			// Match the scheduler to the pinned set rather than leave it to the runtime's guess.
			env = append(env, "GOMAXPROCS="+strconv.Itoa(ncpu))
		}
	}
	if o.CPUs != "" {
		argv = append([]string{"taskset", "-c", o.CPUs}, argv...)
	}
	return argv, env, nil
}

// definedCommand is a definition's start command and environment, with the thread count when
// one is given and, for node, the harness's runtime-figures preload.
func (t *Target) definedCommand(port string, o StartOptions) (argv, env []string, err error) {
	if t.def.Prepare.Bundle != nil {
		if _, err := t.bundle(); err != nil {
			return nil, nil, err
		}
	}
	fill := func(s string) string {
		return strings.NewReplacer("{port}", port, "{threads}", strconv.Itoa(o.Threads)).Replace(t.expand(s))
	}
	start := t.def.Start
	argv = []string{t.executable()}
	for _, a := range start.Command[1:] {
		argv = append(argv, fill(a))
	}
	env = envList(start.Env, fill)
	if o.Threads > 0 {
		for _, a := range start.Threads.Args {
			argv = append(argv, fill(a))
		}
		env = append(env, envList(start.Threads.Env, fill)...)
	}
	if t.Runtime == RuntimeNode {
		argv, env = t.withPreload(argv, env, o.nodeDir)
	}
	if t.TracesGC {
		env = append(env, "GODEBUG="+strings.Trim(start.Env["GODEBUG"]+",gctrace=1", ","))
	}
	return append(append([]string(nil), o.Wrap...), argv...), env, nil
}

// shellCommand runs a cmd: target's command line under sh, exec'd where it can be.
func shellCommand(command, port string, o StartOptions) []string {
	cmd := strings.ReplaceAll(command, "{port}", port)
	cmd = strings.ReplaceAll(cmd, "{threads}", strconv.Itoa(max(o.Threads, 1)))
	if isSimpleCommand(cmd) {
		return []string{"sh", "-c", "exec " + shellJoin(o.Wrap) + cmd}
	}
	// A compound command cannot be exec'd as a whole: the shell stays the measured pid and a
	// wrapper applies to the shell. Users who care end it with `exec server …`.
	return append(append([]string(nil), o.Wrap...), "sh", "-c", cmd)
}

// envList is vars as NAME=value, sorted so a command line reads the same every time.
func envList(vars map[string]string, fill func(string) string) []string {
	out := make([]string, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, k+"="+fill(vars[k]))
	}
	return out
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
