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
	var err error
	if sd.summaryJSON, err = os.ReadFile(filepath.Join(dir, "summary.json")); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var kind struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(sd.summaryJSON, &kind); err != nil {
		return nil, fmt.Errorf("report: %s: %w", filepath.Join(dir, "summary.json"), err)
	}
	switch kind.Kind {
	case "matrix":
		sd.matrix = &session.Matrix{}
		err = json.Unmarshal(sd.summaryJSON, sd.matrix)
	case "sweep":
		sd.sweep = &session.Sweep{}
		err = json.Unmarshal(sd.summaryJSON, sd.sweep)
	case "scale":
		sd.scale = &session.Scale{}
		err = json.Unmarshal(sd.summaryJSON, sd.scale)
	default:
		sd.race = &session.Summary{}
		err = json.Unmarshal(sd.summaryJSON, sd.race)
	}
	if err != nil {
		return nil, fmt.Errorf("report: %s: %w", filepath.Join(dir, "summary.json"), err)
	}
	if sd.rawJSON, err = readOptional(filepath.Join(dir, "raw.json"), &sd.raw); err != nil {
		return nil, err
	}
	var manifest *map[string]any
	if sd.manifestJSON, err = readOptional(filepath.Join(dir, "manifest.json"), &manifest); err != nil {
		return nil, err
	}
	if manifest != nil {
		sd.manifest = *manifest
	}
	return sd, nil
}

// readOptional decodes path into *dst and returns its bytes, leaving both nil when the file
// does not exist.
func readOptional[T any](path string, dst **T) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	*dst = v
	return b, nil
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
