package template

import (
	"bytes"
	"context"
	"go/format"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

func TestWriteRefusesNonEmptyDir(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "main.go")
	if err := os.WriteFile(mine, []byte("package mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, rt := range Runtimes() {
		paths, err := Write(dir, "mine", rt)
		if err == nil || !strings.Contains(err.Error(), "not empty") || paths != nil {
			t.Errorf("Write(%s) into a folder holding a file = %v, %v; want a refusal saying it is not empty", rt, paths, err)
		}
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "package mine\n" {
		t.Errorf("the user's file is now %q, %v", b, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d entries after a refused Write, want the user's one", len(entries))
	}
}

func TestWriteRefusesUnknownRuntime(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	_, err := Write(dir, "new", "python")
	if err == nil || !strings.Contains(err.Error(), `"python"`) || !strings.Contains(err.Error(), strings.Join(Runtimes(), ", ")) {
		t.Errorf("Write(python) = %v, want an error naming it and the runtimes", err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("a refused Write created the folder")
	}
}

func TestWriteRefusesBadName(t *testing.T) {
	for _, name := range []string{"", "a/b", "a b", `a"b`, ".a", "a.", "-a", strings.Repeat("a", 65)} {
		dir := filepath.Join(t.TempDir(), "new")
		if _, err := Write(dir, name, "go"); err == nil {
			t.Errorf("Write with name %q succeeded", name)
		}
	}
}

// writeNew's O_EXCL keeps a file that appeared after the folder was found empty.
func TestWriteNewNeverOverwrites(t *testing.T) {
	p := filepath.Join(t.TempDir(), "server.js")
	if err := os.WriteFile(p, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeNew(p, []byte("template"), 0o644); err == nil {
		t.Error("writeNew replaced an existing file")
	}
	if b, _ := os.ReadFile(p); string(b) != "mine" {
		t.Errorf("the existing file now holds %q", b)
	}
}

// An existing empty folder is written into; the paths returned are the files there.
func TestWriteIntoEmptyDir(t *testing.T) {
	for _, rt := range Runtimes() {
		dir := t.TempDir()
		paths, err := Write(dir, "t1", rt)
		if err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != len(paths) || len(paths) == 0 {
			t.Fatalf("%s: wrote %v, the folder holds %d entries", rt, paths, len(entries))
		}
		for _, p := range paths {
			if filepath.Dir(p) != dir {
				t.Errorf("%s: %s is not in %s", rt, p, dir)
			}
		}
	}
}

// readDefinition decodes the written target.json as the harness does and checks that it
// claims what the template serves.
func readDefinition(t *testing.T, dir, name, runtime string) *targets.Definition {
	t.Helper()
	file := filepath.Join(dir, "target.json")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	d, err := targets.DecodeDefinition(b, file)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != name || string(d.Runtime) != runtime || d.About == "" {
		t.Errorf("target.json for %s %s:\n%s", runtime, name, b)
	}
	if !slices.Equal(d.Scenarios, Scenarios(runtime)) {
		t.Errorf("target.json claims %v, Scenarios(%s) = %v", d.Scenarios, runtime, Scenarios(runtime))
	}
	return d
}

// checkServes takes the written target the road its README gives: prepared, resolved from its
// target.json, started, verified on every scenario it claims; then it asks the info route and
// every background route, and stops it, which must be graceful.
func checkServes(t *testing.T, dir string, d *targets.Definition) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	file := filepath.Join(dir, "target.json")
	tg, err := targets.PrepareTarget(ctx, file, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tg.Start(ctx, targets.StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()

	var scs []scenario.Scenario
	for _, name := range d.Scenarios {
		sc, err := scenario.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		scs = append(scs, sc)
	}
	if err := targets.Verify(ctx, d.Name, s.Addr(), scs); err != nil {
		t.Errorf("the %s template does not serve what it claims:\n%v", d.Runtime, err)
	}
	info, err := targets.InfoAt(d.Name, s.Addr())
	if err != nil || info.HeapBytes <= 0 || info.Threads < 1 {
		t.Errorf("info route: %+v, %v; want a heap and a thread count", info, err)
	}
	checkBackground(t, s.Addr())
	if err := s.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}

// checkBackground requests every background route but the info route, its parameters filled.
func checkBackground(t *testing.T, addr string) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	for _, r := range scenario.BackgroundRoutes {
		if r.Path == scenario.InfoPath {
			continue
		}
		var segs []string
		for _, s := range strings.Split(r.Path, "/") {
			if strings.HasPrefix(s, ":") || s == "*" {
				s = "7"
			}
			segs = append(segs, s)
		}
		req, _ := http.NewRequest(r.Method, "http://"+addr+strings.Join(segs, "/"), nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("%s %s: %v", r.Method, r.Path, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "background" {
			t.Errorf("%s %s answered %d %q, want 200 \"background\"", r.Method, req.URL.Path, resp.StatusCode, body)
		}
	}
}

func TestGoTemplateVerifies(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mygo")
	paths, err := Write(dir, "mygo", "go")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"README.md", "go.mod", "main.go", "target.json"}
	if len(paths) != len(want) {
		t.Fatalf("Write(go) wrote %v, want %v", paths, want)
	}
	for i, p := range paths {
		if p != filepath.Join(dir, want[i]) {
			t.Errorf("Write(go) wrote %v, want %v in %s", paths, want, dir)
		}
	}
	src, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if formatted, err := format.Source(src); err != nil || !bytes.Equal(formatted, src) {
		t.Errorf("the written main.go is not gofmt-clean (%v)", err)
	}
	d := readDefinition(t, dir, "mygo", "go")
	// The written module stands alone: the standard library, the local toolchain, no workspace.
	t.Setenv("GOWORK", "off")
	t.Setenv("GOTOOLCHAIN", "local")
	checkServes(t, dir, d)
}

func TestNodeTemplateVerifies(t *testing.T) {
	root, err := machine.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	mods := filepath.Join(root, "harness", "targets", "uws", "node_modules")
	if _, err := os.Stat(filepath.Join(mods, "@trufflesuite", "uws-js-unofficial")); err != nil {
		t.Fatalf("%s lacks @trufflesuite/uws-js-unofficial: scripts/setup.sh installs it (npm ci in harness/targets/uws)", mods)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on PATH: scripts/setup.sh installs it")
	}
	dir := filepath.Join(t.TempDir(), "mynode")
	paths, err := Write(dir, "mynode", "node")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"README.md", "server.js", "target.json"}
	if len(paths) != len(want) {
		t.Fatalf("Write(node) wrote %v, want %v", paths, want)
	}
	d := readDefinition(t, dir, "mynode", "node")
	checkServes(t, dir, d)
}

// Every scenario a template claims exists, and no template claims a database scenario: none
// serves the database routes.
func TestScenariosClaimedExist(t *testing.T) {
	for _, rt := range Runtimes() {
		for _, name := range Scenarios(rt) {
			sc, err := scenario.ByName(name)
			if err != nil || sc.Database != "" {
				t.Errorf("%s claims %s: %v (database %q)", rt, name, err, sc.Database)
			}
		}
	}
}
