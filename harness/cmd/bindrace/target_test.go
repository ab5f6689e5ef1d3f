package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/testbin"
)

// The README's table of targets is the one their definitions make.
func TestReadmeTargetsTable(t *testing.T) {
	root, err := machine.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const open, end = "<!-- targets table: bindrace target list --markdown -->\n", "<!-- end of targets table -->"
	_, rest, ok1 := strings.Cut(string(b), open)
	table, _, ok2 := strings.Cut(rest, end)
	if !ok1 || !ok2 {
		t.Fatalf("README.md has no table between %q and %q", open, end)
	}
	var out, errs bytes.Buffer
	if code := run([]string{"target", "list", "--markdown"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if table != out.String() {
		t.Errorf("README.md's targets table is stale; replace it with `bin/bindrace target list --markdown`:\n%s", out.String())
	}
}

// A folder of definitions is read as its flag is parsed: a bad file is exit 2 naming the file and
// the field, and a scenario a definition does not claim is exit 2 naming both, before a race
// makes anything.
func TestTargetsDirRefusals(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.target.json")
	os.WriteFile(bad, []byte(`{"name":"dir-bad","runtime":"go","start":{"command":["s"]},"scenarios":["ping"]}`), 0o644)
	var out, errs bytes.Buffer
	code := run([]string{"target", "list", "--targets-dir", dir}, &out, &errs)
	if code != 2 || !strings.Contains(errs.String(), bad) || !strings.Contains(errs.String(), `"start.command": no {port}`) {
		t.Fatalf("a bad definition: exit %d, %s", code, errs.String())
	}

	good := t.TempDir()
	def := filepath.Join(good, "target.json")
	os.WriteFile(def, []byte(`{"name":"dir-mine","runtime":"other","start":{"command":["python3","-m","http.server","{port}"]},"scenarios":["ping"]}`), 0o644)
	outDir := filepath.Join(t.TempDir(), "never")
	errs.Reset()
	code = run([]string{"race", "--targets-dir", good, "--a", "dir-mine", "--b", "fasthttp", "--scenario", "json", "--out", outDir, "--steal-limit", "-1"}, &out, &errs)
	if code != 2 || !strings.Contains(errs.String(), "target dir-mine does not serve json: its definition ("+def+") claims ping") {
		t.Fatalf("an unclaimed scenario: exit %d, %s", code, errs.String())
	}
	if _, err := os.Stat(outDir); !os.IsNotExist(err) {
		t.Errorf("the refused race made %s", outDir)
	}
	out.Reset()
	if code := run([]string{"target", "list", "--targets-dir", good}, &out, &errs); code != 0 || !strings.Contains(out.String(), "dir-mine") {
		t.Errorf("list with the folder: exit %d, %s", code, out.String())
	}
}

// `bindrace target new` writes a folder whose target prepares and passes verify, for each
// runtime, and never writes into a folder that holds something.
func TestTargetNewVerifies(t *testing.T) {
	t.Setenv("GOWORK", "off") // the written Go module stands alone
	t.Setenv("GOTOOLCHAIN", "local")
	for _, rt := range []string{"go", "node"} {
		dir := filepath.Join(t.TempDir(), "new-"+rt)
		var out, errs bytes.Buffer
		if code := run([]string{"target", "new", "new-" + rt, "--runtime", rt, "--dir", dir}, &out, &errs); code != 0 {
			t.Fatalf("%s: target new: exit %d, %s", rt, code, errs.String())
		}
		def := filepath.Join(dir, "target.json")
		if code := run([]string{"target", "prepare", def}, &out, &errs); code != 0 {
			t.Fatalf("%s: target prepare: exit %d, %s", rt, code, errs.String())
		}
		out.Reset()
		if code := run([]string{"verify", "--target", def}, &out, &errs); code != 0 || !strings.Contains(out.String(), "ok    new-"+rt+"/ws-echo") {
			t.Fatalf("%s: verify: exit %d\n%s\n%s", rt, code, out.String(), errs.String())
		}
		errs.Reset()
		if code := run([]string{"target", "new", "again", "--runtime", rt, "--dir", dir}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "is not empty") {
			t.Errorf("%s: target new into a full folder: exit %d, %s", rt, code, errs.String())
		}
	}
}

// A definition that claims a scenario its server does not serve fails verify, naming the
// route it asked for; one it does not claim is skipped, saying so.
func TestVerifyClaimedNotServed(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "hi.py"), []byte(testbin.HiServer), 0o755)
	def := filepath.Join(dir, "target.json")
	os.WriteFile(def, []byte(`{"name":"claims-json","runtime":"other","start":{"command":["python3","{dir}/hi.py","{port}"]},"scenarios":["ping","json"]}`), 0o644)
	var out, errs bytes.Buffer
	code := run([]string{"verify", "--target", def}, &out, &errs)
	if code != 2 || !strings.Contains(out.String(), "ok    claims-json/ping") || !strings.Contains(out.String(), "FAIL  claims-json/json") ||
		!strings.Contains(errs.String(), "POST /json") || !strings.Contains(out.String(), "skip  claims-json/params: its definition does not claim it") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out.String(), errs.String())
	}
}

// The examples' definitions stay ones the harness takes (their set-up need not have run).
func TestExampleDefinitions(t *testing.T) {
	root, err := machine.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	code := run([]string{"target", "list", "--targets-dir", filepath.Join(root, "examples")}, &out, &errs)
	if code != 0 || !strings.Contains(out.String(), "hyper-express") {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errs.String())
	}
}
