package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/setting"
)

// braced is err's text with each setting it names as {name}.
func braced(err error) string {
	return setting.Words(err, func(name string) string { return "{" + name + "}" })
}

// put writes files (name → content) into a new folder and returns it.
func put(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// real reads a file of testdata/owner: a race set's index.json, and a manifest.json written at
// 5ab40ae, before manifests carried a kind.
func real(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "owner", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWritten(t *testing.T) {
	oldManifest := real(t, "manifest-5ab40ae.json")
	for _, c := range []struct {
		name  string
		files map[string]string
		ok    bool
		why   string
	}{
		{"an older race", map[string]string{SummaryFile: `{"schema_version": 2, "kind": "race"}`, ManifestFile: oldManifest}, true, SummaryFile},
		{"a race set", map[string]string{IndexFile: real(t, "index.json"), ManifestFile: oldManifest}, true, IndexFile},
		{"a manifest of this version alone", map[string]string{ManifestFile: `{"kind": "bindrace-manifest"}`}, true, ManifestFile},
		{"noise", map[string]string{NoiseFile: `{"kind": "noise"}`}, true, NoiseFile},
		// The case: the session's summary.json replaced by {}.
		{"summary.json of {}", map[string]string{SummaryFile: `{}`, ManifestFile: oldManifest, "summary.md": "# report"}, false, `summary.json has kind ""`},
		{"a marker of this version beside a foreign summary", map[string]string{SummaryFile: `{}`, ManifestFile: `{"kind": "bindrace-manifest"}`}, false, `summary.json has kind ""`},
		{"an unrelated JSON named summary.json", map[string]string{SummaryFile: `{"kind": "notes"}`}, false, `summary.json has kind "notes"`},
		{"an unreadable summary.json", map[string]string{SummaryFile + "/x": ""}, false, "summary.json: read"},
		{"a summary.json that is not JSON", map[string]string{SummaryFile: `# notes`}, false, "summary.json is not JSON"},
		{"an older manifest alone", map[string]string{ManifestFile: oldManifest}, false, ""},
		{"a user's files", map[string]string{"notes.txt": "mine"}, false, ""},
	} {
		ok, why := Written(put(t, c.files))
		if ok != c.ok || why != c.why && (c.why == "" || !strings.HasPrefix(why, c.why)) {
			t.Errorf("%s: Written = %v, %q; want %v, %q", c.name, ok, why, c.ok, c.why)
		}
	}
}

func TestCheckDir(t *testing.T) {
	session := put(t, map[string]string{SummaryFile: `{"kind": "race"}`})
	user := put(t, map[string]string{"notes.txt": "mine"})
	file := filepath.Join(user, "notes.txt")
	for _, c := range []struct {
		dir   string
		force bool
		want  string // "" = allowed
	}{
		{filepath.Join(t.TempDir(), "new", "s"), false, ""},
		{t.TempDir(), false, ""},
		{"", false, ""}, // no --out: a new folder in results/
		{session, false, "already holds a bindrace session (summary.json); choose another {out}, or give {force} to replace it"},
		{session, true, ""},
		{user, false, "holds files bindrace did not write (notes.txt); choose another {out}, or give {force} to write into it"},
		{user, true, ""},
		{file, true, "is a file, not a folder; choose another {out}"},
	} {
		err := CheckDir(c.dir, c.force)
		if (c.want == "") != (err == nil) || err != nil && !strings.HasSuffix(braced(err), c.want) {
			t.Errorf("CheckDir(%s, force %v) = %v, want %q", c.dir, c.force, err, c.want)
		}
	}
}

// With force a folder's old session files go, so that a single race written over a race set
// is not read as the set (index.json first); files of other names stay, and a user's folder
// loses nothing.
func TestCreateDirForce(t *testing.T) {
	dir := put(t, map[string]string{IndexFile: real(t, "index.json"), ManifestFile: real(t, "manifest-5ab40ae.json"), "notes.txt": "mine"})
	if err := CreateDir(dir, false); err == nil {
		t.Fatal("CreateDir reused a race set's folder without force")
	}
	if err := CreateDir(dir, true); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"notes.txt"}) {
		t.Errorf("left %v, want only notes.txt", names)
	}
	user := put(t, map[string]string{IndexFile: "{}", "notes.txt": "mine"})
	if err := CreateDir(user, true); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(user); len(ents) != 2 {
		t.Errorf("CreateDir with force removed a user's file: %v", ents)
	}
}

func TestFileCheck(t *testing.T) {
	dir := put(t, map[string]string{
		"notes.json":    `{"name": "my notes", "kind": "notes"}`,
		"baseline.json": `{"schema_version": 3, "kind": "bindrace-baseline"}`,
		"empty.json":    "",
		SummaryFile:     `{"kind": "race"}`,
	})
	in := func(name string) string { return filepath.Join(dir, name) }
	inputs := Files(dir)
	for _, c := range []struct {
		path  string
		force bool
		want  string
	}{
		{in("new.json"), false, ""},
		{in("empty.json"), false, ""},
		{in("baseline.json"), false, ""},
		{os.DevNull, false, ""},
		{in("notes.json"), false, `exists and is not a file of kind "bindrace-baseline" (it has kind "notes"); choose another {out}, or give {force} to replace it`},
		{in("notes.json"), true, ""},
		{in(SummaryFile), false, "is what this command reads (" + in(SummaryFile) + "); choose another {out}"},
		{in(SummaryFile), true, "is what this command reads (" + in(SummaryFile) + "); choose another {out}"},
		{filepath.Join(dir, ".", "x", "..", SummaryFile), true, "is what this command reads"},
		{dir, true, "is a folder, not a file; choose another {out}"},
	} {
		err := File{Path: c.path, Setting: "out", Kind: BaselineKind, Inputs: inputs}.Check(c.force)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(braced(err), c.want) {
			t.Errorf("Check(%s, force %v) = %v, want %q", c.path, c.force, err, c.want)
		}
	}
	// A file kind of none (the servers' log) is never bindrace's: an existing one needs force.
	if err := (File{Path: in("notes.json"), Setting: "server_log"}).Check(false); err == nil ||
		!strings.HasSuffix(braced(err), "exists and is a file bindrace did not write; choose another {server_log}, or give {force} to replace it") {
		t.Errorf("server log over a user's file: %v", err)
	}
}

// The sub-sessions of a race set are the command's input too.
func TestFilesOfARaceSet(t *testing.T) {
	dir := put(t, map[string]string{IndexFile: real(t, "index.json")})
	files := Files(filepath.Join(dir, IndexFile))
	for _, want := range []string{filepath.Join(dir, IndexFile), filepath.Join(dir, "ping", SummaryFile), filepath.Join(dir, "ping-p1", RawFile)} {
		if !slices.Contains(files, want) {
			t.Errorf("Files lacks %s: %v", want, files)
		}
	}
}

// FuzzCarries: whatever a marker file holds, carries never panics and says yes only to a JSON
// object whose kind is one asked for, which survives a round trip through its encoding.
func FuzzCarries(f *testing.F) {
	f.Add([]byte(`{"schema_version": 3, "kind": "race"}`))
	f.Add([]byte(real(f, "index.json")))
	f.Add([]byte(real(f, "manifest-5ab40ae.json")))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[1, 2]`))
	f.Add([]byte(`{"kind": "race", "kind": "notes"}`))
	kinds := markers[0].kinds
	f.Fuzz(func(t *testing.T, b []byte) {
		if carries(b, kinds...) != "" {
			return
		}
		var head map[string]any
		if err := json.Unmarshal(b, &head); err != nil {
			t.Fatalf("carries accepted %q: %v", b, err)
		}
		again, _ := json.Marshal(head)
		if kind, ok := head["kind"].(string); !ok || !slices.Contains(kinds, kind) || carries(again, kinds...) != "" {
			t.Errorf("carries accepted %q, kind %v", b, head["kind"])
		}
	})
}
