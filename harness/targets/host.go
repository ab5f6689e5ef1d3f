package targets

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// HostNeeds is what a target needs on another host to run there under `bindrace serve`,
// beside the harness's own executable.
type HostNeeds struct {
	Files     []HostFile
	NodeMajor int // > 0: the host needs Node of at least this major version
	// DefinitionAt is where a user's definition file goes under the checkout on the host,
	// for `bindrace serve --target` there; "" for a built-in target, known there by name.
	DefinitionAt string
}

// HostFile is a file or a tree a target runs from: Local is where it is here, Rel where
// Resolve looks for it under the repository root on the host.
type HostFile struct {
	Local, Rel string
}

// ForHost says what t needs on another host: the files its definition runs from, each where
// Resolve looks for it on the host (under the checkout, or its bin/), and the Node it needs.
// Resolve owns where a target's files are, so a capped target (T@cpuNN) needs what T needs. A
// built-in definition travels compiled into the executable the host gets; a user's travels as
// its folder (userOnHost). A cmd: command is this machine's.
func (t *Target) ForHost() (HostNeeds, error) {
	switch {
	case t.def == nil:
		return HostNeeds{}, fmt.Errorf("target %s cannot run on another host: its command is this machine's", t.Name)
	case !t.def.builtin:
		return t.userOnHost()
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

// userHome is where a user's definition folders go on a host, under the checkout there.
const userHome = "targets"

// userOnHost: a user's definition travels as its whole folder (its server, what its preparation
// made there), to targets/NAME/ on the host, and is served there by its file's path; what it
// runs from must be in that folder or the checkout. A node server also needs the preload.
func (p *placed) userOnHost() (HostNeeds, error) {
	dir := p.paths["{dir}"]
	rel := filepath.Join(userHome, p.def.Name)
	needs := HostNeeds{Files: []HostFile{{Local: dir, Rel: rel}}, DefinitionAt: filepath.Join(rel, filepath.Base(p.def.file))}
	for _, f := range p.expandAll(append(slices.Clone(p.def.Files), p.def.Prepare.Produces...)) {
		if inside(dir, f) {
			continue
		}
		if _, err := p.onHost(f); err != nil {
			return HostNeeds{}, fmt.Errorf("target %s: %s is outside its definition's folder (%s) and the checkout: it cannot be placed on another host", p.def.Name, f, dir)
		}
		return HostNeeds{}, fmt.Errorf("target %s: %s is outside its definition's folder (%s): only that folder goes to another host", p.def.Name, f, dir)
	}
	if p.def.Runtime == RuntimeNode {
		preload := preloadPath(p.paths["{root}"])
		needs.Files = append(needs.Files, HostFile{Local: preload, Rel: filepath.Join("harness", "targets", "uws", "preload.cjs")})
		needs.NodeMajor = 1
		if b := p.def.Prepare.Bundle; b != nil {
			needs.NodeMajor = b.Node
		}
	}
	return needs, nil
}

// inside reports whether path is dir or under it.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
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
