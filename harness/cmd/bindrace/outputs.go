package main

import (
	"path/filepath"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/setting"
)

// outputs are the paths a measuring command writes: its folder (--out) and the servers' log
// (--server-log). They are checked before anything runs, so that no command replaces what
// bindrace did not write unless --force says to.
type outputs struct {
	out, serverLog string
	force          bool
}

// check refuses an out folder that holds files already (session.CheckDir), a server log that
// would replace a file bindrace did not write (session.File) and a server log inside the out
// folder (the session would find a file there it did not write), unless force allows the
// first two; and, force or not, a server log that is one of inputs (the profile's file).
func (o outputs) check(inputs ...string) error {
	if err := session.CheckDir(o.out, o.force); err != nil {
		return err
	}
	if o.serverLog == "" || o.serverLog == "-" {
		return nil
	}
	if o.out != "" && inside(o.serverLog, o.out) {
		return setting.Errorf("{server_log} %s is inside {out} %s; keep the servers' log out of the session folder", o.serverLog, o.out)
	}
	return session.File{Path: o.serverLog, Setting: "server_log", Inputs: inputs}.Check(o.force)
}

// inside says whether path is in folder dir (at any depth).
func inside(path, dir string) bool {
	p, err1 := filepath.Abs(path)
	d, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
