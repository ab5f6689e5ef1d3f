// Command archimports fails when ARCHITECTURE.md's tree table says a harness folder imports
// other than what its non-test Go files import. The table's last column lists the repository's
// own packages without their "harness/" prefix ("—" for none); a row naming a folder and its
// sub-folder ("`harness/remote/`, `harness/remote/netnstest/`") gives the sub-folder's list
// after a semicolon ("internal/procfs; netnstest: —"). Packages outside harness/ (binding, the
// native core) are the table's prose, not checked. A harness package with no row is reported
// too: the table is the map a newcomer reads first.
//
// Usage, from the repository's root:
//
//	go run ./scripts/archimports ARCHITECTURE.md
package main

import (
	"bufio"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

const module = "github.com/bindrace/bindrace/"

// rowPaths finds the folders a row's first cell names.
var rowPaths = regexp.MustCompile("`(harness/[a-z/_-]+)/`")

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: archimports ARCHITECTURE.md")
		os.Exit(2)
	}
	documented, err := readTable(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "archimports:", err)
		os.Exit(2)
	}
	problems, err := compare(documented)
	if err != nil {
		fmt.Fprintln(os.Stderr, "archimports:", err)
		os.Exit(2)
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
	fmt.Println("archimports: every harness folder's imports are the table's")
}

// readTable returns each documented folder's imports, as harness-relative package paths.
func readTable(path string) (map[string][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	documented := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`harness/") {
			continue
		}
		folders := rowPaths.FindAllStringSubmatch(cells[1], -1)
		lists := strings.Split(cells[len(cells)-2], ";")
		for i, m := range folders {
			if i >= len(lists) {
				return nil, fmt.Errorf("%s: the row of %s gives no imports for %s", path, folders[0][1], m[1])
			}
			list := lists[i]
			if i > 0 { // "netnstest: —": the sub-folder's list after its name
				_, list, _ = strings.Cut(list, ":")
			}
			documented[m[1]] = parseList(list)
		}
	}
	return documented, sc.Err()
}

func parseList(list string) []string {
	var pkgs []string
	for _, p := range strings.Split(list, ",") {
		p, _, _ = strings.Cut(strings.TrimSpace(p), " (") // "internal/procfs (and pgx)"
		if p == "" || p == "—" {
			continue
		}
		if _, err := os.Stat(filepath.Join("harness", p)); err == nil { // not binding, native/src
			pkgs = append(pkgs, "harness/"+p)
		}
	}
	slices.Sort(pkgs)
	return pkgs
}

// compare walks harness/ and returns a line for every folder whose imports differ from the
// table's, and for every package folder the table leaves out.
func compare(documented map[string][]string) ([]string, error) {
	var problems []string
	err := filepath.WalkDir("harness", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" || d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(dir, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		} else if err != nil {
			return err
		}
		var own []string
		for _, imp := range pkg.Imports {
			if rel, ok := strings.CutPrefix(imp, module); ok && strings.HasPrefix(rel, "harness/") {
				own = append(own, rel)
			}
		}
		slices.Sort(own)
		want, ok := documented[dir]
		switch {
		case !ok && !covered(dir, documented):
			problems = append(problems, fmt.Sprintf("%s/: no row in the table", dir))
		case ok && !slices.Equal(own, want):
			problems = append(problems, fmt.Sprintf("%s/: the table says it imports %s; it imports %s",
				dir, words(want), words(own)))
		}
		return nil
	})
	return problems, err
}

// covered says whether a folder without a row of its own sits under one that has one (a
// server's template under targets/): its parent's row describes it.
func covered(dir string, documented map[string][]string) bool {
	for parent := filepath.Dir(dir); parent != "." && parent != "harness"; parent = filepath.Dir(parent) {
		if _, ok := documented[parent]; ok {
			return true
		}
	}
	return false
}

func words(pkgs []string) string {
	if len(pkgs) == 0 {
		return "nothing of the harness"
	}
	return strings.Join(pkgs, ", ")
}
