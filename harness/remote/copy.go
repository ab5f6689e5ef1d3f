package remote

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// CopyResult says what a copy did.
type CopyResult struct {
	Path    string // the destination on the host
	Files   int    // regular files in the source
	Copied  int    // files brought up to date on the host: their content sent, or their mode set
	Skipped int    // files already the same on the host (content and mode)
	Removed int    // entries on the host the source directory no longer has (each file, link, directory)
	Bytes   int64  // the content sent: the sizes of the files whose content differed
}

// Copy puts a local file or directory tree at name inside the session directory on h (name ""
// is the local base name) and returns what it did. It runs rsync over the session's ssh (the
// same config file and options, the host's lifeline connection shared), so content decides
// what travels (a file already there is not sent again), a file arrives under a temporary
// name and is renamed into place (a binary running there can be replaced), and a tree is
// mirrored: symlinks stay symlinks, as node_modules needs, and entries the source lacks are
// removed. The host needs rsync.
func (s *Session) Copy(ctx context.Context, h Host, local, name string) (CopyResult, error) {
	if name == "" {
		name = filepath.Base(local)
	}
	op := "copy " + local
	if err := checkRelative(name); err != nil {
		return CopyResult{}, &Error{Host: h, Op: op, Kind: err, ExitCode: -1}
	}
	fi, err := os.Stat(local)
	if err != nil {
		return CopyResult{}, &Error{Host: h, Op: op, Kind: err, ExitCode: -1}
	}
	res := CopyResult{Path: s.Path(name)}
	src, dest := local, res.Path
	switch {
	case fi.Mode().IsRegular():
		res.Files = 1
	case fi.IsDir():
		if res.Files, err = countFiles(local); err != nil {
			return res, &Error{Host: h, Op: op, Kind: err, ExitCode: -1}
		}
		src, dest = local+"/", dest+"/" // the tree's contents into dest, not dest/<base name>
	default:
		return res, &Error{Host: h, Op: op, Kind: fmt.Errorf("%s is neither a regular file nor a directory", local), ExitCode: -1}
	}
	if err := s.Open(ctx, h); err != nil {
		return res, err
	}
	out, err := s.r.rsync(ctx, h, op, src, dest, s.mux(h)...)
	if err != nil {
		return res, err
	}
	return res, res.itemized(out)
}

// checkRelative accepts a clean relative slash path that stays inside the session directory.
func checkRelative(name string) error {
	if name == "" || path.IsAbs(name) || path.Clean(name) != name || name == "." || name == ".." ||
		strings.HasPrefix(name, "../") || strings.ContainsAny(name, "\x00\n") || strings.HasPrefix(name, ".bindrace") {
		return fmt.Errorf("destination %q: want a clean relative path inside the session directory", name)
	}
	return nil
}

// countFiles counts the regular files under root.
func countFiles(root string) (int, error) {
	n := 0
	err := filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return err
	})
	return n, err
}

// itemized reads rsync's "%i %l %n" lines into r: a file line ("<f…": content sent to the
// host, ".f…": mode set) is a file copied, "*deleting" an entry removed.
func (r *CopyResult) itemized(out []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		changes, rest, _ := strings.Cut(sc.Text(), " ")
		size, _, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
		switch {
		case changes == "*deleting":
			r.Removed++
		case len(changes) == 11 && changes[1] == 'f':
			r.Copied++
			if changes[0] == '<' {
				n, err := strconv.ParseInt(size, 10, 64)
				if err != nil {
					return fmt.Errorf("copy to %s: rsync said %q", r.Path, sc.Text())
				}
				r.Bytes += n
			}
		}
	}
	r.Skipped = r.Files - r.Copied
	return sc.Err()
}
