package targets

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/scenario"
)

// upstreamPackage is the pinned uWebSockets.js build (harness/targets/uws/package.json); builds
// after 20.30 need glibc 2.38 and Debian 12 has 2.36.
const upstreamPackage = "@trufflesuite/uws-js-unofficial"

// bundleMark opens every bundle the harness writes: a file at a bundle's path without it is
// someone's, and is never written over.
const bundleMark = "// Bundled by bindrace before every start; do not edit."

// ownBundle says why out may not be written: it exists, is not a bundle of the harness's, and
// is not in the checkout's build/ (generated output, where bundles made before the mark live).
func (p *placed) ownBundle(out string) error {
	if inside(filepath.Join(p.paths["{root}"], "build"), out) {
		return nil
	}
	f, err := os.Open(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, len(bundleMark))
	if _, err := io.ReadFull(f, head); err != nil || string(head) != bundleMark {
		return fmt.Errorf("bundle %s exists and was not written by bindrace: it is left as it is; point prepare.bundle.out at a new file", out)
	}
	return nil
}

// bundleMu serialises esbuild runs in this process (parallel tests, matrix set-up).
var bundleMu sync.Mutex

// bundle compiles a node target's server (prepare.bundle: uws/server.ts for uws) into one
// CommonJS file with esbuild's Go API, with the scenario contract's constants defined. It runs
// before every start (esbuild takes milliseconds), so the bundle always matches the source. The
// upstream's native addon is required at run time through NODE_PATH, never bundled.
func (p *placed) bundle() (string, error) {
	b := p.def.Prepare.Bundle
	bundleMu.Lock()
	defer bundleMu.Unlock()
	routes := make([][2]string, 0, len(scenario.BackgroundRoutes))
	for _, r := range scenario.BackgroundRoutes {
		routes = append(routes, [2]string{r.Method, r.Path})
	}
	routesJSON, _ := json.Marshal(routes)
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	entry, out := p.expand(b.Entry), p.expand(b.Out)
	res := api.Build(api.BuildOptions{
		EntryPoints:   []string{entry},
		Outfile:       out,
		Bundle:        true,
		Platform:      api.PlatformNode,
		Format:        api.FormatCommonJS,
		Engines:       []api.Engine{{Name: api.EngineNode, Version: strconv.Itoa(b.Node)}},
		AbsWorkingDir: filepath.Dir(entry),
		External:      b.External,
		LogLevel:      api.LogLevelSilent,
		Banner:        map[string]string{"js": bundleMark},
		Define: map[string]string{
			"BINDRACE_BACKGROUND_ROUTES": string(routesJSON),
			"BINDRACE_VIDEO_SIZE":        fmt.Sprint(scenario.VideoSize),
			"BINDRACE_INFO_PATH":         str(scenario.InfoPath),
			"BINDRACE_BENCH_HEADER":      str(scenario.BenchHeader),
			"BINDRACE_UPSTREAM":          str(upstreamPackage),
			"BINDRACE_WS_PATH":           str(scenario.WSPath),
			"BINDRACE_WS_MAX_MESSAGE":    fmt.Sprint(scenario.WSMaxMessage),
			"BINDRACE_DB_SQL":            uwsDBSQL(),
			"BINDRACE_DB_LIMITS":         fmt.Sprintf(`{"items":%d,"sku":%d,"qty":%d,"price":%d}`, db.MaxOrderItems, db.MaxSKULen, db.MaxQty, db.MaxPriceCents),
			"BINDRACE_DB_ERROR_PREFIX":   str(db.ErrorPrefix),
			"BINDRACE_DB_ENV":            fmt.Sprintf(`{"url":%s,"pool":%s}`, str(db.EnvURL), str(db.EnvPool)),
		},
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return "", fmt.Errorf("target %s: bundling %s failed:\n%s", p.def.Name, entry, strings.Join(msgs, ""))
	}
	if len(res.OutputFiles) != 1 {
		return "", fmt.Errorf("target %s: esbuild wrote %d files, want 1", p.def.Name, len(res.OutputFiles))
	}
	if err := p.ownBundle(out); err != nil {
		return "", fmt.Errorf("target %s: %w", p.def.Name, err)
	}
	// Write and rename: another bindrace process may be starting node on the bundle right now.
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", fmt.Errorf("target %s: %w", p.def.Name, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".server-*.js")
	if err != nil {
		return "", fmt.Errorf("target %s: %w", p.def.Name, err)
	}
	_, werr := tmp.Write(res.OutputFiles[0].Contents)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), out)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("target %s: writing %s: %w", p.def.Name, out, werr)
	}
	return out, nil
}

// nodeVersions fills node's version, the identity's packages' versions as installed and the
// esbuild that bundled the server, if one did.
func (p *placed) nodeVersions(v map[string]string) {
	if out, err := exec.Command("node", "--version").Output(); err == nil {
		v["node"] = strings.TrimSpace(string(out))
	}
	modules := p.expand(p.def.Identity.NodeModules)
	if modules == "" {
		modules = filepath.Join(p.paths["{dir}"], "node_modules")
	}
	for _, name := range p.def.Identity.Packages {
		v[name] = "unknown"
		b, err := os.ReadFile(filepath.Join(modules, name, "package.json"))
		if err == nil {
			var pkg struct{ Version string }
			if json.Unmarshal(b, &pkg) == nil && pkg.Version != "" {
				v[name] = pkg.Version
			}
		}
	}
	if p.def.Prepare.Bundle != nil {
		v["esbuild"] = linkedVersion("github.com/evanw/esbuild")
	}
}

// uwsDBSQL is the scenario statements by name, as a JSON object for the bundle: the uws target
// runs exactly harness/db's SQL text.
func uwsDBSQL() string {
	m := map[string]string{}
	for _, st := range db.Statements {
		m[st.Name] = st.SQL
	}
	b, _ := json.Marshal(m)
	return string(b)
}
