package targets

import (
	"fmt"
	"path/filepath"
	"strings"
)

// HostNeeds is what a target needs on another host to run there under `bindrace serve`,
// beside the harness's own executable.
type HostNeeds struct {
	Files     []HostFile
	NodeMajor int // > 0: the host needs Node of at least this major version
}

// HostFile is a file or a tree a target runs from: Local is where it is here, Rel where
// Resolve looks for it under the repository root on the host.
type HostFile struct {
	Local, Rel string
}

// ForHost says what t needs on another host: the files its definition runs from, each where
// Resolve looks for it on the host (under the checkout, or its bin/), and the Node its bundle
// targets. Resolve owns where a target's files are, so a capped target (T@cpuNN) needs what T
// needs. Only a built-in definition travels (it is compiled into the executable the host gets);
// a cmd: command or a user's definition is this machine's.
func (t *Target) ForHost() (HostNeeds, error) {
	switch {
	case t.def == nil:
		return HostNeeds{}, fmt.Errorf("target %s cannot run on another host: its command is this machine's", t.Name)
	case !t.def.builtin:
		return HostNeeds{}, fmt.Errorf("target %s cannot run on another host: its definition (%s) is this machine's; only built-in targets travel", t.Name, t.def.file)
	}
	var needs HostNeeds
	files := t.def.Files
	if len(files) == 0 {
		files = t.def.Prepare.Produces
	}
	for _, f := range t.expandAll(files) {
		if f == t.expand(t.def.Start.Command[0]) {
			f = t.executable() // $override_env's build goes where the definition's would be
		}
		rel, err := t.onHost(f)
		if err != nil {
			return HostNeeds{}, err
		}
		needs.Files = append(needs.Files, HostFile{Local: f, Rel: rel})
	}
	if b := t.def.Prepare.Bundle; b != nil {
		needs.NodeMajor = b.Node
	}
	return needs, nil
}

// onHost is where a file of the target goes on another host: a binary into the checkout's
// bin/ (where {bin} points there), anything else at its place under the checkout.
func (p *placed) onHost(local string) (string, error) {
	if cmd := p.def.Start.Command[0]; strings.HasPrefix(cmd, "{bin}/") && local == p.executable() {
		return filepath.Join("bin", strings.TrimPrefix(cmd, "{bin}/")), nil
	}
	for _, base := range []string{"{bin}", "{root}"} {
		rel, err := filepath.Rel(p.paths[base], local)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			if base == "{bin}" {
				rel = filepath.Join("bin", rel)
			}
			return rel, nil
		}
	}
	return "", fmt.Errorf("target %s: %s is outside the checkout and its bin/: it cannot be placed on another host", p.def.Name, local)
}
