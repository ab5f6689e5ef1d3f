package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// methods returns n methods of typ, named M<from> on, half on pointer receivers.
func methods(typ string, from, n int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		recv := typ
		if i%2 == 1 {
			recv = "*" + typ
		}
		fmt.Fprintf(&b, "func (%s) M%d() {}\n", recv, i)
	}
	return b.String()
}

// writeTree writes the files (path -> source) under a new temporary directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for path, src := range files {
		full := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCheckTree(t *testing.T) {
	root := writeTree(t, map[string]string{
		"p/a.go": "package p\n\n" +
			"type fits struct{}\n" + methods("fits", 0, 5) +
			"type fifteen struct{}\n" + methods("fifteen", 0, 15) +
			"type many struct{}\n" + methods("many", 0, 16) +
			"//methods:many one state machine\ntype allowed struct{}\n" + methods("allowed", 0, 16) +
			"//methods:many\ntype noReason struct{}\n" + methods("noReason", 0, 16) +
			"//methods:many stale reason\ntype stale struct{}\n" + methods("stale", 0, 15) +
			"// methods:many is prose here, not the directive\ntype prose struct{}\n" + methods("prose", 0, 16) +
			"type (\n\t//methods:many grouped\n\tgrouped struct{}\n\tother int\n)\n" + methods("grouped", 0, 16) +
			"type spread struct{}\n" + methods("spread", 0, 8) +
			"type variants struct{}\n" + methods("variants", 0, 15) +
			"type generic[K comparable, V any] struct{}\n" + methods("generic[K, V]", 0, 16),
		// Methods in another file of the package count; a build variant's duplicates do not.
		"p/b.go":      "package p\n\n" + methods("spread", 8, 8) + methods("variants", 0, 15),
		"p/a_test.go": "package p\n\n" + methods("fits", 100, 20),
		// The same name in another folder is another type.
		"q/a.go": "package q\n\ntype many struct{}\n" + methods("many", 0, 3),
	})
	found, err := checkTree(root, 15)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range found {
		got[f.name] = fmt.Sprintf("%s %d: %s", filepath.Base(f.dir), f.methods, f.why)
	}
	want := map[string]string{
		"p.many":     "p 16: over 15 methods",
		"p.noReason": "p 16: //methods:many needs a reason",
		"p.stale":    "p 15: fits in 15 methods",
		"p.prose":    "p 16: over 15 methods",
		"p.spread":   "p 16: over 15 methods",
		"p.generic":  "p 16: over 15 methods",
	}
	if len(got) != len(want) {
		t.Errorf("findings %v, want the types %v", got, want)
	}
	for name, part := range want {
		if !strings.Contains(got[name], part) {
			t.Errorf("%s: got %q, want it to say %q", name, got[name], part)
		}
	}
}
