package targets

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// builtinFS holds the built-in targets' definitions. They are compiled in, so the harness knows
// them wherever its executable runs (a remote host gets the executable, not the checkout).
//
//go:embed builtin/*.json
var builtinFS embed.FS

// builtinDir is the built-in definitions' folder in the checkout, their "{dir}".
const builtinDir = "harness/targets/builtin"

// registry is every definition known to this process: the built-in ones, then the folders
// a user added (AddDir). A name is defined once.
var registry = struct {
	sync.Mutex
	defs  map[string]*Definition
	names []string // in the order added: built-ins in their file order
	err   error    // a built-in definition that does not decode: a broken build, said on use
}{}

// loadBuiltins fills the registry with the built-in definitions on first use.
var loadBuiltins = sync.OnceFunc(func() {
	registry.Lock()
	defer registry.Unlock()
	registry.defs = map[string]*Definition{}
	entries, err := fs.ReadDir(builtinFS, "builtin")
	if err != nil {
		registry.err = err
		return
	}
	var errs []error
	for _, e := range entries {
		b, err := builtinFS.ReadFile("builtin/" + e.Name())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		d, err := DecodeDefinition(b, filepath.Join(builtinDir, e.Name()))
		if err == nil {
			_, err = addLocked(d, true)
		}
		errs = append(errs, err)
	}
	slices.SortStableFunc(registry.names, func(a, b string) int { return orderOf(a) - orderOf(b) })
	registry.err = errors.Join(errs...)
})

// builtinOrder puts the built-in targets in the order people meet them: the binding and its
// variants, the upstream, the Go peers. Names not listed here follow in file order.
var builtinOrder = []string{"binding", "binding-plain", "binding-static", "binding-ownp", "binding-uring", "binding-static-uring", "uws", "fasthttp", "nethttp"}

// addLocked registers d and returns the definition registered under its name: d, or the one
// already read from the same file (a flag given twice, a second command of one process).
func addLocked(d *Definition, builtin bool) (*Definition, error) {
	if old, ok := registry.defs[d.Name]; ok {
		if old.file == d.file && !builtin {
			return old, nil
		}
		return nil, fmt.Errorf("target definition %s: %w", d.file, fieldErr("name", "%q is already defined by %s", d.Name, old.file))
	}
	d.builtin = builtin
	registry.defs[d.Name] = d
	registry.names = append(registry.names, d.Name)
	return d, nil
}

func orderOf(name string) int {
	if i := slices.Index(builtinOrder, name); i >= 0 {
		return i
	}
	return len(builtinOrder)
}

// AddDir adds the definitions in dir (--targets-dir): its target.json and *.target.json, and
// the target.json of each folder in it, so a folder of targets' own folders (examples/) is one
// flag. Nothing is added unless every file decodes and no name is taken, so a bad folder
// changes nothing.
func AddDir(dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("targets dir %s: not a folder", dir)
	}
	var files []string
	for _, pattern := range []string{"target.json", "*.target.json", "*/target.json"} {
		found, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return err
		}
		files = append(files, found...)
	}
	if len(files) == 0 {
		return fmt.Errorf("targets dir %s: no definition in it (target.json, NAME.target.json, or FOLDER/target.json)", dir)
	}
	_, err := addFiles(files)
	return err
}

// AddFile adds one definition file (a target named by its path) and returns it.
func AddFile(path string) (*Definition, error) {
	defs, err := addFiles([]string{path})
	if err != nil {
		return nil, err
	}
	return defs[0], nil
}

// addFiles reads and registers files, all or none, returning what is registered for each.
func addFiles(files []string) ([]*Definition, error) {
	loadBuiltins()
	defs := make([]*Definition, 0, len(files))
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, err
		}
		b, err := readDefinitionFile(abs)
		if err != nil {
			return nil, err
		}
		d, err := DecodeDefinition(b, abs)
		if err != nil {
			return nil, err
		}
		defs = append(defs, d)
	}
	registry.Lock()
	defer registry.Unlock()
	names := slices.Clone(registry.names)
	for i, d := range defs {
		var err error
		if defs[i], err = addLocked(d, false); err != nil {
			for _, n := range registry.names[len(names):] { // undo: all or nothing
				delete(registry.defs, n)
			}
			registry.names = names
			return nil, err
		}
	}
	return defs, nil
}

func readDefinitionFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("target definition: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(definitionRules.MaxBytes)+1))
	if err != nil {
		return nil, fmt.Errorf("target definition %s: %w", path, err)
	}
	if len(b) > definitionRules.MaxBytes {
		return nil, fmt.Errorf("target definition %s: over %d bytes", path, definitionRules.MaxBytes)
	}
	return b, nil
}

// lookup finds a definition by name, or by its file's path (a name ending in ".json").
func lookup(name string) (*Definition, bool, error) {
	loadBuiltins()
	if strings.HasSuffix(name, ".json") {
		abs, _ := filepath.Abs(name)
		registry.Lock()
		for _, d := range registry.defs {
			if d.file == abs {
				registry.Unlock()
				return d, true, nil
			}
		}
		registry.Unlock()
		d, err := AddFile(name)
		return d, err == nil, err
	}
	registry.Lock()
	defer registry.Unlock()
	if registry.err != nil {
		return nil, false, fmt.Errorf("the built-in target definitions: %w", registry.err)
	}
	d, ok := registry.defs[name]
	return d, ok, nil
}

// Definitions lists every definition known, built-ins first, in the order of Names.
func Definitions() []*Definition {
	loadBuiltins()
	registry.Lock()
	defer registry.Unlock()
	out := make([]*Definition, 0, len(registry.names))
	for _, n := range registry.names {
		out = append(out, registry.defs[n])
	}
	return out
}
