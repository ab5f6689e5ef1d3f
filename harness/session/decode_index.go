package session

import (
	"fmt"
	"path/filepath"
)

// DecodeIndex decodes and checks index.json of a race set, read from path. A set of no races
// is refused (it would gate as nothing at all), and every sub-session must be a directory
// inside the set's own, named once.
func DecodeIndex(path string, b []byte) (*Index, error) {
	var ix Index
	if err := decodeObject(path, b, &ix); err != nil {
		return nil, err
	}
	if err := oneOf(path, "kind", ix.Kind, "race-set"); err != nil {
		return nil, err
	}
	if err := oneOf(path, "verdict", ix.Verdict, Pass, Fail, Inconclusive, Incomplete); err != nil {
		return nil, err
	}
	if len(ix.Sessions) == 0 {
		return nil, refuse(path, "sessions", "empty: a race set lists at least one race")
	}
	seen := map[string]bool{}
	for i, e := range ix.Sessions {
		field := fmt.Sprintf("sessions[%d]", i)
		if e.Name == "" {
			return nil, refuse(path, field+".name", "missing")
		}
		if d := filepath.Clean(e.Dir); !filepath.IsLocal(d) || d == "." || seen[d] {
			return nil, refuse(path, field+".dir", "%q is not a sub-directory of the set named once", e.Dir)
		}
		seen[filepath.Clean(e.Dir)] = true
		if err := oneOf(path, field+".verdict", e.Verdict, Pass, Fail, Inconclusive, Incomplete); err != nil {
			return nil, err
		}
	}
	if c := ix.Pooled; c != nil {
		if err := oneOf(path, "pooled.verdict", c.Verdict, Pass, Fail, Inconclusive); err != nil {
			return nil, err
		}
	}
	return &ix, nil
}
