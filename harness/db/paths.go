package db

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

const modulePath = "github.com/bindrace/bindrace"

// repoRoot is the bindrace checkout: $BINDRACE_ROOT, else the first directory holding
// bindrace's go.mod above the executable, else above the working directory. (The same rule as
// harness/targets, which this package must not import: targets will import db.)
func repoRoot() (string, error) {
	if r := os.Getenv("BINDRACE_ROOT"); r != "" {
		return filepath.Abs(r)
	}
	var starts []string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		starts = append(starts, filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for {
			if isBindraceModule(filepath.Join(dir, "go.mod")) {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", errors.New("cannot find the bindrace checkout for the PostgreSQL cache: set BINDRACE_ROOT, run from inside it, or set ClusterOptions.CacheDir")
}

func isBindraceModule(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`) == modulePath
		}
	}
	return false
}

// defaultCacheDir is <repo root>/build/pg, unless the server's OS user cannot reach it (a
// checkout under /root, or in a mktemp directory, is mode 0700 to everyone else): then a
// directory under /var/tmp named after the checkout, so each checkout keeps its own cluster.
func defaultCacheDir(uid uint32, gids []uint32) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "build", "pg")
	if reachable(dir, uid, gids) {
		return dir, nil
	}
	return fallbackCacheDir(dir), nil
}

func fallbackCacheDir(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join("/var/tmp", "bindrace-pg-"+hex.EncodeToString(sum[:6]))
}

// reachable reports whether a process with uid and groups gids may search every existing
// ancestor of path (the path itself and missing parts are created for it later). Root (uid 0)
// reaches everything.
func reachable(path string, uid uint32, gids []uint32) bool {
	if uid == 0 {
		return true
	}
	for dir := filepath.Dir(filepath.Clean(path)); ; dir = filepath.Dir(dir) {
		var st syscall.Stat_t
		if err := syscall.Stat(dir, &st); err == nil && !canSearch(&st, uid, gids) {
			return false
		}
		if dir == "/" || dir == "." {
			return true
		}
	}
}

func canSearch(st *syscall.Stat_t, uid uint32, gids []uint32) bool {
	switch {
	case st.Uid == uid:
		return st.Mode&0o100 != 0
	case containsID(gids, st.Gid):
		return st.Mode&0o010 != 0
	default:
		return st.Mode&0o001 != 0
	}
}

func containsID(ids []uint32, id uint32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
