package targets

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/bindrace/bindrace/harness/internal/strictjson"
	"github.com/bindrace/bindrace/harness/scenario"
)

// Definition is a target's definition file (docs/targets.md): everything the harness needs to
// prepare, start, check and describe a server it did not write. The built-in targets are such
// files too (builtin/), so a user's target takes exactly the road a built-in one does.
type Definition struct {
	Name    string  `json:"name"`
	About   string  `json:"about"`   // one line, for the help and the README's table
	Runtime Runtime `json:"runtime"` // decides which runtime figures the harness can read

	// LoopThreads: the server runs one event-loop thread per {threads}, and the harness reads
	// their busy fraction from /proc.
	LoopThreads bool `json:"loop_threads,omitempty"`

	Prepare Prepare `json:"prepare,omitempty"`
	Start   Start   `json:"start"`
	// Scenarios the target serves: names, or "*" for every scenario, database ones included.
	Scenarios []string `json:"scenarios"`
	// Files is what it runs from, for another host (the binary, the server's folder); it
	// defaults to what Prepare produces.
	Files []string `json:"files,omitempty"`
	// Artifact is what the target ships, for the report's size; it defaults to the bundle or the
	// command's executable.
	Artifact string   `json:"artifact,omitempty"`
	Identity Identity `json:"identity,omitempty"`

	file    string // where the definition was read, for errors and the report
	builtin bool   // compiled in (builtin/): it may travel to another host
}

// Runtime is what a target runs on.
type Runtime string

const (
	RuntimeGo     Runtime = "go"     // a Go binary: GOMAXPROCS follows the pinned CPUs
	RuntimeNode   Runtime = "node"   // node: the harness preloads its runtime-figures reader
	RuntimeNative Runtime = "native" // a native executable
	RuntimeOther  Runtime = "other"  // anything else: CPU, RSS and threads from /proc only
)

var runtimes = []Runtime{RuntimeGo, RuntimeNode, RuntimeNative, RuntimeOther}

// Prepare is what makes the target runnable once: a build or an install.
type Prepare struct {
	Command  string   `json:"command,omitempty"`  // run by sh in the start folder
	Produces []string `json:"produces,omitempty"` // files that must exist before a start
	Bundle   *Bundle  `json:"bundle,omitempty"`   // a TypeScript server bundled before every start
}

// Bundle is a TypeScript or JavaScript server that esbuild bundles, with the scenario contract's
// constants defined (docs/scenario-contract.md), before every start: milliseconds, and the
// bundle always matches its source.
type Bundle struct {
	Entry    string   `json:"entry"`              // the server's source
	Out      string   `json:"out"`                // the bundle written
	External []string `json:"external,omitempty"` // packages required at run time, not bundled
	Node     int      `json:"node"`               // the Node major version it targets and needs
}

// Start is how to run one server.
type Start struct {
	Command []string          `json:"command"` // argv; "{port}" somewhere in it or in Env
	Env     map[string]string `json:"env,omitempty"`
	Dir     string            `json:"dir,omitempty"` // working folder; default the definition's
	// Threads is added when a race gives a thread count; without it the target is told none
	// and its thread count is what its info route says.
	Threads Threads `json:"threads,omitempty"`
	// OverrideEnv names a variable that, when set, is the executable run instead of Command[0]
	// (a build from elsewhere; tests build their own).
	OverrideEnv string `json:"override_env,omitempty"`
	// TimeoutS bounds the start until GET / answers "hi" (default 10 s; 2 min under valgrind).
	TimeoutS int `json:"timeout_s,omitempty"`
}

// Threads is how a server is told its thread count.
type Threads struct {
	Args []string          `json:"args,omitempty"`
	Env  map[string]string `json:"env,omitempty"`
}

// Identity says how the harness learns what build a target is, for the summary and baselines.
type Identity struct {
	// Kind: "binding" (the binary answers --build-info), "go" (its Go build information),
	// "npm" (package versions under NodeModules), or "" (the command is all that is known).
	Kind     string            `json:"kind,omitempty"`
	Manifest string            `json:"manifest,omitempty"` // binding: the native build's manifest
	Modules  map[string]string `json:"modules,omitempty"`  // go: a label per module path read
	Packages []string          `json:"packages,omitempty"` // npm: the packages whose version counts
	// NodeModules is where Packages are installed (npm).
	NodeModules string `json:"node_modules,omitempty"`
	// Version names the Modules label or package whose version is the target's: the pinned
	// upstream's version in the headline. Empty: Go's standard library, or our own build.
	Version string `json:"version,omitempty"`
}

var identityKinds = []string{"", "binding", "go", "npm"}

// definitionRules: a definition is a file a user hands over.
var definitionRules = strictjson.Handed

// namePattern: a name is used in paths, flags, "T@cpuNN" and a template's go.mod, so nothing
// a shell, JSON or a module path would need quoted, and no '.' or '-' at either end.
var namePattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9._-]{0,62}[a-z0-9])?$`)

// placeholder finds "{word}" in a definition's strings.
var placeholder = regexp.MustCompile(`\{[^{}]*\}`)

// Placeholders a definition may use: the checkout, its bin/ (or $BINDRACE_BIN), the definition's
// own folder; the port and thread count only where a server is started.
var (
	pathPlaceholders  = []string{"{root}", "{bin}", "{dir}"}
	startPlaceholders = []string{"{root}", "{bin}", "{dir}", "{port}", "{threads}"}
)

// DecodeDefinition reads one definition file's text; file names it in errors. Everything that
// can be checked without running anything is checked here, so a bad file fails before a race.
func DecodeDefinition(b []byte, file string) (*Definition, error) {
	var d Definition
	if err := definitionRules.Decode(b, &d); err != nil {
		return nil, fmt.Errorf("target definition %s: %w", file, err)
	}
	d.file = file
	if err := d.check(); err != nil {
		return nil, fmt.Errorf("target definition %s: %w", file, err)
	}
	return &d, nil
}

func fieldErr(field, format string, args ...any) error {
	return &strictjson.Error{Field: field, Problem: fmt.Sprintf(format, args...)}
}

func (d *Definition) check() error {
	switch {
	case !namePattern.MatchString(d.Name):
		return fieldErr("name", "%q: want 1-64 of a-z, 0-9, '.', '_', '-', starting and ending with a letter or digit", d.Name)
	case strings.HasPrefix(d.Name, "cmd") && strings.Contains(d.Name, ":") || d.Name == "reference":
		return fieldErr("name", "%q is a name the harness gives its own meaning", d.Name)
	case !slices.Contains(runtimes, d.Runtime):
		return fieldErr("runtime", "%q: want one of %v", d.Runtime, runtimes)
	case len(d.Start.Command) == 0 || strings.TrimSpace(d.Start.Command[0]) == "":
		return fieldErr("start.command", "missing: the argv that starts the server, with {port}")
	case !d.mentionsPort():
		return fieldErr("start.command", "no {port}: the server must be told its port in its arguments or start.env")
	case !slices.Contains(identityKinds, d.Identity.Kind):
		return fieldErr("identity.kind", "%q: want one of %q", d.Identity.Kind, identityKinds)
	case d.Identity.Kind == "npm" && len(d.Identity.Packages) == 0:
		return fieldErr("identity.packages", "an npm identity names the packages whose versions count")
	}
	if err := d.checkScenarios(); err != nil {
		return err
	}
	if b := d.Prepare.Bundle; b != nil {
		switch {
		case d.Runtime != RuntimeNode:
			return fieldErr("prepare.bundle", "a bundle runs on node: runtime %q", d.Runtime)
		case b.Entry == "" || b.Out == "":
			return fieldErr("prepare.bundle", "entry and out are both needed")
		case b.Node < 1:
			return fieldErr("prepare.bundle.node", "the Node major version the bundle targets, e.g. 20")
		}
	}
	return d.checkPlaceholders()
}

func (d *Definition) mentionsPort() bool {
	for _, s := range d.Start.Command {
		if strings.Contains(s, "{port}") {
			return true
		}
	}
	for _, s := range d.Start.Env {
		if strings.Contains(s, "{port}") {
			return true
		}
	}
	return false
}

func (d *Definition) checkScenarios() error {
	if len(d.Scenarios) == 0 {
		return fieldErr("scenarios", "missing: the scenarios the target serves, or [\"*\"] for all")
	}
	for i, n := range d.Scenarios {
		if n == "*" {
			continue
		}
		if _, err := scenario.ByName(n); err != nil {
			return fieldErr(fmt.Sprintf("scenarios[%d]", i), "%v", err)
		}
	}
	return nil
}

// checkPlaceholders refuses a "{word}" the harness would not fill, where it would not fill it.
func (d *Definition) checkPlaceholders() error {
	type use struct {
		field string
		s     string
		known []string
	}
	var uses []use
	add := func(field string, known []string, ss ...string) {
		for _, s := range ss {
			uses = append(uses, use{field, s, known})
		}
	}
	add("start.command", startPlaceholders, d.Start.Command...)
	add("start.threads.args", startPlaceholders, d.Start.Threads.Args...)
	for k, v := range d.Start.Env {
		add("start.env."+k, startPlaceholders, v)
	}
	for k, v := range d.Start.Threads.Env {
		add("start.threads.env."+k, startPlaceholders, v)
	}
	add("start.dir", pathPlaceholders, d.Start.Dir)
	add("prepare.produces", pathPlaceholders, d.Prepare.Produces...)
	add("files", pathPlaceholders, d.Files...)
	add("artifact", pathPlaceholders, d.Artifact)
	add("identity.manifest", pathPlaceholders, d.Identity.Manifest)
	add("identity.node_modules", pathPlaceholders, d.Identity.NodeModules)
	if b := d.Prepare.Bundle; b != nil {
		add("prepare.bundle", pathPlaceholders, b.Entry, b.Out)
	}
	for _, u := range uses {
		for _, p := range placeholder.FindAllString(u.s, -1) {
			if !slices.Contains(u.known, p) {
				return fieldErr(u.field, "unknown placeholder %s in %q (known here: %s)", p, u.s, strings.Join(u.known, " "))
			}
		}
	}
	return nil
}

// Serves reports whether the definition claims scenario name.
func (d *Definition) Serves(name string) bool {
	return slices.Contains(d.Scenarios, "*") || slices.Contains(d.Scenarios, name)
}

// File is where the definition was read: a path under the checkout for a built-in one.
func (d *Definition) File() string { return d.file }
