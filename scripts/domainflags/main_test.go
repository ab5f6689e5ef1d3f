package main

import (
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

func TestCheckFile(t *testing.T) {
	src := "package p\n\n" +
		"// A comment may name --rate.\n" +
		"var (\n" +
		"\tmsg   = \"choose another --out\"\n" +
		"\targv  = []string{\"--port\", \"8080\", \"--log-file=\" + \"x\", \"--out-format=%i %n\"}\n" +
		"\tboth  = `race with --counters cachegrind, --rate-fraction 0.5`\n" +
		"\trule  = \"----- --9 a--b -x\"\n" +
		"\twords = \"race with counters \\\"cachegrind\\\"\"\n" +
		")\n"
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range checkFile(fset, file) {
		got = append(got, f.flag)
		if f.pos.Line < 5 {
			t.Errorf("%s: a comment read as a literal", f)
		}
	}
	if want := []string{"--out", "--counters", "--rate-fraction"}; !slices.Equal(got, want) {
		t.Errorf("flags found %q, want %q", got, want)
	}
}

// An allowlist entry no literal uses is reported, so none outlives the text it allowed.
func TestStale(t *testing.T) {
	used := map[[2]string]bool{}
	for file, flags := range allowed {
		for flag := range flags {
			used[[2]string{file, flag}] = true
		}
	}
	if s := stale(used); len(s) != 0 {
		t.Errorf("stale with every entry used: %q", s)
	}
	delete(used, [2]string{"harness/db/cluster.go", "--version"})
	if s := stale(used); !slices.Equal(s, []string{"harness/db/cluster.go: --version"}) {
		t.Errorf("stale %q, want the one entry not used", s)
	}
}
