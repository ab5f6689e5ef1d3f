// Package page renders a session (summary.json, raw.json, manifest.json) as one self-contained
// HTML release page: the charts and tables are drawn in the browser by TypeScript that lives in
// ts/, is embedded in the binary and bundled at render time with esbuild's Go API. The result has
// no external reference: the session JSON, the script and the CSS are all inline, and a Content
// Security Policy forbids the page from loading anything at view time.
package page

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/evanw/esbuild/pkg/api"
)

//go:embed ts/*.ts
var tsFS embed.FS

//go:embed style.css
var styleCSS string

// entry is the bundle's entry module inside ts/.
const entry = "main.ts"

// maxRawBytes bounds how much of raw.json is embedded; above it the page keeps only the fields it
// shows. The page never needs the progress samples a raw run may carry.
const maxRawBytes = 120 << 10

var (
	bundleOnce sync.Once
	bundleJS   string
	bundleErr  error
)

// Script returns the page's bundled, minified JavaScript. It is built once per process.
func Script() (string, error) {
	bundleOnce.Do(func() { bundleJS, bundleErr = build() })
	return bundleJS, bundleErr
}

const embedNS = "bindrace-page"

// build bundles ts/main.ts and its imports from the embedded FS; nothing touches the disk.
func build() (string, error) {
	plugin := api.Plugin{
		Name: "embedded-ts",
		Setup: func(b api.PluginBuild) {
			b.OnResolve(api.OnResolveOptions{Filter: `.*`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
				p := a.Path
				if a.Kind != api.ResolveEntryPoint {
					if !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") {
						return api.OnResolveResult{}, fmt.Errorf("page: only relative imports are embedded, got %q", p)
					}
					p = path.Join(path.Dir(a.Importer), p)
				}
				p = path.Clean(strings.TrimPrefix(p, "/"))
				if path.Ext(p) == "" {
					p += ".ts"
				}
				return api.OnResolveResult{Path: "/" + p, Namespace: embedNS}, nil
			})
			b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: embedNS}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
				src, err := tsFS.ReadFile(path.Join("ts", strings.TrimPrefix(a.Path, "/")))
				if err != nil {
					return api.OnLoadResult{}, err
				}
				s := string(src)
				return api.OnLoadResult{Contents: &s, Loader: api.LoaderTS}, nil
			})
		},
	}
	res := api.Build(api.BuildOptions{
		EntryPoints:       []string{entry},
		Bundle:            true,
		Write:             false,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		Target:            api.ES2020,
		Format:            api.FormatIIFE,
		Platform:          api.PlatformBrowser,
		Charset:           api.CharsetASCII,
		LegalComments:     api.LegalCommentsNone,
		LogLevel:          api.LogLevelSilent,
		Plugins:           []api.Plugin{plugin},
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return "", fmt.Errorf("page: bundling ts/%s: %s", entry, strings.Join(msgs, "\n"))
	}
	if len(res.OutputFiles) != 1 {
		return "", fmt.Errorf("page: esbuild produced %d output files, want 1", len(res.OutputFiles))
	}
	js := string(res.OutputFiles[0].Contents)
	// The script is inlined in a <script> element: "</script" or "<!--" anywhere in it (only
	// possible inside string or regexp literals) would end or confuse the element.
	js = scriptCloser.ReplaceAllStringFunc(js, func(m string) string { return `<\/` + m[2:] })
	js = strings.ReplaceAll(js, "<!--", `<\!--`)
	return js, nil
}

var scriptCloser = regexp.MustCompile(`(?i)</script`)

// Render returns the report page of a session as one self-contained HTML document. summary is
// summary.json (a race or a matrix, told apart by its "kind"); raw (raw.json) and manifest
// (manifest.json, a free-form JSON object) may be empty.
func Render(summary, raw, manifest []byte) ([]byte, error) {
	js, err := Script()
	if err != nil {
		return nil, err
	}
	sum, head, err := embedJSON("summary.json", summary, true)
	if err != nil {
		return nil, err
	}
	rawJS, err := embedRaw(raw)
	if err != nil {
		return nil, err
	}
	man, _, err := embedJSON("manifest.json", manifest, false)
	if err != nil {
		return nil, err
	}

	var data bytes.Buffer
	data.WriteString(`{"summary":`)
	data.Write(sum)
	data.WriteString(`,"raw":`)
	data.Write(rawJS)
	data.WriteString(`,"manifest":`)
	data.Write(man)
	data.WriteString(`}`)

	sha := sha256.Sum256([]byte(js))
	csp := "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-" +
		base64.StdEncoding.EncodeToString(sha[:]) + "'"

	var b bytes.Buffer
	b.Grow(len(js) + data.Len() + len(styleCSS) + 2048)
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1">` + "\n")
	b.WriteString(`<meta http-equiv="Content-Security-Policy" content="` + csp + `">` + "\n")
	b.WriteString(`<meta name="generator" content="bindrace">` + "\n")
	b.WriteString("<title>" + html.EscapeString(head.title()) + "</title>\n")
	b.WriteString("<style>\n" + styleCSS + "</style>\n</head>\n")
	b.WriteString(`<body data-kind="` + html.EscapeString(head.kind()) + `">` + "\n")
	b.WriteString(`<main id="app" aria-live="polite"><noscript><p class="noscript">This report is drawn by an inline script; ` +
		`enable JavaScript, or read summary.md next to this file.</p></noscript></main>` + "\n")
	b.WriteString(`<script type="application/json" id="bindrace-data">`)
	b.Write(data.Bytes())
	b.WriteString("</script>\n<script>")
	b.WriteString(js)
	b.WriteString("</script>\n</body>\n</html>\n")
	return b.Bytes(), nil
}

// header is what the Go side reads of summary.json: enough for the document title.
type header struct {
	Kind     string   `json:"kind"`
	Verdict  string   `json:"verdict"`
	A        string   `json:"a"`
	B        string   `json:"b"`
	Scenario string   `json:"scenario"`
	Targets  []string `json:"targets"`
}

func (h header) kind() string {
	if h.Kind == "matrix" || h.Kind == "sweep" || h.Kind == "scale" {
		return h.Kind
	}
	return "race"
}

func (h header) title() string {
	if k := h.kind(); k != "race" {
		return fmt.Sprintf("bindrace %s: %s (%s)", k, strings.Join(h.Targets, ", "), h.Scenario)
	}
	t := fmt.Sprintf("bindrace: %s vs %s (%s)", h.A, h.B, h.Scenario)
	if h.Verdict != "" {
		t += " " + h.Verdict
	}
	return t
}

// embedJSON validates doc as a JSON object and returns it compacted and escaped for a <script>
// element: '<', '>', '&', U+2028 and U+2029 become \u escapes, so no "</script>" or "<!--" can
// survive in it and the text stays valid JSON.
func embedJSON(name string, doc []byte, required bool) ([]byte, header, error) {
	var h header
	doc = bytes.TrimSpace(doc)
	if len(doc) == 0 {
		if required {
			return nil, h, fmt.Errorf("page: %s is empty", name)
		}
		return []byte("null"), h, nil
	}
	if doc[0] != '{' {
		return nil, h, fmt.Errorf("page: %s is not a JSON object", name)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc); err != nil {
		return nil, h, fmt.Errorf("page: %s: %w", name, err)
	}
	if err := json.Unmarshal(compact.Bytes(), &h); err != nil && required {
		return nil, h, fmt.Errorf("page: %s: %w", name, err)
	}
	var out bytes.Buffer
	json.HTMLEscape(&out, compact.Bytes())
	return out.Bytes(), h, nil
}

// embedRaw keeps raw.json whole when it is small, else only the runs' fields the page shows.
func embedRaw(raw []byte) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return []byte("null"), nil
	}
	if len(raw) <= maxRawBytes {
		out, _, err := embedJSON("raw.json", raw, false)
		return out, err
	}
	var r session.Raw
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("page: raw.json: %w", err)
	}
	type slim struct {
		Target   string  `json:"target"`
		Scenario string  `json:"scenario"`
		Slot     int     `json:"slot"`
		RPS      float64 `json:"rps"`
		Errors   int64   `json:"errors"`
		Error    string  `json:"error,omitempty"`
	}
	runs := make([]slim, len(r.Runs))
	for i, x := range r.Runs {
		runs[i] = slim{x.Target, x.Scenario, x.Slot, x.RPS, x.Errors, x.Error}
	}
	enc, err := json.Marshal(map[string]any{"runs": runs, "trimmed": true})
	if err != nil {
		return nil, err
	}
	if len(enc) > maxRawBytes {
		return []byte(`{"runs":[],"trimmed":true}`), nil
	}
	out, _, err := embedJSON("raw.json", enc, false)
	return out, err
}
