// Package golint is what the repository's Go lints (scripts/funclen, scripts/methodcount,
// scripts/domainflags) share: a walk over a tree's Go files, parsed, and the way a lint ends.
package golint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Files says which files of a tree a lint reads.
type Files struct {
	Tests   bool            // _test.go files too
	SkipDir map[string]bool // folders left out with all below them, by name (testdata, cmd)
	Mode    parser.Mode     // what to parse (parser.ParseComments for the directives)
}

// Walk parses every Go file under dir that f selects, in walk order, and hands it to visit.
func (f Files) Walk(dir string, visit func(fset *token.FileSet, path string, file *ast.File) error) error {
	fset := token.NewFileSet()
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && f.SkipDir[d.Name()] && path != dir:
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || !f.Tests && strings.HasSuffix(path, "_test.go"):
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, f.Mode)
		if err != nil {
			return err
		}
		return visit(fset, path, file)
	})
}

// Main runs a lint over the folders given: check returns each folder's problems, each printed
// as a line. They go to stderr and the exit status is 1; none: clean is printed and the status
// is 0. A folder that cannot be read is exit status 2.
func Main[P fmt.Stringer](name string, dirs []string, check func(dir string) ([]P, error), clean string) {
	if len(dirs) == 0 {
		fmt.Fprintf(os.Stderr, "usage: %s dir...\n", name)
		os.Exit(2)
	}
	var problems []P
	for _, dir := range dirs {
		found, err := check(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(2)
		}
		problems = append(problems, found...)
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
	fmt.Println(clean)
}

// Directive reports whether a doc comment carries the directive (a line "//name:word <why>"),
// and its reason: how a lint lets a declaration break its rule with the why beside the code.
func Directive(doc *ast.CommentGroup, directive string) (bool, string) {
	if doc == nil {
		return false, ""
	}
	for _, c := range doc.List {
		if rest, ok := strings.CutPrefix(c.Text, directive); ok && (rest == "" || rest[0] == ' ') {
			return true, strings.TrimSpace(rest)
		}
	}
	return false, ""
}
