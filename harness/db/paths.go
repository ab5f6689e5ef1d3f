package db

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"syscall"

	"github.com/bindrace/bindrace/harness/internal/machine"
)

// defaultCacheDir is <repo root>/build/pg, unless the server's OS user cannot reach it (a
// checkout under /root, or in a mktemp directory, is mode 0700 to everyone else): then a
// directory under /var/tmp named after the checkout, so each checkout keeps its own cluster.
func defaultCacheDir(uid uint32, gids []uint32) (string, error) {
	root, err := machine.RepoRoot()
	if err != nil {
		return "", errors.New("cannot find the bindrace checkout for the PostgreSQL cache: set BINDRACE_ROOT, run from inside it, or set ClusterOptions.CacheDir")
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
