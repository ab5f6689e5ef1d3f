package remote

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/bindrace/bindrace/harness/internal/machine"
)

// CopyResult says what a copy did.
type CopyResult struct {
	Path    string // the destination on the host
	Files   int    // regular files in the source
	Copied  int    // files sent
	Skipped int    // files whose sha256 and mode already matched on the host
	Removed int    // entries on the host the source directory no longer has
	Bytes   int64  // file content sent
}

// Copy puts a local file or directory tree at name inside the session directory on h
// (name "" is the local base name) and returns where it went. A file whose sha256 and mode
// already match on the host is not sent again. A file goes with scp to a temporary name, is
// checked by sha256 on the host and renamed into place (so a binary that is running there
// can be replaced). A directory is mirrored: the host's listing with sha256 sums is compared
// with the source, and only what differs travels, as one tar stream over ssh (symlinks stay
// symlinks, as node_modules needs); entries the source lacks are removed.
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
	if err := s.Open(ctx, h); err != nil {
		return CopyResult{}, err
	}
	res := CopyResult{Path: s.Path(name)}
	switch {
	case fi.Mode().IsRegular():
		return res, s.copyFile(ctx, h, op, local, fi, &res)
	case fi.IsDir():
		return res, s.copyTree(ctx, h, op, local, &res)
	default:
		return res, &Error{Host: h, Op: op, Kind: fmt.Errorf("%s is neither a regular file nor a directory", local), ExitCode: -1}
	}
}

// checkRelative accepts a clean relative slash path that stays inside the session directory.
func checkRelative(name string) error {
	if name == "" || path.IsAbs(name) || path.Clean(name) != name || name == "." || name == ".." ||
		strings.HasPrefix(name, "../") || strings.ContainsAny(name, "\x00\n") || strings.HasPrefix(name, ".bindrace") {
		return fmt.Errorf("destination %q: want a clean relative path inside the session directory", name)
	}
	return nil
}

const fileCheckScript = `
d=@DEST@
mkdir -p @PARENT@ || exit 1
if [ -f "$d" ] && [ ! -L "$d" ]; then sha256sum <"$d" | cut -c1-64; stat -c %a "$d"; fi
`

const fileFinishScript = `
t=@TMP@; d=@DEST@
h=$(sha256sum <"$t" | cut -c1-64)
if [ "$h" != @SUM@ ]; then rm -f "$t"; echo "sha256 on the host is $h after the copy, want "@SUM@ >&2; exit 1; fi
chmod @MODE@ "$t" || exit 1
if [ -d "$d" ] && [ ! -L "$d" ]; then rm -rf "$d"; fi
mv -f "$t" "$d"
`

func (s *Session) copyFile(ctx context.Context, h Host, op, local string, fi fs.FileInfo, res *CopyResult) error {
	res.Files = 1
	sum, err := machine.FileSHA256(local)
	if err != nil {
		return &Error{Host: h, Op: op, Kind: err, ExitCode: -1}
	}
	mode := strconv.FormatUint(uint64(fi.Mode().Perm()), 8)
	out, err := s.run(ctx, h, op, fill(fileCheckScript, "DEST", Quote(res.Path), "PARENT", Quote(path.Dir(res.Path))), nil)
	if err != nil {
		return err
	}
	if f := strings.Fields(string(out)); len(f) == 2 && f[0] == sum && f[1] == mode {
		res.Skipped = 1
		return nil
	}
	tmp := fmt.Sprintf("%s.bindrace-tmp-%06x", res.Path, rand.N(1<<24))
	if err := s.r.scp(ctx, h, op, local, tmp, s.mux(h)...); err != nil {
		s.run(context.WithoutCancel(ctx), h, op, "rm -f "+Quote(tmp), nil)
		return err
	}
	_, err = s.run(ctx, h, op, fill(fileFinishScript, "TMP", Quote(tmp), "DEST", Quote(res.Path), "SUM", sum, "MODE", mode), nil)
	if err != nil {
		return err
	}
	res.Copied, res.Bytes = 1, fi.Size()
	return nil
}

// entry is one node of a tree: a directory ('d'), regular file ('f') or symlink ('l').
type entry struct {
	kind   byte
	mode   string // permission bits in octal, as find's %m prints them
	sum    string // sha256 of a file
	target string // a symlink's target
	size   int64
}

func localTree(root string) (map[string]entry, []string, error) {
	tree := map[string]entry{}
	var order []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{mode: strconv.FormatUint(uint64(fi.Mode().Perm()), 8), size: fi.Size()}
		switch {
		case fi.IsDir():
			e.kind = 'd'
		case fi.Mode()&fs.ModeSymlink != 0:
			e.kind, e.mode = 'l', ""
			if e.target, err = os.Readlink(p); err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			e.kind = 'f'
			if e.sum, err = machine.FileSHA256(p); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: not a file, directory or symlink", p)
		}
		if strings.ContainsAny(rel, "\x00") {
			return fmt.Errorf("%q: NUL in a file name", p)
		}
		tree[rel] = e
		order = append(order, rel)
		return nil
	})
	return tree, order, err
}

// treeListScript prints the destination tree: NUL-separated records "d\tMODE\tPATH",
// "f\tMODE\tPATH", "l\tPATH" followed by the link's target, "x\t0\tPATH" for anything else, then
// sha256sum's "SUM  ./PATH" for every file.
const treeListScript = `
d=@DEST@
if [ -e "$d" ] || [ -L "$d" ]; then if [ ! -d "$d" ] || [ -L "$d" ]; then rm -rf "$d"; fi; fi
mkdir -p "$d" && cd "$d" || exit 1
find . -mindepth 1 \( -type d -printf 'd\t%m\t%P\0' \) -o \( -type l -printf 'l\t%P\0%l\0' \) -o \( -type f -printf 'f\t%m\t%P\0' \) -o -printf 'x\t0\t%P\0'
find . -mindepth 1 -type f -exec sha256sum -z -- {} +
`

func parseRemoteTree(out []byte) (map[string]entry, error) {
	tree := map[string]entry{}
	sums := map[string]string{}
	toks := strings.Split(string(out), "\x00")
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t == "" {
			continue
		}
		if len(t) > 68 && t[64:68] == "  ./" && isHex(t[:64]) {
			sums[t[68:]] = t[:64]
			continue
		}
		kind, rest, ok := strings.Cut(t, "\t")
		if !ok || len(kind) != 1 {
			return nil, fmt.Errorf("unexpected listing record %q", t)
		}
		switch kind[0] {
		case 'l':
			if i+1 >= len(toks) {
				return nil, fmt.Errorf("symlink %q without a target", rest)
			}
			tree[rest] = entry{kind: 'l', target: toks[i+1]}
			i++
		case 'd', 'f', 'x':
			mode, p, ok := strings.Cut(rest, "\t")
			if !ok {
				return nil, fmt.Errorf("unexpected listing record %q", t)
			}
			tree[p] = entry{kind: kind[0], mode: mode}
		default:
			return nil, fmt.Errorf("unexpected listing record %q", t)
		}
	}
	for p, sum := range sums {
		if e, ok := tree[p]; ok && e.kind == 'f' {
			e.sum = sum
			tree[p] = e
		}
	}
	return tree, nil
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

func (s *Session) copyTree(ctx context.Context, h Host, op, local string, res *CopyResult) error {
	tree, order, err := localTree(local)
	if err != nil {
		return &Error{Host: h, Op: op, Kind: err, ExitCode: -1}
	}
	out, err := s.run(ctx, h, op, fill(treeListScript, "DEST", Quote(res.Path)), nil)
	if err != nil {
		return err
	}
	remote, err := parseRemoteTree(out)
	if err != nil {
		return &Error{Host: h, Op: op, Kind: ErrCommand, ExitCode: -1, Detail: "listing " + res.Path + ": " + err.Error()}
	}

	var send, remove []string
	for _, rel := range order {
		l := tree[rel]
		if l.kind == 'f' {
			res.Files++
		}
		r, ok := remote[rel]
		switch {
		case ok && r.kind == l.kind && l.kind == 'f' && r.sum == l.sum && r.mode == l.mode:
			res.Skipped++
			continue
		case ok && r.kind == l.kind && l.kind == 'l' && r.target == l.target:
			continue
		case ok && r.kind == l.kind && l.kind == 'd' && r.mode == l.mode:
			continue
		case ok && (r.kind != l.kind || l.kind == 'l'):
			remove = append(remove, rel) // a different kind of entry, or a symlink to re-point
		}
		send = append(send, rel)
	}
	for rel := range remote {
		if _, ok := tree[rel]; !ok && !underAny(rel, remote, tree) {
			remove = append(remove, rel)
		}
	}
	sort.Strings(remove)
	res.Removed = len(remove)
	if len(remove) > 0 {
		var list bytes.Buffer
		for _, rel := range remove {
			list.WriteString("./" + rel + "\x00")
		}
		if _, err := s.run(ctx, h, op, "cd "+Quote(res.Path)+" && xargs -0 rm -rf --", &list); err != nil {
			return err
		}
	}
	if len(send) == 0 {
		return nil
	}
	pr, pw := io.Pipe()
	type tarResult struct {
		files int
		bytes int64
		err   error
	}
	done := make(chan tarResult, 1)
	go func() {
		var t tarResult
		t.err = writeTar(pw, local, send, tree, &t.files, &t.bytes)
		pw.CloseWithError(t.err)
		done <- t
	}()
	_, err = s.run(ctx, h, op, "cd "+Quote(res.Path)+" && tar -x -p --no-same-owner -f -", pr)
	pr.CloseWithError(errors.New("copy ended")) // unblocks the writer if the host stopped reading
	t := <-done
	if err != nil {
		return err
	}
	if t.err != nil {
		return &Error{Host: h, Op: op, Kind: t.err, ExitCode: -1}
	}
	res.Copied, res.Bytes = t.files, t.bytes
	return nil
}

// underAny reports whether a parent directory of rel is gone from the source too, so removing
// that parent removes rel.
func underAny(rel string, remote, tree map[string]entry) bool {
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		if _, inSource := tree[dir]; !inSource {
			if _, onHost := remote[dir]; onHost {
				return true
			}
		}
	}
	return false
}

func writeTar(w io.Writer, root string, send []string, tree map[string]entry, files *int, n *int64) error {
	tw := tar.NewWriter(w)
	for _, rel := range send {
		e := tree[rel]
		mode, _ := strconv.ParseInt(e.mode, 8, 64)
		hdr := &tar.Header{Name: rel, Mode: mode, Format: tar.FormatPAX}
		switch e.kind {
		case 'd':
			hdr.Typeflag, hdr.Name = tar.TypeDir, rel+"/"
		case 'l':
			hdr.Typeflag, hdr.Linkname, hdr.Mode = tar.TypeSymlink, e.target, 0o777
		case 'f':
			hdr.Typeflag, hdr.Size = tar.TypeReg, e.size
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if e.kind != 'f' {
			continue
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		// The size was read while hashing; a file that changes meanwhile fails here.
		_, err = io.CopyN(tw, f, e.size)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		*files++
		*n += e.size
	}
	return tw.Close()
}
