package machine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The Go source hash and scripts/source-hash.sh (the Makefile's and the build manifests') are
// one algorithm: equal on the repository's own trees and on a tree with skipped directories
// and awkward names.
func TestSourceHashMatchesScript(t *testing.T) {
	root := FindRoot(".")
	if root == "" {
		t.Fatal("not inside the bindrace checkout")
	}
	// script runs the copy of source-hash.sh in tree/scripts, which hashes tree.
	script := func(tree string, args ...string) string {
		t.Helper()
		cmd := exec.Command("bash", append([]string{filepath.Join(tree, "scripts", "source-hash.sh")}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("source-hash.sh %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	for _, dirs := range [][]string{{"native/src", "native/include"}, {"harness"}, {"pgo", "profiles"}} {
		got, err := SourceHash(root, dirs...)
		if err != nil {
			t.Fatal(err)
		}
		if want := script(root, dirs...); got != want || got == "" {
			t.Errorf("%v: Go %q, script %q", dirs, got, want)
		}
	}

	// A copy of the script in a scratch tree hashes that tree.
	tree := t.TempDir()
	for name, body := range map[string]string{
		"scripts/source-hash.sh":     "",
		"src/a.cc":                   "a",
		"src/B.h":                    "b",
		"src/sub/c d.cc":             "c",
		"src/back\\slash":            "d",
		"src/node_modules/x.js":      "skipped",
		"src/build/y.o":              "skipped",
		"src/sub/results/z.json":     "skipped",
		"other/only-in-other-dir.go": "e",
	} {
		p := filepath.Join(tree, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if name == "scripts/source-hash.sh" {
			b, err := os.ReadFile(filepath.Join(root, "scripts", "source-hash.sh"))
			if err != nil {
				t.Fatal(err)
			}
			body = string(b)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	withSkipped, err := SourceHash(tree, "src", "other")
	if err != nil {
		t.Fatal(err)
	}
	if want := script(tree, "src", "other"); withSkipped != want {
		t.Errorf("scratch tree: Go %q, script %q", withSkipped, want)
	}
	if err := os.RemoveAll(filepath.Join(tree, "src", "node_modules")); err != nil {
		t.Fatal(err)
	}
	if again, _ := SourceHash(tree, "src", "other"); again != withSkipped {
		t.Errorf("node_modules counted: %q then %q", withSkipped, again)
	}
	if h, err := SourceHash(tree, "missing"); err != nil || h != "" {
		t.Errorf("no files: %q, %v", h, err)
	}
	if h := script(tree, "missing"); h != "" {
		t.Errorf("script, no files: %q", h)
	}
}
