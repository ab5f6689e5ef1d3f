// Command funclen fails when a Go function in the given directories is longer than the limit
// (80 lines, declaration to closing brace, test files included). A function may be longer only
// when its doc comment carries the directive "//funclen:long <why>": the reason stays beside
// the code, and a directive on a function that fits is reported, so none goes stale.
//
// Usage: go run ./scripts/funclen [-max N] dir...
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"

	"github.com/bindrace/bindrace/scripts/internal/golint"
)

const directive = "//funclen:long"

// finding is one function that breaks the rule.
type finding struct {
	pos   token.Position
	name  string
	lines int
	why   string
}

func (f finding) String() string {
	return fmt.Sprintf("%s:%d: %s: %d lines: %s", f.pos.Filename, f.pos.Line, f.name, f.lines, f.why)
}

func main() {
	limit := flag.Int("max", 80, "longest allowed function, in lines")
	flag.Parse()
	golint.Main("funclen", flag.Args(), func(dir string) ([]finding, error) { return checkTree(dir, *limit) },
		fmt.Sprintf("funclen: no function over %d lines without %s", *limit, directive))
}

// checkTree checks every .go file under dir.
func checkTree(dir string, limit int) ([]finding, error) {
	var out []finding
	err := golint.Files{Tests: true, Mode: parser.ParseComments}.Walk(dir, func(fset *token.FileSet, _ string, file *ast.File) error {
		out = append(out, checkFile(fset, file, limit)...)
		return nil
	})
	return out, err
}

// checkFile returns the functions of one parsed file that break the rule.
func checkFile(fset *token.FileSet, file *ast.File, limit int) []finding {
	var out []finding
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		start := fset.Position(fn.Pos())
		lines := fset.Position(fn.End()).Line - start.Line + 1
		marked, reason := golint.Directive(fn.Doc, directive)
		f := finding{pos: start, name: fn.Name.Name, lines: lines}
		switch {
		case marked && reason == "":
			f.why = directive + " needs a reason"
		case marked && lines <= limit:
			f.why = fmt.Sprintf("fits in %d lines: remove %s", limit, directive)
		case !marked && lines > limit:
			f.why = fmt.Sprintf("over %d lines: split it, or say why it is one function with %s <why>", limit, directive)
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}
