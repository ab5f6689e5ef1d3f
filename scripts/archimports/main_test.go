package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The table is read from the repository's root, where the lint runs.
func atRoot(t *testing.T) string {
	t.Helper()
	t.Chdir("../..")
	doc, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(doc)
}

func problemsOf(t *testing.T, doc string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ARCHITECTURE.md")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	documented, err := readTable(path)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := compare(documented)
	if err != nil {
		t.Fatal(err)
	}
	return problems
}

// Each way the table can drift is caught: an import left out, one too many, a sub-folder's
// list after its semicolon, and a package with no row.
func TestTableThatLies(t *testing.T) {
	doc := atRoot(t)
	for _, c := range []struct{ name, old, new, want string }{
		{"an import left out", "internal/round, internal/strictjson, load, profile", "internal/round, load, profile", "harness/measure/:"},
		{"an import it does not have", "| internal/procfs, scenario |", "| internal/procfs, scenario, gate |", "harness/setting/:"},
		{"a sub-folder's list", "netnstest: — |", "netnstest: internal/machine |", "harness/remote/netnstest/:"},
		{"no row", "| `harness/internal/wstest/` |", "| `harness/internal/wstest-gone/` |", "harness/internal/wstest/: no row"},
	} {
		if !strings.Contains(doc, c.old) {
			t.Fatalf("%s: ARCHITECTURE.md no longer holds %q; update the test", c.name, c.old)
		}
		problems := problemsOf(t, strings.Replace(doc, c.old, c.new, 1))
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, c.want) }) {
			t.Errorf("%s: problems %q, want one starting %q", c.name, problems, c.want)
		}
	}
}

func TestParseList(t *testing.T) {
	t.Chdir("../..")
	got := parseList(" internal/child, binding, internal/procfs (and pgx), — ")
	if want := []string{"harness/internal/child", "harness/internal/procfs"}; !slices.Equal(got, want) {
		t.Errorf("parseList = %q, want %q", got, want)
	}
}
