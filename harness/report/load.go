package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// sessionDir is a session directory as read from disk. Only summary.json is required: raw.json
// and manifest.json may be missing from a session that was cut short, and the report still says
// what was measured.
type sessionDir struct {
	dir          string
	summaryJSON  []byte
	rawJSON      []byte // raw.json and manifest.json as on disk (nil when absent), for the HTML page
	manifestJSON []byte
	race         *session.Summary // set for kind "race" (or no kind)
	matrix       *session.Matrix  // set for kind "matrix"
	sweep        *session.Sweep   // set for kind "sweep"
	scale        *session.Scale   // set for kind "scale"
	raw          *session.Raw     // nil when raw.json is absent
	manifest     map[string]any   // nil when manifest.json is absent
}

func load(dir string) (*sessionDir, error) {
	sd := &sessionDir{dir: dir}
	path := filepath.Join(dir, session.SummaryFile)
	var err error
	if sd.summaryJSON, err = os.ReadFile(path); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if err := sd.decodeSummary(path); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if sd.rawJSON, sd.raw, err = readOptional(filepath.Join(dir, session.RawFile), session.DecodeRaw); err != nil {
		return nil, err
	}
	var manifest *map[string]any
	if sd.manifestJSON, manifest, err = readOptional(filepath.Join(dir, session.ManifestFile), decodeManifest); err != nil {
		return nil, err
	}
	if manifest != nil {
		sd.manifest = *manifest
	}
	return sd, nil
}

// decodeSummary decodes summaryJSON, read from path, with its kind's decoder.
func (sd *sessionDir) decodeSummary(path string) error {
	kind, err := session.KindOf(path, sd.summaryJSON)
	if err != nil {
		return err
	}
	switch kind {
	case "matrix":
		sd.matrix, err = session.DecodeMatrix(path, sd.summaryJSON)
	case "sweep":
		sd.sweep, err = session.DecodeSweep(path, sd.summaryJSON)
	case "scale":
		sd.scale, err = session.DecodeScale(path, sd.summaryJSON)
	default:
		if sd.race, err = session.DecodeSummary(path, sd.summaryJSON); err == nil {
			err = stats.CheckDeltas(path, sd.race)
		}
	}
	return err
}

// decodeManifest reads manifest.json free-form: the report only lists what it holds.
func decodeManifest(path string, b []byte) (*map[string]any, error) {
	m := new(map[string]any)
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// readOptional decodes path with decode and returns its bytes and value, both nil when the file
// does not exist.
func readOptional[T any](path string, decode func(string, []byte) (*T, error)) ([]byte, *T, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("report: %w", err)
	}
	v, err := decode(path, b)
	if err != nil {
		return nil, nil, fmt.Errorf("report: %w", err)
	}
	return b, v, nil
}

// manifestRows flattens the free-form manifest into sorted "a.b.c" -> value rows: nested objects
// (build manifests per target, say) stay readable in a two-column table.
func manifestRows(m map[string]any) [][]string {
	flat := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 {
				flat[prefix] = "{}"
			}
			for k, vv := range x {
				key := k
				if prefix != "" {
					key = prefix + "." + k
				}
				walk(key, vv)
			}
		case string:
			flat[prefix] = x
		case nil:
			flat[prefix] = "—"
		default:
			b, _ := json.Marshal(x)
			flat[prefix] = string(b)
		}
	}
	walk("", m)
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := make([][]string, 0, len(keys))
	for _, k := range keys {
		rows = append(rows, []string{k, flat[k]})
	}
	return rows
}

// manifestValue finds the first flattened key accepted by match (keys in sorted order).
func manifestValue(m map[string]any, match func(lowerKey string) bool) string {
	for _, row := range manifestRows(m) {
		if match(strings.ToLower(row[0])) {
			return row[1]
		}
	}
	return ""
}
