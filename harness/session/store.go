package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// File names inside a session directory.
const (
	SummaryFile  = "summary.json"
	RawFile      = "raw.json"
	ManifestFile = "manifest.json"
	// IndexFile lists the sub-sessions of a race that covered several scenarios (one
	// sub-directory each); it carries the overall (worst) verdict.
	IndexFile = "index.json"
)

// Index is index.json of a multi-scenario race: one sub-session per scenario or extra race.
type Index struct {
	Kind     string       `json:"kind"` // "race-set"
	Verdict  string       `json:"verdict"`
	Headline string       `json:"headline"`
	Sessions []IndexEntry `json:"sessions"`
	// Pooled is a pooled profile's throughput check over all its races (gate.Pool); the
	// verdict counts it with every race's own.
	Pooled   *Check    `json:"pooled,omitempty"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
}

// IndexEntry is one sub-session of an Index.
type IndexEntry struct {
	Name     string `json:"name"` // also the sub-directory
	Dir      string `json:"dir"`
	Verdict  string `json:"verdict"`
	Headline string `json:"headline"`
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// SafeName turns a target or scenario name ("cmd:./srv {port}") into a path component.
func SafeName(s string) string {
	s = unsafeName.ReplaceAllString(s, "_")
	s = strings.Trim(s, "_.")
	if len(s) > 40 {
		s = s[:40]
	}
	if s == "" {
		s = "x"
	}
	return s
}

// Name is a session name: a UTC timestamp and the names raced, e.g.
// 20261129-215600-binding-vs-uws.
func Name(t time.Time, names ...string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = SafeName(n)
	}
	return t.UTC().Format("20060102-150405") + "-" + strings.Join(parts, "-vs-")
}

// WriteJSON writes v as indented JSON to path atomically: a temporary file in the same
// directory, synced, then renamed over path.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	b = append(b, '\n')
	return WriteFile(path, b)
}

// PrintJSON writes v to w as indented JSON and a newline (what --json prints); a value that
// cannot be encoded prints {"error": ...} instead.
func PrintJSON(w io.Writer, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		fmt.Fprintf(w, "{\"error\": %q}\n", err.Error())
		return
	}
	w.Write(append(b, '\n'))
}

// WriteFile writes data to path atomically: a temporary file in path's folder, synced, then
// renamed over path, so that a reader never sees half a file and a failed write leaves what
// was there. Every file the harness writes goes through it.
func WriteFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	return nil
}

// ReadJSON reads path, which must hold one JSON object, into v (decodeObject); unknown fields
// are tolerated (older or newer sessions). The kinds with rules of their own have decoders:
// LoadSummary, LoadIndex, DecodeRaw, LoadBaseline.
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return decodeObject(path, b, v)
}

// Kind reads the "kind" of the session in dir: "race", "matrix", "sweep", "scale" (KindOf) or
// "race-set" (an index of sub-sessions). A path to a summary.json file is accepted too.
func Kind(dir string) (string, error) {
	dir = DirOf(dir)
	if _, err := os.Stat(filepath.Join(dir, IndexFile)); err == nil {
		return "race-set", nil
	}
	path := filepath.Join(dir, SummaryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s is not a session directory: no %s or %s", dir, SummaryFile, IndexFile)
		}
		return "", err
	}
	return KindOf(path, b)
}

// DirOf accepts a session directory or a file inside it and returns the directory.
func DirOf(p string) string {
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return filepath.Dir(p)
	}
	return p
}

// LoadSummary reads summary.json of a race session (dir, or the file itself): DecodeSummary.
func LoadSummary(p string) (*Summary, error) {
	path := p
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		path = filepath.Join(p, SummaryFile)
	}
	return loadFile(path, DecodeSummary)
}

// LoadIndex reads index.json of a multi-scenario race: DecodeIndex.
func LoadIndex(dir string) (*Index, error) {
	return loadFile(filepath.Join(DirOf(dir), IndexFile), DecodeIndex)
}

// loadFile reads path and decodes it with its kind's decoder.
func loadFile[T any](path string, decode func(string, []byte) (*T, error)) (*T, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decode(path, b)
}

// LoadRaceSummaries loads a race session's summaries: one, or each sub-session's of a race set.
func LoadRaceSummaries(dir string) ([]*Summary, error) {
	kind, err := Kind(dir)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "race":
		s, err := LoadSummary(dir)
		if err != nil {
			return nil, err
		}
		return []*Summary{s}, nil
	case "race-set":
		ix, err := LoadIndex(dir)
		if err != nil {
			return nil, err
		}
		var out []*Summary
		for _, e := range ix.Sessions {
			s, err := LoadSummary(filepath.Join(DirOf(dir), e.Dir))
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s is a %s session, not a race", dir, kind)
}
