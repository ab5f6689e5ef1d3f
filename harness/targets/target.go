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
	"sort"
	"strconv"
	"strings"

	"github.com/bindrace/bindrace/harness/internal/machine"
)

// Kind says how a target runs.
type Kind string

const (
	KindBinding Kind = "binding" // bin/binding-server*: Go handlers on the native core
	KindGo      Kind = "go"      // fasthttp, nethttp: bin/go-server
	KindNode    Kind = "node"    // uws: the bundled TypeScript server under node
	KindCommand Kind = "command" // cmd:<...> and reference: any external server
)

// Target is a resolved target name: what to run and where its files are.
type Target struct {
	Name    string
	Kind    Kind
	Command string // KindCommand: the shell command, "{port}" not yet substituted

	root   string // repo root (binding, node kinds)
	binary string // KindBinding, KindGo: the server binary
	static bool   // binding-static: routes answered in C++ only
	ownP   bool   // binding-ownp: each loop keeps a Go processor of its own (--own-p)
	uring  bool   // binding-uring, binding-static-uring: the native loop on io_uring (BINDRACE_LOOP=uring)

	// CPUQuotaPct caps the server's CPU time at this percentage of its CPUs ("T@cpuNN"); 0: no cap.
	CPUQuotaPct int
}

var fixedNames = []string{"binding", "binding-plain", "binding-static", "binding-ownp", "binding-uring", "binding-static-uring", "uws", "fasthttp", "nethttp"}

// Names lists the target names Resolve accepts, besides "cmd:<command with {port}>";
// "reference" is listed when $BINDRACE_REFERENCE is set.
func Names() []string {
	names := append([]string(nil), fixedNames...)
	if os.Getenv("BINDRACE_REFERENCE") != "" {
		names = append(names, "reference")
	}
	return names
}

// Resolve finds a target by name and checks that what it needs is there (a built binary, the
// Node modules), so a run fails before it starts rather than half-way.
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
		t.Name, t.CPUQuotaPct = name, pct
		return t, nil
	}
	switch name {
	case "fasthttp", "nethttp":
		return resolveBinary(name, KindGo, goServerEnv, "go-server", "make build")
	case "binding", "binding-static", "binding-ownp", "binding-uring", "binding-static-uring":
		return resolveBinary(name, KindBinding, "", "binding-server", "make build")
	case "binding-plain":
		return resolveBinary(name, KindBinding, "", "binding-server-plain", "make build-plain")
	case "uws":
		return resolveUWS()
	case "reference":
		ref := strings.TrimSpace(os.Getenv("BINDRACE_REFERENCE"))
		if ref == "" {
			return nil, fmt.Errorf("target reference: set BINDRACE_REFERENCE to a command with {port}, e.g. BINDRACE_REFERENCE='./my-server --port {port}'")
		}
		return &Target{Name: "reference", Kind: KindCommand, Command: strings.TrimPrefix(ref, "cmd:")}, nil
	}
	if cmd, ok := strings.CutPrefix(name, "cmd:"); ok {
		if strings.TrimSpace(cmd) == "" {
			return nil, fmt.Errorf("target %q: empty command; write cmd:<command with {port}>", name)
		}
		return &Target{Name: name, Kind: KindCommand, Command: cmd}, nil
	}
	return nil, fmt.Errorf("unknown target %q (known: %s, cmd:<command with {port}>; any of them@cpuNN caps its CPU time at NN%%)", name, strings.Join(Names(), ", "))
}

// goServerEnv names a go-server binary to run instead of bin/go-server (tests build their own:
// harness/internal/testbin).
const goServerEnv = "BINDRACE_GO_SERVER"

// resolveBinary finds a server binary: $env when set, else in $BINDRACE_BIN, else in the
// repository's bin/; make is what builds it.
func resolveBinary(name string, kind Kind, env, binary, make string) (*Target, error) {
	root, err := machine.RepoRoot()
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", name, err)
	}
	dir := filepath.Join(root, "bin")
	if d := os.Getenv("BINDRACE_BIN"); d != "" {
		dir = d // servers built elsewhere, e.g. a candidate from another checkout
	}
	path := filepath.Join(dir, binary)
	if p := os.Getenv(env); env != "" && p != "" {
		path = p
	}
	if st, err := os.Stat(path); err != nil || st.IsDir() {
		return nil, fmt.Errorf("target %s: %s is missing: run `%s` in %s", name, path, make, root)
	}
	return &Target{Name: name, Kind: kind, root: root, binary: path, static: name == "binding-static" || name == "binding-static-uring",
		ownP: name == "binding-ownp", uring: name == "binding-uring" || name == "binding-static-uring"}, nil
}

// Artifact is what the target ships: the server binary for binding* and the Go targets, the
// esbuild bundle for uws and the command's executable for cmd: targets.
func (t *Target) Artifact() (string, int64, error) {
	var path string
	switch t.Kind {
	case KindBinding, KindGo:
		path = t.binary
	case KindNode:
		// The bundle only: the native addon is the upstream's prebuilt, identical for every
		// uWebSockets.js app, and node itself is not counted either, as a Go binary's libc isn't.
		p, err := t.bundle()
		if err != nil {
			return "", 0, err
		}
		path = p
	case KindCommand:
		fields := strings.Fields(t.Command)
		if len(fields) == 0 {
			return "", 0, fmt.Errorf("target %s: empty command", t.Name)
		}
		p, err := exec.LookPath(fields[0])
		if err != nil {
			return "", 0, fmt.Errorf("target %s: artefact: %w", t.Name, err)
		}
		path = p
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", 0, fmt.Errorf("target %s: artefact: %w", t.Name, err)
	}
	return path, st.Size(), nil
}

// Versions reports what decides the target's behaviour: toolchain, library and upstream versions
// and, for binding targets, the native build manifest's fields (prefixed "manifest.").
func (t *Target) Versions() map[string]string {
	v := map[string]string{"target": t.Name}
	switch t.Kind {
	case KindBinding:
		v["binary"] = t.binary
		if bi, err := buildinfo.ReadFile(t.binary); err == nil {
			v["go"] = bi.GoVersion
		}
		variant := "release"
		if t.Name == "binding-plain" {
			variant = "plain"
		}
		for k, val := range readManifest(filepath.Join(t.root, "build", variant, "manifest.json")) {
			v["manifest."+k] = val
		}
	case KindGo:
		v["binary"] = t.binary
		bi, _ := buildinfo.ReadFile(t.binary)
		v["go"] = goVersion(bi)
		// The WebSocket library serves ws-echo; its version decides that scenario's behaviour.
		if t.base() == "fasthttp" {
			v["fasthttp"] = depVersion(bi, "github.com/valyala/fasthttp")
			v["fasthttp/websocket"] = depVersion(bi, "github.com/fasthttp/websocket")
		} else {
			v["gorilla/websocket"] = depVersion(bi, "github.com/gorilla/websocket")
		}
	case KindNode:
		t.nodeVersions(v)
	case KindCommand:
		v["command"] = t.Command
	}
	return v
}

// Build says what a side of a race ran, for the summary and for matching a baseline: "kind"
// (release, plain, instrumented or source for the binding's builds; npm, go-module, go-stdlib,
// external), plus the hashes and versions that pin it. A binding binary is asked itself
// (`--build-info`), so the answer holds for that binary whatever build/ holds now.
func (t *Target) Build() (map[string]string, error) {
	b := map[string]string{}
	switch t.Kind {
	case KindBinding:
		out, err := exec.Command(t.binary, "--build-info").Output()
		if err != nil {
			return nil, fmt.Errorf("target %s: %s --build-info: %w", t.Name, t.binary, err)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			return nil, fmt.Errorf("target %s: %s --build-info printed %q: %w", t.Name, t.binary, out, err)
		}
		b["kind"] = b["variant"]
		delete(b, "variant")
	case KindGo:
		bi, err := buildinfo.ReadFile(t.binary)
		if err != nil {
			return nil, fmt.Errorf("target %s: reading %s's build info: %w", t.Name, t.binary, err)
		}
		b["go"] = bi.GoVersion
		if t.base() == "fasthttp" {
			b["kind"], b["version"] = "go-module", depVersion(bi, "github.com/valyala/fasthttp")
		} else {
			b["kind"] = "go-stdlib"
		}
	case KindNode:
		v := map[string]string{}
		t.nodeVersions(v)
		b["kind"], b["version"], b["node"] = "npm", v[upstreamPackage], v["node"]
	case KindCommand:
		b["kind"], b["command"] = "external", t.Command
	}
	if t.CPUQuotaPct > 0 {
		b["cpu_quota_pct"] = strconv.Itoa(t.CPUQuotaPct)
	}
	return b, nil
}

// Static reports binding-static (and binding-static-uring): the fixed scenarios answered in C++
// only, no database routes.
func (t *Target) Static() bool { return t.static }

// RefusesDB says why t cannot serve the database scenarios named, nil when it can: a static
// binding answers from C++ alone and registers no database routes.
func (t *Target) RefusesDB(scenarios []string) error {
	if t.Kind == KindBinding && t.static {
		return fmt.Errorf("target %s answers in C++ only and has no database routes: the database scenarios (%v) need binding or binding-plain", t.Name, scenarios)
	}
	return nil
}

// TakesThreads reports whether the target can be told its thread count: every kind but a
// cmd: command without "{threads}".
func (t *Target) TakesThreads() bool {
	return t.Kind != KindCommand || strings.Contains(t.Command, "{threads}")
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

// base is the target's name without a CPU cap ("fasthttp@cpu95" serves as fasthttp).
func (t *Target) base() string {
	b, _, _ := splitQuota(t.Name)
	return b
}
