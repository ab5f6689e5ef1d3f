package remote

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Facts describe a host for the environment manifest and for the checks before a race.
type Facts struct {
	Host     Host
	CPUs     int     // online CPUs (nproc)
	CPUModel string  // /proc/cpuinfo's first "model name", "" when it has none
	Kernel   string  // uname -r
	Arch     string  // uname -m
	LoadAvg1 float64 // one-minute load average
	Node     string  // `node --version` ("v20.20.2"); "" when node is not found
}

// NodeMajor is the major version of Node, 0 when node is missing.
func (f Facts) NodeMajor() int {
	major, _, _ := strings.Cut(strings.TrimPrefix(f.Node, "v"), ".")
	n, _ := strconv.Atoi(major)
	return n
}

const factsScript = `
echo "cpus=$(nproc)"
echo "model=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)"
echo "kernel=$(uname -r)"
echo "arch=$(uname -m)"
echo "load=$(cut -d' ' -f1 /proc/loadavg)"
if command -v @NODE@ >/dev/null 2>&1; then echo "node=$(@NODE@ --version 2>/dev/null)"; fi
`

// Facts gathers h's CPU count and model, kernel, architecture, load and Node version in one
// command. Node is Options.Node looked up on the host's PATH (with Options.PathPrepend).
func (r *Runner) Facts(ctx context.Context, h Host) (Facts, error) {
	f := Facts{Host: h}
	out, err := r.run(ctx, h, "read host facts", fill(factsScript, "NODE", Quote(r.o.Node)), nil)
	if err != nil {
		return f, err
	}
	for _, line := range strings.Split(string(out), "\n") {
		key, val, _ := strings.Cut(line, "=")
		val = strings.TrimSpace(val)
		switch key {
		case "cpus":
			f.CPUs, _ = strconv.Atoi(val)
		case "model":
			f.CPUModel = val
		case "kernel":
			f.Kernel = val
		case "arch":
			f.Arch = val
		case "load":
			f.LoadAvg1, _ = strconv.ParseFloat(val, 64)
		case "node":
			f.Node = val
		}
	}
	if f.CPUs <= 0 || f.Kernel == "" {
		return f, &Error{Host: h, Op: "read host facts", Kind: ErrCommand, ExitCode: -1, Detail: fmt.Sprintf("unexpected output %q", out)}
	}
	return f, nil
}

// RequireNode checks that h has Node of at least the given major version (the uws target
// needs 20); the error names the host and what was found.
func (r *Runner) RequireNode(ctx context.Context, h Host, major int) error {
	f, err := r.Facts(ctx, h)
	if err != nil {
		return err
	}
	op := fmt.Sprintf("require node >= %d", major)
	switch {
	case f.Node == "":
		return &Error{Host: h, Op: op, Kind: ErrRequirement, ExitCode: -1,
			Detail: fmt.Sprintf("%s not found on the host's PATH (set Options.Node or Options.PathPrepend)", r.o.Node)}
	case f.NodeMajor() < major:
		return &Error{Host: h, Op: op, Kind: ErrRequirement, ExitCode: -1,
			Detail: fmt.Sprintf("%s is %s, older than %d", r.o.Node, f.Node, major)}
	}
	return nil
}
