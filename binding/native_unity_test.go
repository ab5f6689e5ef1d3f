package binding

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
)

// native_unity.cc is what `go get` users compile: it must include exactly the translation units
// of native/src (which the Makefile builds by wildcard), or an untagged build silently misses
// a new source file or includes a deleted one.
func TestNativeUnityListsEverySource(t *testing.T) {
	text, err := os.ReadFile("native_unity.cc")
	if err != nil {
		t.Fatal(err)
	}
	included := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#include "\.\./native/src/([^"/]+\.cc)"$`).FindAllStringSubmatch(string(text), -1) {
		if included[m[1]] {
			t.Errorf("native_unity.cc includes %s twice", m[1])
		}
		included[m[1]] = true
	}
	paths, err := filepath.Glob("../native/src/*.cc")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no ../native/src/*.cc found")
	}
	var missing []string
	for _, p := range paths {
		name := filepath.Base(p)
		if !included[name] {
			missing = append(missing, name)
		}
		delete(included, name)
	}
	var extra []string
	for name := range included {
		extra = append(extra, name)
	}
	sort.Strings(extra)
	for _, name := range missing {
		t.Errorf("native_unity.cc does not include native/src/%s: add #include \"../native/src/%s\"", name, name)
	}
	for _, name := range extra {
		t.Errorf("native_unity.cc includes ../native/src/%s, which does not exist", name)
	}
}
