// Package targets resolves target names to servers, starts a fresh server process per
// measurement and stops it without leaving anything behind, samples its CPU and memory, verifies
// that it serves every scenario correctly, and holds the uws target's TypeScript server (uws/).
package targets

import (
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bindrace/bindrace/harness/internal/machine"
)

// Target is a resolved target name: its definition, with the folders its placeholders name.
type Target struct {
	Name        string
	Runtime     Runtime // which runtime figures the harness can read
	LoopThreads bool    // one event-loop thread per server thread, each with a busy fraction
	// TracesGC: a Go server of the user's, whose collector the harness reads from what
	// GODEBUG=gctrace=1 makes it write (the built-in ones answer runtime/metrics instead).
	TracesGC bool
	Command  string // cmd: and reference: the shell command, "{port}" not yet substituted

	// CPUQuotaPct caps the server's CPU time at this percentage of its CPUs ("T@cpuNN"); 0: no cap.
	CPUQuotaPct int

	placed // zero for a cmd: target
}

// placed is a definition with the folders its placeholders name: what a target runs from.
type placed struct {
	def   *Definition       // nil for a cmd: target
	paths map[string]string // "{root}", "{bin}", "{dir}"
}

// Names lists the target names Resolve accepts, besides "cmd:<command with {port}>" and a
// definition file's path: the built-in ones, then those of --targets-dir; "reference" is listed
// when $BINDRACE_REFERENCE is set.
func Names() []string {
	var names []string
	for _, d := range Definitions() {
		names = append(names, d.Name)
	}
	if os.Getenv("BINDRACE_REFERENCE") != "" {
		names = append(names, "reference")
	}
	return names
}

// Resolve finds a target by name (or a definition file by its path) and checks that what it
// needs is there (a built binary, the Node modules), so a run fails before it starts rather
// than half-way.
func Resolve(name string) (*Target, error) {
	base, pct, err := splitQuota(name)
	if err != nil {
		return nil, err
	}
	if pct > 0 {
		t, err := Resolve(base)
		if err != nil {
			return nil, err
		}
		// Named for what it serves as: a definition's path capped is its name capped.
		t.Name, t.CPUQuotaPct = fmt.Sprintf("%s@cpu%d", t.Name, pct), pct
		return t, nil
	}
	if name == "reference" {
		ref := strings.TrimSpace(os.Getenv("BINDRACE_REFERENCE"))
		if ref == "" {
			return nil, fmt.Errorf("target reference: set BINDRACE_REFERENCE to a command with {port}, e.g. BINDRACE_REFERENCE='./my-server --port {port}'")
		}
		return &Target{Name: "reference", Runtime: RuntimeOther, Command: strings.TrimPrefix(ref, "cmd:")}, nil
	}
	if cmd, ok := strings.CutPrefix(name, "cmd:"); ok {
		if strings.TrimSpace(cmd) == "" {
			return nil, fmt.Errorf("target %q: empty command; write cmd:<command with {port}>", name)
		}
		return &Target{Name: name, Runtime: RuntimeOther, Command: cmd}, nil
	}
	d, ok, err := lookup(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("unknown target %q (known: %s, cmd:<command with {port}>, or a definition file's path; any of them@cpuNN caps its CPU time at NN%%)", name, strings.Join(Names(), ", "))
	}
	return fromDefinition(d)
}

// fromDefinition fills a definition's folders in and checks that what it runs from is there.
func fromDefinition(d *Definition) (*Target, error) {
	t, err := withPaths(d)
	if err != nil {
		return nil, err
	}
	return t, t.checkReady()
}

// withPaths is the target a definition describes, its placeholders' folders filled in.
func withPaths(d *Definition) (*Target, error) {
	root, err := machine.RepoRoot()
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", d.Name, err)
	}
	bin := filepath.Join(root, "bin")
	if b := os.Getenv("BINDRACE_BIN"); b != "" {
		bin = b // servers built elsewhere, e.g. a candidate from another checkout
	}
	dir := filepath.Dir(d.file)
	if d.builtin {
		dir = filepath.Join(root, builtinDir)
	}
	return &Target{Name: d.Name, Runtime: d.Runtime, LoopThreads: d.LoopThreads, TracesGC: d.Runtime == RuntimeGo && !d.builtin,
		placed: placed{def: d, paths: map[string]string{"{root}": root, "{bin}": bin, "{dir}": dir}}}, nil
}

// checkReady checks that what the target runs from is there: what its preparation produces,
// and node for a node target.
func (t *Target) checkReady() error {
	if err := t.checkPrepared(); err != nil {
		return err
	}
	if t.Runtime == RuntimeNode {
		if _, err := exec.LookPath("node"); err != nil {
			return fmt.Errorf("target %s: node is not on PATH: run scripts/setup.sh", t.Name)
		}
	}
	return nil
}

// checkPrepared says how to prepare the target when something it runs from is missing.
func (p *placed) checkPrepared() error {
	need := p.expandAll(p.def.Prepare.Produces)
	if exe, overridden := p.override(); overridden {
		cmd := p.expand(p.def.Start.Command[0])
		need = slices.DeleteFunc(need, func(f string) bool { return f == cmd })
		need = append(need, exe)
	}
	for _, f := range need {
		if _, err := os.Stat(f); err != nil {
			how := "its definition says no command prepares it"
			if c := p.def.Prepare.Command; c != "" {
				how = fmt.Sprintf("run `%s` in %s (or `bindrace target prepare %s`)", c, p.homeDir(), p.def.Name)
			}
			return fmt.Errorf("target %s: %s is missing: %s", p.def.Name, f, how)
		}
	}
	return nil
}

// expand fills in the folders a definition's string names.
func (p *placed) expand(s string) string {
	for k, v := range p.paths {
		s = strings.ReplaceAll(s, k, v)
	}
	return s
}

func (p *placed) expandAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p.expand(s)
	}
	return out
}

// override is the executable $start.override_env names, when set.
func (p *placed) override() (string, bool) {
	if e := p.def.Start.OverrideEnv; e != "" {
		if exe := os.Getenv(e); exe != "" {
			return exe, true
		}
	}
	return "", false
}

// executable is the program a server start runs (before any wrapper).
func (p *placed) executable() string {
	if exe, ok := p.override(); ok {
		return exe
	}
	return p.expand(p.def.Start.Command[0])
}

// startDir is the folder a server runs in: start.dir, or the definition's home (homeDir); ""
// (the harness's own) for a cmd: target.
func (t *Target) startDir() string {
	switch {
	case t.def == nil:
		return ""
	case t.def.Start.Dir != "":
		return t.expand(t.def.Start.Dir)
	}
	return t.homeDir()
}

// homeDir is where a definition's commands run unless it says otherwise: its own folder, or the
// checkout for a built-in target (its commands are the Makefile's and bin/'s).
func (p *placed) homeDir() string {
	if p.def.builtin {
		return p.paths["{root}"]
	}
	return p.paths["{dir}"]
}

// Definition is where the target came from: its file, or "" for a cmd: target.
func (t *Target) Definition() string {
	if t.def == nil {
		return ""
	}
	return t.def.file
}

// Artifact is what the target ships: the definition's artifact, its bundle, a node server's
// script, or the command's executable.
func (t *Target) Artifact() (string, int64, error) {
	var path string
	switch {
	case t.def == nil:
		fields := strings.Fields(t.Command)
		if len(fields) == 0 {
			return "", 0, fmt.Errorf("target %s: empty command", t.Name)
		}
		p, err := exec.LookPath(fields[0])
		if err != nil {
			return "", 0, fmt.Errorf("target %s: artefact: %w", t.Name, err)
		}
		path = p
	case t.def.Prepare.Bundle != nil:
		// The bundle only: the native addon is the upstream's prebuilt, identical for every
		// uWebSockets.js app, and node itself is not counted either, as a Go binary's libc isn't.
		p, err := t.bundle()
		if err != nil {
			return "", 0, err
		}
		path = p
	case t.def.Artifact != "":
		path = t.expand(t.def.Artifact)
	case t.Runtime == RuntimeNode:
		path = t.nodeScript()
	default:
		p, err := exec.LookPath(t.executable())
		if err != nil {
			return "", 0, fmt.Errorf("target %s: artefact: %w", t.Name, err)
		}
		path = p
	}
	if !filepath.IsAbs(path) && t.def != nil {
		path = filepath.Join(t.startDir(), path)
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", 0, fmt.Errorf("target %s: artefact: %w", t.Name, err)
	}
	return path, st.Size(), nil
}

// nodeScript is the first argument of a node command that is not a flag: the server's script.
func (p *placed) nodeScript() string {
	for _, a := range p.expandAll(p.def.Start.Command[1:]) {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return p.executable()
}

// Versions reports what decides the target's behaviour: toolchain, library and upstream versions
// and, for binding targets, the native build manifest's fields (prefixed "manifest.").
func (t *Target) Versions() map[string]string {
	v := map[string]string{"target": t.Name}
	if t.def == nil {
		v["command"] = t.Command
		return v
	}
	if !t.def.builtin {
		// The user's file may run anything: the report says exactly what it ran.
		v["definition"] = t.def.file
		v["command"] = strings.Join(t.expandAll(t.def.Start.Command), " ")
		if c := t.def.Prepare.Command; c != "" {
			v["prepare"] = c + " (in " + t.homeDir() + ")"
		}
	}
	id := t.def.Identity
	switch id.Kind {
	case "binding":
		v["binary"] = t.executable()
		if bi, err := buildinfo.ReadFile(t.executable()); err == nil {
			v["go"] = bi.GoVersion
		}
		if id.Manifest != "" {
			for k, val := range readManifest(t.expand(id.Manifest)) {
				v["manifest."+k] = val
			}
		}
	case "go":
		v["binary"] = t.executable()
		bi, _ := buildinfo.ReadFile(t.executable())
		v["go"] = goVersion(bi)
		for label, path := range id.Modules {
			v[label] = depVersion(bi, path)
		}
	case "npm":
		t.nodeVersions(v)
	default:
		v["command"] = strings.Join(t.expandAll(t.def.Start.Command), " ")
	}
	return v
}

// UpstreamVersion is the version a headline shows for a pinned upstream ("" for our own build,
// whose manifest says what it is, or when nothing names one).
func (t *Target) UpstreamVersion() string {
	if t.def == nil || t.def.Identity.Kind == "binding" {
		return ""
	}
	v := t.Versions()
	for _, k := range []string{t.def.Identity.Version, "go"} {
		if s := v[k]; k != "" && s != "" && s != "unknown" {
			return s
		}
	}
	return ""
}

// Build says what a side of a race ran, for the summary and for matching a baseline: "kind"
// (release, plain, instrumented or source for the binding's builds; npm, go-module, go-stdlib,
// external), plus the hashes and versions that pin it. A binding binary is asked itself
// (`--build-info`), so the answer holds for that binary whatever build/ holds now.
func (t *Target) Build() (map[string]string, error) {
	b := map[string]string{}
	kind := ""
	if t.def != nil {
		kind = t.def.Identity.Kind
	}
	switch kind {
	case "binding":
		exe := t.executable()
		out, err := exec.Command(exe, "--build-info").Output()
		if err != nil {
			return nil, fmt.Errorf("target %s: %s --build-info: %w", t.Name, exe, err)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			return nil, fmt.Errorf("target %s: %s --build-info printed %q: %w", t.Name, exe, out, err)
		}
		b["kind"] = b["variant"]
		delete(b, "variant")
	case "go":
		bi, err := buildinfo.ReadFile(t.executable())
		if err != nil {
			return nil, fmt.Errorf("target %s: reading %s's build info: %w", t.Name, t.executable(), err)
		}
		b["go"] = bi.GoVersion
		if label := t.def.Identity.Version; label != "" {
			b["kind"], b["version"] = "go-module", depVersion(bi, t.def.Identity.Modules[label])
		} else {
			b["kind"] = "go-stdlib"
		}
	case "npm":
		v := map[string]string{}
		t.nodeVersions(v)
		b["kind"], b["version"], b["node"] = "npm", v[t.def.Identity.Version], v["node"]
	default:
		b["kind"], b["command"] = "external", t.Versions()["command"]
	}
	if t.CPUQuotaPct > 0 {
		b["cpu_quota_pct"] = strconv.Itoa(t.CPUQuotaPct)
	}
	return b, nil
}

// Refuses says which of the scenarios named t does not serve, nil when it serves them all: a
// definition claims its scenarios; a cmd: command is taken at its word.
func (t *Target) Refuses(scenarios []string) error {
	if t.def == nil {
		return nil
	}
	var not []string
	for _, s := range scenarios {
		if !t.def.Serves(s) {
			not = append(not, s)
		}
	}
	if len(not) > 0 {
		return fmt.Errorf("target %s does not serve %s: its definition (%s) claims %s", t.Name, strings.Join(not, ", "), t.def.file, strings.Join(t.def.Scenarios, ", "))
	}
	return nil
}

// TakesThreads reports whether the target can be told its thread count: its definition says
// how, or its cmd: command has "{threads}".
func (t *Target) TakesThreads() bool {
	if t.def == nil {
		return strings.Contains(t.Command, "{threads}")
	}
	th := t.def.Start.Threads
	return len(th.Args) > 0 || len(th.Env) > 0
}

// readManifest flattens the manifest's scalar fields; nested values are left to the report.
func readManifest(path string) map[string]string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	out := map[string]string{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch x := m[k].(type) {
		case string:
			out[k] = x
		case float64, bool:
			out[k] = fmt.Sprint(x)
		}
	}
	return out
}

// depVersion is the version of module path linked into the binary bi describes ("unknown"
// without build info or the module).
func depVersion(bi *buildinfo.BuildInfo, path string) string {
	if bi != nil {
		for _, d := range bi.Deps {
			if d.Path == path {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}

// linkedVersion is the version of module path linked into this executable. Test binaries carry
// no dependency list, so the checkout's go.mod, which pins the same version, answers then.
func linkedVersion(path string) string {
	bi, _ := debug.ReadBuildInfo()
	if v := depVersion(bi, path); v != "unknown" {
		return v
	}
	if root, err := machine.RepoRoot(); err == nil {
		if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
				if len(f) >= 2 && f[0] == path {
					return f[1]
				}
			}
		}
	}
	return "unknown"
}

// goVersion is the Go version bi's binary was built with ("unknown" without build info).
func goVersion(bi *buildinfo.BuildInfo) string {
	if bi == nil {
		return "unknown"
	}
	return bi.GoVersion
}
