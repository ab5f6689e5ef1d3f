// Command domainflags fails when a domain package names a command-line flag: a string literal
// in a non-test .go file under the given directories, cmd/* left out (the CLI owns its flags),
// holding "--" and a letter. Domain packages name bad input by its setting
// (setting.Error, which the CLI words as its flag) and stored text by the profile key or the
// setting in words (ARCHITECTURE.md). Comments are not read. A literal that is one flag and
// nothing else ("--port", "--log-file=" + path) is an argument passed to a program, not a
// message, and passes. The allowlist below names the rest that may stay, each with why; an
// entry nothing uses is reported too.
//
// Usage, from the repository's root (the allowlist's paths start there):
//
//	go run ./scripts/domainflags harness
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/bindrace/bindrace/scripts/internal/golint"
)

// allowed are the literals that may name a flag, by file (slash-separated, from the
// repository's root) and flag, with why.
var allowed = map[string]map[string]string{
	// A command line of another program quoted in a message or a script: its flag, not ours.
	"harness/db/cluster.go":             {"--version": "postgres --version, named in its errors"},
	"harness/counters/valgrindcheck.go": {"--version": "valgrind --version, named in its error"},
	"harness/remote/facts.go":           {"--version": "node --version, in the shell script run on a host"},
	"harness/targets/target.go": {
		"--port":       "BINDRACE_REFERENCE's example: the reference server's own flag",
		"--build-info": "the server binary's --build-info, named in its error",
	},
}

// flagRe finds a flag in a literal: "--" and a letter, not inside a word or a run of dashes.
var flagRe = regexp.MustCompile(`(?:^|[^-\w])(--[a-zA-Z][a-zA-Z0-9-]*)`)

// argRe is a literal that is one argument of a command line: a flag, and its value after "=".
var argRe = regexp.MustCompile(`^--[a-zA-Z][a-zA-Z0-9-]*(=.*)?$`)

// finding is one flag a literal names.
type finding struct {
	pos  token.Position
	flag string
	text string
}

func (f finding) String() string {
	return fmt.Sprintf("%s:%d: names the flag %s in %q", f.pos.Filename, f.pos.Line, f.flag, f.text)
}

func main() {
	used := map[[2]string]bool{}
	var dirs int
	golint.Main("domainflags", os.Args[1:], func(dir string) ([]problem, error) {
		found, err := checkTree(dir)
		var out []problem
		for _, f := range found {
			file := filepath.ToSlash(f.pos.Filename)
			if _, ok := allowed[file][f.flag]; ok {
				used[[2]string{file, f.flag}] = true
				continue
			}
			out = append(out, problem(fmt.Sprintf("%s: name the setting ({name} in a setting.Error, or the profile key in words)", f)))
		}
		// After the last folder, the allowlist's entries none of them used.
		if dirs++; dirs == len(os.Args)-1 {
			for _, s := range stale(used) {
				out = append(out, problem(s+": allowlisted but not found: remove it from the allowlist"))
			}
		}
		return out, err
	}, "domainflags: no domain package names a flag outside the allowlist")
}

// problem is one line the lint prints.
type problem string

func (p problem) String() string { return string(p) }

// stale are the allowlist's entries no literal used, as "file: flag", sorted.
func stale(used map[[2]string]bool) []string {
	var out []string
	for file, flags := range allowed {
		for flag := range flags {
			if !used[[2]string{file, flag}] {
				out = append(out, file+": "+flag)
			}
		}
	}
	sort.Strings(out)
	return out
}

// checkTree checks every non-test .go file under dir, cmd/* (the front ends) and testdata left
// out.
func checkTree(dir string) ([]finding, error) {
	var out []finding
	files := golint.Files{SkipDir: map[string]bool{"testdata": true, "cmd": true}, Mode: parser.SkipObjectResolution}
	err := files.Walk(dir, func(fset *token.FileSet, _ string, file *ast.File) error {
		out = append(out, checkFile(fset, file)...)
		return nil
	})
	return out, err
}

// checkFile returns every flag a string literal of file names.
func checkFile(fset *token.FileSet, file *ast.File) []finding {
	var out []finding
	ast.Inspect(file, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil || argRe.MatchString(s) {
			return true
		}
		for _, m := range flagRe.FindAllStringSubmatch(s, -1) {
			out = append(out, finding{pos: fset.Position(lit.Pos()), flag: m[1], text: s})
		}
		return true
	})
	return out
}
