// Package template writes the starting point of a new target: a scenario server for one
// runtime that serves the scenario contract (docs/scenario-contract.md), its definition
// (target.json) and a README saying what to change and how to check it. A user copies it to
// race their own library.
//
// The files are text/template sources embedded from files/<runtime>/. Go sources end in .tmpl
// so that the module's own build and `go vet ./...` never compile them; the contract's
// constants (info path, video size, background routes, ...) are filled in from
// harness/scenario when a folder is written, so a template cannot drift from them.
package template

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

//go:embed files
var files embed.FS

// Runtimes are the runtimes a template exists for.
func Runtimes() []string { return []string{"go", "node"} }

// Scenarios are the scenarios the template of runtime serves and its target.json claims; nil
// for an unknown runtime. No template serves the database scenarios: they need a PostgreSQL
// client, which a runtime's standard library does not have.
func Scenarios(runtime string) []string {
	switch runtime {
	case "go", "node":
		return []string{"ping", "params", "json", "stream", "ws-echo"}
	}
	return nil
}

// Write writes a new target folder dir for runtime ("go" or "node") named name, and returns
// the paths it wrote. dir may exist only if it is empty: Write never touches a file it did not
// create (each is created with O_EXCL), and on failure it removes what it wrote.
func Write(dir, name, runtime string) ([]string, error) {
	if Scenarios(runtime) == nil {
		return nil, fmt.Errorf("template: unknown runtime %q (runtimes: %s)", runtime, strings.Join(Runtimes(), ", "))
	}
	rendered, err := render(name, runtime)
	if err != nil {
		return nil, err
	}
	// The definition written is one the harness takes: a name it refuses (which would also be
	// a bad module path or shell word) fails here, before anything is written.
	for _, f := range rendered {
		if f.name == "target.json" {
			if _, err := targets.DecodeDefinition(f.text, filepath.Join(dir, f.name)); err != nil {
				return nil, fmt.Errorf("template: %w", err)
			}
		}
	}
	created, err := prepareDir(dir)
	if err != nil {
		return nil, err
	}
	var written []string
	undo := func() {
		for _, p := range written {
			os.Remove(p)
		}
		if created {
			os.Remove(dir)
		}
	}
	for _, f := range rendered {
		p := filepath.Join(dir, f.name)
		if err := writeNew(p, f.text, f.mode); err != nil {
			undo()
			return nil, fmt.Errorf("template: %w", err)
		}
		written = append(written, p)
	}
	return written, nil
}

// prepareDir makes dir, or accepts it when it exists and is empty; created says Write made it
// (and may remove it again).
func prepareDir(dir string) (created bool, err error) {
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil && len(entries) > 0:
		return false, fmt.Errorf("template: %s is not empty: write a new target into a new or empty folder", dir)
	case err == nil:
		return false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("template: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("template: %w", err)
	}
	return true, nil
}

// writeNew creates path, failing if anything is there already, even a file that appeared
// after prepareDir looked.
func writeNew(path string, text []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

type file struct {
	name string
	text []byte
	mode os.FileMode
}

// render executes every template of runtime, all before anything is written, so a broken
// template fails without leaving half a folder.
func render(name, runtime string) ([]file, error) {
	root := path.Join("files", runtime)
	entries, err := files.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	d := newData(name, runtime)
	var out []file
	for _, e := range entries {
		src, err := files.ReadFile(path.Join(root, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("template: %w", err)
		}
		t, err := template.New(e.Name()).Funcs(funcs).Option("missingkey=error").Parse(string(src))
		if err != nil {
			return nil, fmt.Errorf("template %s/%s: %w", runtime, e.Name(), err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, d); err != nil {
			return nil, fmt.Errorf("template %s/%s: %w", runtime, e.Name(), err)
		}
		out = append(out, file{name: strings.TrimSuffix(e.Name(), ".tmpl"), text: b.Bytes(), mode: 0o644})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

var funcs = template.FuncMap{
	// json renders a value as a JSON literal, which is also a valid Go or JavaScript literal for
	// the strings, numbers and string lists the templates use.
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
}

// data is what the templates are filled with: the new target's name and the contract's
// constants from harness/scenario.
type data struct {
	Name        string
	Runtime     string
	Scenarios   []string
	InfoPath    string
	BenchHeader string
	VideoSize   int
	WSPath      string
	WSMaxMsg    int
	Background  []route // scenario.BackgroundRoutes without the info route, which has a handler of its own
}

// route is a background route: Method and Path as harness/scenario writes them, Mux the
// pattern Go 1.22's http.ServeMux takes for it, Node uWebSockets.js' method name.
type route struct {
	Method, Path, Mux, Node string
}

func newData(name, runtime string) data {
	d := data{Name: name, Runtime: runtime, Scenarios: Scenarios(runtime),
		InfoPath: scenario.InfoPath, BenchHeader: scenario.BenchHeader, VideoSize: scenario.VideoSize,
		WSPath: scenario.WSPath, WSMaxMsg: scenario.WSMaxMessage}
	for _, r := range scenario.BackgroundRoutes {
		if r.Path == scenario.InfoPath {
			continue
		}
		node := strings.ToLower(r.Method)
		if node == "delete" {
			node = "del" // uWebSockets.js' name: delete is a JavaScript keyword
		}
		d.Background = append(d.Background, route{Method: r.Method, Path: r.Path, Mux: r.MuxPattern(), Node: node})
	}
	return d
}
