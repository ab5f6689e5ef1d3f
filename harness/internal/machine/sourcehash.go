package machine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// skipDirs are the directories the source hash leaves out: installed modules and build output.
var skipDirs = map[string]bool{"node_modules": true, "dist": true, ".git": true, "build": true, "bin": true, "results": true}

// SourceHash is the project's one source hash, the same as scripts/source-hash.sh (which the
// Makefile and the build manifests use; a test holds the two equal): the SHA-256 of the
// listing `sha256sum` prints ("<sha256>  <path>\n" a file) for every regular file under the
// dirs (relative to root), sorted by path as bytes, skipping node_modules, dist, .git, build,
// bin and results. It returns "" when the dirs hold no file.
func SourceHash(root string, dirs ...string) (string, error) {
	var files []string
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil && p == filepath.Join(root, dir) && os.IsNotExist(err):
				return filepath.SkipDir
			case err != nil:
				return err
			case d.IsDir() && skipDirs[d.Name()]:
				return filepath.SkipDir
			case d.Type().IsRegular():
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				files = append(files, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	if len(files) == 0 {
		return "", nil
	}
	sort.Strings(files)
	listing := sha256.New()
	for _, rel := range files {
		sum, err := FileSHA256(filepath.Join(root, rel))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(listing, "%s%s  %s\n", sumPrefix(rel), sum, sumName(rel))
	}
	return hex.EncodeToString(listing.Sum(nil)), nil
}

// FileSHA256 is the SHA-256 of a file's contents, in hex (a line of sha256sum).
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sumPrefix and sumName escape a name as sha256sum does: a line whose name holds a backslash,
// newline or carriage return starts with a backslash, and those characters are escaped.
func sumPrefix(name string) string {
	if strings.ContainsAny(name, "\\\n\r") {
		return "\\"
	}
	return ""
}

func sumName(name string) string {
	return strings.NewReplacer("\\", "\\\\", "\n", "\\n", "\r", "\\r").Replace(name)
}
