package targets

import (
	"fmt"
	"path/filepath"
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

// ForHost says what t needs on another host. Resolve owns where a target's files are, so a
// capped target (T@cpuNN) needs what T needs. A cmd: target cannot run elsewhere: its command
// is this machine's.
func (t *Target) ForHost() (HostNeeds, error) {
	switch t.Kind {
	case KindBinding, KindGo: // binding-server, or go-server for fasthttp and nethttp
		return HostNeeds{Files: []HostFile{{Local: t.binary, Rel: filepath.Join("bin", filepath.Base(t.binary))}}}, nil
	case KindNode:
		rel, err := filepath.Rel(t.root, uwsDir(t.root))
		if err != nil {
			return HostNeeds{}, fmt.Errorf("target %s: %w", t.Name, err)
		}
		return HostNeeds{Files: []HostFile{{Local: uwsDir(t.root), Rel: rel}}, NodeMajor: nodeMajor}, nil
	}
	return HostNeeds{}, fmt.Errorf("target %s cannot run on another host: its command is this machine's", t.Name)
}
