package session

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Manifest is manifest.json: the environment and method of a session, so a reader can judge
// and reproduce it.
type Manifest struct {
	Command  []string  `json:"command"` // the full command line
	Started  time.Time `json:"started"`
	Hostname string    `json:"hostname"`

	Kernel    string     `json:"kernel"` // uname: sysname release version machine
	CPUModel  string     `json:"cpu_model"`
	CPUCount  int        `json:"cpu_count"`
	Governor  string     `json:"governor"`   // scaling_governor of every CPU, or "n/a"
	LoadAvg   [3]float64 `json:"load_avg"`   // when the session started: a trailing average of what ran before, for reading only
	Throttle  string     `json:"throttling"` // thermal throttle counters, or "n/a"
	GoVersion string     `json:"go_version"` // the harness's toolchain
	GoEnv     string     `json:"go_toolchain,omitempty"`
	Clang     string     `json:"clang_version"`
	Node      string     `json:"node_version"`

	// Versions of each target raced (upstream package version, Go version, ...).
	Targets map[string]map[string]string `json:"targets,omitempty"`
	// build/<variant>/manifest.json of the native builds, as written by the build.
	Builds map[string]json.RawMessage `json:"builds,omitempty"`
	// SHA-256 over the sources of each part (native, binding, harness), files sorted by path.
	SourceHashes map[string]string `json:"source_hashes,omitempty"`
	GitCommit    string            `json:"git_commit"`
	GitDirty     bool              `json:"git_dirty"`

	Method   []string `json:"method"` // the method in words, for the report
	Warnings []string `json:"warnings,omitempty"`
}

// CollectOptions say where to look.
type CollectOptions struct {
	Root    string   // repository root ("" = not found: build manifests and hashes skipped)
	Command []string // os.Args
}

// Collect gathers the environment. It never fails: anything it cannot read is "n/a" or empty.
func Collect(o CollectOptions) *Manifest {
	m := &Manifest{Command: o.Command, Started: time.Now().UTC(), CPUCount: runtime.NumCPU()}
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
	if o.Root != "" {
		m.Builds = map[string]json.RawMessage{}
		for _, v := range []string{"release", "plain"} {
			b, err := os.ReadFile(filepath.Join(o.Root, "build", v, "manifest.json"))
			if err == nil && json.Valid(b) {
				m.Builds[v] = json.RawMessage(b)
			}
		}
		m.SourceHashes = map[string]string{}
		for _, part := range []string{"native", "binding", "harness", "pgo", "profiles"} {
			if h := HashTree(filepath.Join(o.Root, part)); h != "" {
				m.SourceHashes[part] = h
			}
		}
		m.GitCommit = strings.TrimSpace(runIn(o.Root, "git", "rev-parse", "HEAD"))
		if m.GitCommit == "" {
			m.GitCommit = "n/a"
		} else {
			m.GitDirty = strings.TrimSpace(runIn(o.Root, "git", "status", "--porcelain", "--untracked-files=no")) != ""
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
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "n/a", def
	}
	defer f.Close()
	model, n := "", 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "processor":
			n++
		case "model name":
			if model == "" {
				model = strings.TrimSpace(v)
			}
		}
	}
	if model == "" {
		model = "n/a"
	}
	if n == 0 {
		n = def
	}
	return model, n
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

// HashTree hashes the regular files under dir (sorted by relative path; node_modules, dist,
// .git and build outputs skipped): SHA-256 over "path\x00len\x00content" of each. "" if dir
// does not exist.
func HashTree(dir string) string {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ""
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "dist", ".git", "build", "bin", "results":
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	h := sha256.New()
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		st, _ := f.Stat()
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), st.Size())
		io.Copy(h, f)
		f.Close()
	}
	return hex.EncodeToString(h.Sum(nil))
}
