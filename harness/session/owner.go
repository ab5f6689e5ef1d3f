package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/bindrace/bindrace/harness/setting"
)

// What the harness wrote is known by a kind field, so that no command replaces a file or a
// folder it did not write unless its user says so (force): docs/validation.md, "Nothing is
// overwritten".

// ManifestKind marks a manifest.json as bindrace's. Manifests written before it carry none:
// their folder is known by its summary.json or index.json.
const ManifestKind = "bindrace-manifest"

// Files of a session folder besides summary.json, raw.json, manifest.json and index.json.
const (
	NoiseFile       = "noise.json"
	CalibrationFile = "calibration.json"
)

// markers are the files whose kind says the harness wrote their folder, with the kinds each
// has carried since the harness's first version. A marker file present without one of its
// kinds (summary.json of {}, an unrelated JSON) says the folder is not the harness's.
var markers = []struct {
	file  string
	kinds []string
}{
	{SummaryFile, []string{"race", "matrix", "sweep", "scale"}},
	{IndexFile, []string{"race-set"}},
	{NoiseFile, []string{"noise"}},
	{CalibrationFile, []string{"calibration"}},
}

// Written says whether bindrace wrote folder dir: at least one of its marker files or its
// manifest.json carries the harness's kind and no marker file carries another. why names the
// file that decided (with the kind it read when the answer is no); it is "" when dir holds
// none of them.
func Written(dir string) (ok bool, why string) {
	for _, m := range markers {
		b, err := os.ReadFile(filepath.Join(dir, m.file))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return false, fmt.Sprintf("%s: %v", m.file, err)
		}
		if not := carries(b, m.kinds...); not != "" {
			return false, m.file + " " + not
		}
		ok, why = true, m.file
	}
	if !ok {
		if b, err := os.ReadFile(filepath.Join(dir, ManifestFile)); err == nil && carries(b, ManifestKind) == "" {
			ok, why = true, ManifestFile
		}
	}
	return ok, why
}

// carries says why the JSON object b does not carry one of kinds in its kind field ("is not
// JSON", `has kind "x"`); "" when it does.
func carries(b []byte, kinds ...string) string {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return "is not JSON"
	}
	if !slices.Contains(kinds, head.Kind) {
		return fmt.Sprintf("has kind %q", head.Kind)
	}
	return ""
}

// CheckDir refuses, before anything runs, a session folder (chosen by {out}) that cannot take
// a new session: a file, a bindrace session already there (never silently replaced), or files
// bindrace did not write. A missing or empty folder is fine; force lets a folder of either
// kind be written into.
func CheckDir(dir string, force bool) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return setting.Errorf("{out} %s: %v", dir, err)
	case !st.IsDir():
		return setting.Errorf("{out} %s is a file, not a folder; choose another {out}", dir)
	}
	first, err := firstEntry(dir)
	if err != nil {
		return setting.Errorf("{out} %s: %v", dir, err)
	}
	if first == "" || force {
		return nil
	}
	ok, why := Written(dir)
	if ok {
		return setting.Errorf("{out} %s already holds a bindrace session (%s); choose another {out}, or give {force} to replace it", dir, why)
	}
	if why == "" {
		why = first
	}
	return setting.Errorf("{out} %s holds files bindrace did not write (%s); choose another {out}, or give {force} to write into it", dir, why)
}

// firstEntry is the name of one entry of dir, "" when it is empty.
func firstEntry(dir string) (string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return "", err
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if errors.Is(err, io.EOF) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return names[0], nil
}

// CreateDir creates a session folder (and its parents) once CheckDir lets it. With force, the
// files of a bindrace session it replaces (its markers, manifest.json, raw.json) are removed
// first, so that what is read after is this session alone: an index.json left behind would
// make a single race read as a set. A user's files are never removed: force writes into their
// folder, over the files of the names it writes.
func CreateDir(dir string, force bool) error {
	if err := CheckDir(dir, force); err != nil {
		return err
	}
	if ok, _ := Written(dir); ok && force {
		names := []string{ManifestFile, RawFile}
		for _, m := range markers {
			names = append(names, m.file)
		}
		for _, name := range names {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("replace session folder %s: %w", dir, err)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create session folder: %w", err)
	}
	return nil
}

// File is a single file a command writes.
type File struct {
	Path    string
	Setting string   // what chose it, e.g. "out", "server_log"
	Kind    string   // the kind field of the files the command writes; "": they carry none
	Inputs  []string // the files the command reads, never its output
}

// Check refuses, before anything is written, a path that is one of the command's inputs or a
// folder (even with force), or an existing file bindrace did not write (one whose kind is not
// f.Kind) unless force. A missing or empty file is fine, and so is one that is not a regular
// file (/dev/null, a pipe): nothing is replaced there.
func (f File) Check(force bool) error {
	st, err := os.Stat(f.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	name := "{" + f.Setting + "}"
	if err != nil {
		return setting.Errorf(name+" %s: %v", f.Path, err)
	}
	for _, in := range f.Inputs {
		if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
			return setting.Errorf(name+" %s is what this command reads (%s); choose another "+name, f.Path, in)
		}
	}
	switch {
	case st.IsDir():
		return setting.Errorf(name+" %s is a folder, not a file; choose another "+name, f.Path)
	case !st.Mode().IsRegular() || st.Size() == 0 || force:
		return nil
	}
	what := "a file bindrace did not write"
	if f.Kind != "" {
		b, err := os.ReadFile(f.Path)
		if err != nil {
			return setting.Errorf(name+" %s: %v", f.Path, err)
		}
		not := carries(b, f.Kind)
		if not == "" {
			return nil
		}
		what = fmt.Sprintf("not a file of kind %q (it %s)", f.Kind, not)
	}
	return setting.Errorf(name+" %s exists and is %s; choose another "+name+", or give {force} to replace it", f.Path, what)
}

// Files are the files of the saved session in dir (a folder or a file in it) that a command
// reading it may read: its summary.json, index.json, raw.json and manifest.json, and those of
// each sub-session of a race set. None of them is ever a command's output.
func Files(dir string) []string {
	dir = DirOf(dir)
	dirs := []string{dir}
	if ix, err := LoadIndex(dir); err == nil {
		for _, e := range ix.Sessions {
			dirs = append(dirs, filepath.Join(dir, e.Dir))
		}
	}
	var files []string
	for _, d := range dirs {
		for _, name := range []string{SummaryFile, IndexFile, RawFile, ManifestFile} {
			files = append(files, filepath.Join(d, name))
		}
	}
	return files
}
