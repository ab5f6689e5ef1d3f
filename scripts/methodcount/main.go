// Command methodcount fails when a named type in the given directories has more than the limit
// of methods (15; value and pointer receivers together, counted over the type's package, test
// files left out). A type may have more only when the doc comment of its declaration carries
// the directive "//methods:many <why>": the reason stays beside the type, and a directive on a
// type that fits is reported, so none goes stale.
//
// A method name counts once per type: files of other build variants (link_release.go and
// link_plain.go, say) that define the same method do not count it twice.
//
// Usage: go run ./scripts/methodcount [-max N] dir...
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"

	"github.com/bindrace/bindrace/scripts/internal/golint"
)

const directive = "//methods:many"

// finding is one type that breaks the rule.
type finding struct {
	pos     token.Position // the type's declaration, or its first method if it is declared elsewhere
	dir     string         // the package folder
	name    string         // package.Type
	methods int
	why     string
}

func (f finding) String() string {
	return fmt.Sprintf("%s:%d: %s (%s): %d methods: %s", f.pos.Filename, f.pos.Line, f.name, f.dir, f.methods, f.why)
}

// typeInfo is what one package says about one named type.
type typeInfo struct {
	decl    token.Position // zero if no file of the package declares it
	marked  bool
	reason  string
	methods map[string]token.Position // method name -> its first definition
}

// pkg is the non-test files of one folder.
type pkg struct {
	name  string
	types map[string]*typeInfo
}

func main() {
	limit := flag.Int("max", 15, "most methods allowed on a type")
	flag.Parse()
	golint.Main("methodcount", flag.Args(), func(dir string) ([]finding, error) { return checkTree(dir, *limit) },
		fmt.Sprintf("methodcount: no type with over %d methods without %s", *limit, directive))
}

// checkTree checks every package folder under dir.
func checkTree(dir string, limit int) ([]finding, error) {
	pkgs := map[string]*pkg{}
	err := golint.Files{Mode: parser.ParseComments}.Walk(dir, func(fset *token.FileSet, path string, file *ast.File) error {
		folder := filepath.Dir(path)
		p := pkgs[folder]
		if p == nil {
			p = &pkg{name: file.Name.Name, types: map[string]*typeInfo{}}
			pkgs[folder] = p
		}
		p.add(fset, file)
		return nil
	})
	if err != nil {
		return nil, err
	}
	folders := make([]string, 0, len(pkgs))
	for folder := range pkgs {
		folders = append(folders, folder)
	}
	sort.Strings(folders)
	var out []finding
	for _, folder := range folders {
		out = append(out, pkgs[folder].check(folder, limit)...)
	}
	return out, nil
}

// typ returns the record of the named type, making it on first use.
func (p *pkg) typ(name string) *typeInfo {
	t := p.types[name]
	if t == nil {
		t = &typeInfo{methods: map[string]token.Position{}}
		p.types[name] = t
	}
	return t
}

// add records the type declarations and methods of one parsed file.
func (p *pkg) add(fset *token.FileSet, file *ast.File) {
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			if d.Tok != token.TYPE {
				continue
			}
			for _, spec := range d.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(d.Specs) == 1 {
					doc = d.Doc // `type T struct` alone: the comment belongs to the GenDecl
				}
				t := p.typ(ts.Name.Name)
				t.decl = fset.Position(ts.Pos())
				t.marked, t.reason = golint.Directive(doc, directive)
			}
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) == 0 {
				continue
			}
			t := p.typ(receiverName(d.Recv.List[0].Type))
			if _, seen := t.methods[d.Name.Name]; !seen {
				t.methods[d.Name.Name] = fset.Position(d.Pos())
			}
		}
	}
}

// check returns the package's types that break the rule, in name order.
func (p *pkg) check(folder string, limit int) []finding {
	names := make([]string, 0, len(p.types))
	for name := range p.types {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []finding
	for _, name := range names {
		t := p.types[name]
		n := len(t.methods)
		f := finding{pos: t.where(), dir: filepath.ToSlash(folder), name: p.name + "." + name, methods: n}
		switch {
		case t.marked && t.reason == "":
			f.why = directive + " needs a reason"
		case t.marked && n <= limit:
			f.why = fmt.Sprintf("fits in %d methods: remove %s", limit, directive)
		case !t.marked && n > limit:
			f.why = fmt.Sprintf("over %d methods: split the type, or say why it is one with %s <why>", limit, directive)
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}

// where is the type's declaration, or else its first method in file order.
func (t *typeInfo) where() token.Position {
	if t.decl.IsValid() {
		return t.decl
	}
	var first token.Position
	for _, pos := range t.methods {
		if !first.IsValid() || pos.Filename < first.Filename ||
			pos.Filename == first.Filename && pos.Line < first.Line {
			first = pos
		}
	}
	return first
}

// receiverName is the type name of a receiver: T, *T, T[K] and *T[K, V] all give T.
func receiverName(expr ast.Expr) string {
	for {
		switch e := expr.(type) {
		case *ast.StarExpr:
			expr = e.X
		case *ast.ParenExpr:
			expr = e.X
		case *ast.IndexExpr:
			expr = e.X
		case *ast.IndexListExpr:
			expr = e.X
		case *ast.Ident:
			return e.Name
		default:
			return fmt.Sprintf("%T", e) // not valid Go; the compiler will say so
		}
	}
}
