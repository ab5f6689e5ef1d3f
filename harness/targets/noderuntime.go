package targets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// NodeMetricsEnv names the private directory a node target's preload (uws/preload.cjs) listens
// in: one unix socket per thread, <threadId>.sock, each answering one JSON line of that thread's
// cumulative runtime figures; <threadId>.err says why a thread could not listen.
const NodeMetricsEnv = "BINDRACE_NODE_METRICS_DIR"

// NodeRuntime is where a node server's threads hand over their runtime figures: Dir, private
// to the one process and removed when it ends, or Err, why there is none (the server runs all
// the same).
type NodeRuntime struct {
	Dir string
	Err error
}

// preloadPath is the preload node is started with (`--require`). It lives in the uws tree, so it
// travels to another host with the target (ForHost) and the server runs there as it runs here.
func preloadPath(root string) string {
	return filepath.Join(root, "harness", "targets", "uws", "preload.cjs")
}

// withPreload has a node server's threads load the preload, which reads the runtime's figures
// in every thread (a Worker inherits execArgv) without touching the server, and tells it where to
// listen; it does nothing unless told. node started directly gets --require; a command that
// starts node itself (a script, npm) gets it through NODE_OPTIONS.
func (p *placed) withPreload(argv, env []string, dir string) ([]string, []string) {
	preload := preloadPath(p.paths["{root}"])
	if b := filepath.Base(argv[0]); b == "node" || b == "nodejs" {
		argv = append([]string{argv[0], "--require", preload}, argv[1:]...)
	} else {
		opts := append(strings.Fields(p.def.Start.Env["NODE_OPTIONS"]), "--require="+preload)
		env = append(env, "NODE_OPTIONS="+strings.Join(opts, " "))
	}
	if dir != "" {
		env = append(env, NodeMetricsEnv+"="+dir)
	}
	return argv, env
}

// newNodeRuntime makes a node server's private directory. A short one under the temporary
// directory: a socket's path has 107 bytes of room.
func newNodeRuntime() *NodeRuntime {
	dir, err := os.MkdirTemp("", "bindrace-node-")
	if err != nil {
		return &NodeRuntime{Err: fmt.Errorf("no directory for the preload's sockets: %w", err)}
	}
	return &NodeRuntime{Dir: dir}
}

// remove deletes the directory once its server has ended; nil-safe.
func (n *NodeRuntime) remove() {
	if n != nil && n.Dir != "" {
		os.RemoveAll(n.Dir)
	}
}
