package machine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/bindrace/bindrace/harness/session"
)

// Environment gathers manifest.json's environment for a session started by command (os.Args):
// the machine, the toolchains and, from the repository (RepoRoot), the native builds' own
// manifests, the source hashes and the git commit. It never fails: anything it cannot read is
// "n/a" or empty.
func Environment(command []string) *session.Manifest {
	root, _ := RepoRoot()
	return environment(root, command)
}

// KernelRelease is the running kernel's release (uname -r), "" when it cannot be read: what a
// count of system calls depends on besides the code.
func KernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return cstr(u.Release[:])
}

// environment is Environment for the checkout at root ("": build manifests and hashes skipped).
func environment(root string, command []string) *session.Manifest {
	m := &session.Manifest{Kind: session.ManifestKind, Command: command, Started: time.Now().UTC(), CPUCount: runtime.NumCPU()}
	m.Hostname, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		m.Kernel = strings.Join([]string{cstr(u.Sysname[:]), cstr(u.Release[:]), cstr(u.Version[:]), cstr(u.Machine[:])}, " ")
	}
	m.CPUModel, m.CPUCount = cpuInfo(m.CPUCount)
	m.Governor = governor()
	m.LoadAvg = loadAvg()
	m.Throttle = throttling()
	m.GoVersion = runtime.Version()
	m.GoEnv = firstLine(run("go", "version"))
	m.Clang = firstLine(run("clang++-19", "--version"))
	m.Node = firstLine(run("node", "--version"))
	if m.Clang == "" {
		m.Clang = "n/a"
	}
	if m.Node == "" {
		m.Node = "n/a"
	}
	if m.Throttle != "n/a" && m.Throttle != "" && !strings.HasSuffix(m.Throttle, " 0") && strings.Contains(m.Throttle, "throttle") {
		m.Warnings = append(m.Warnings, "the CPU reports thermal throttling events: "+m.Throttle)
	}
	if root != "" {
		m.Builds = map[string]json.RawMessage{}
		for _, v := range []string{"release", "plain"} {
			b, err := os.ReadFile(filepath.Join(root, "build", v, "manifest.json"))
			if err == nil && json.Valid(b) {
				m.Builds[v] = json.RawMessage(b)
			}
		}
		m.SourceHashes = map[string]string{}
		for _, part := range []string{"native", "binding", "harness", "pgo", "profiles"} {
			if h, _ := SourceHash(root, part); h != "" {
				m.SourceHashes[part] = h
			}
		}
		m.GitCommit = strings.TrimSpace(runIn(root, "git", "rev-parse", "HEAD"))
		if m.GitCommit == "" {
			m.GitCommit = "n/a"
		} else {
			m.GitDirty = strings.TrimSpace(runIn(root, "git", "status", "--porcelain", "--untracked-files=no")) != ""
		}
	}
	return m
}

func cstr(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

func cpuInfo(def int) (string, int) {
	c, err := ReadCPUInfo()
	if err != nil {
		return "n/a", def
	}
	if c.Model == "" {
		c.Model = "n/a"
	}
	if c.Count == 0 {
		c.Count = def
	}
	return c.Model, c.Count
}

func governor() string {
	files, _ := filepath.Glob("/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor")
	if len(files) == 0 {
		return "n/a"
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		g := strings.TrimSpace(string(b))
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	if len(out) == 0 {
		return "n/a"
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func loadAvg() [3]float64 {
	var la [3]float64
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return la
	}
	f := strings.Fields(string(b))
	for i := 0; i < 3 && i < len(f); i++ {
		la[i], _ = strconv.ParseFloat(f[i], 64)
	}
	return la
}

// throttling sums the thermal throttle counters where the kernel exposes them.
func throttling() string {
	files, _ := filepath.Glob("/sys/devices/system/cpu/cpu*/thermal_throttle/core_throttle_count")
	if len(files) == 0 {
		return "n/a"
	}
	var total int64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		v, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		total += v
	}
	return fmt.Sprintf("core_throttle_count %d", total)
}

func run(name string, args ...string) string { return runIn("", name, args...) }

func runIn(dir, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return string(out)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}
