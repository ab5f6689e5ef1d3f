package main

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// body returns a function of n lines in all.
func body(name string, n int) string {
	return "func " + name + "() {\n" + strings.Repeat("\t_ = 0\n", n-2) + "}\n"
}

func TestCheckFile(t *testing.T) {
	src := "package p\n\n" +
		body("short", 5) +
		body("long", 6) +
		"//funclen:long one state machine\n" + body("allowedLong", 6) +
		"//funclen:long\n" + body("noReason", 6) +
		"//funclen:long stale reason\n" + body("staleMark", 3) +
		"// funclen:long is prose here, not the directive\n" + body("prose", 6)
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range checkFile(fset, file, 5) {
		got[f.name] = f.why
	}
	want := map[string]string{
		"long":      "over 5 lines",
		"noReason":  "needs a reason",
		"staleMark": "fits in 5 lines",
		"prose":     "over 5 lines",
	}
	if len(got) != len(want) {
		t.Errorf("findings %v, want the functions %v", got, want)
	}
	for name, part := range want {
		if !strings.Contains(got[name], part) {
			t.Errorf("%s: got %q, want it to say %q", name, got[name], part)
		}
	}
}
