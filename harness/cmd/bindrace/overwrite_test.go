package main

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/report"
	"github.com/bindrace/bindrace/harness/session"
)

// The overwrite cases of issue 38, each made from a real session (testdata/ci-plain: a ci race
// of binding-plain saved by bindrace at 5ab40ae, counted with cachegrind): a refusal is exit 2
// with one line naming the path and the flag, and the user's files keep their hashes; --force
// replaces what is not an input.

// copySession copies testdata/ci-plain into a new folder and writes its reports there.
func copySession(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ci-plain")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{session.SummaryFile, session.ManifestFile, session.RawFile} {
		b, err := os.ReadFile(filepath.Join("testdata", "ci-plain", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := report.WriteAll(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// hashes are the sha256 of each file of paths.
func hashes(t *testing.T, paths ...string) map[string][32]byte {
	t.Helper()
	h := map[string][32]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		h[p] = sha256.Sum256(b)
	}
	return h
}

// sameHashes fails t when a file of before changed.
func sameHashes(t *testing.T, what string, before map[string][32]byte) {
	t.Helper()
	for p, h := range before {
		b, err := os.ReadFile(p)
		if err != nil || sha256.Sum256(b) != h {
			t.Errorf("%s: %s changed (%v)", what, p, err)
		}
	}
}

// refused runs args and wants exit 2 and stderr to be one line holding want.
func refused(t *testing.T, want string, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line holding %q", args, code, stderr.String(), want)
	}
}

func TestReportRefusesAFolderItDidNotWrite(t *testing.T) {
	dir := copySession(t)
	// The case: summary.json of {} beside the session's real reports.
	if err := os.WriteFile(filepath.Join(dir, session.SummaryFile), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := hashes(t, filepath.Join(dir, "summary.md"), filepath.Join(dir, "report.html"), filepath.Join(dir, "summary.csv"))
	refused(t, "bindrace report: "+filepath.Join(dir, session.SummaryFile)+": kind: missing", "report", dir)
	sameHashes(t, "report on a summary.json of {}", before)
	// No flag overrides it: --force is not report's.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"report", dir, "--force"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "unknown flag: --force") {
		t.Errorf("report --force: exit %d, %s", code, stderr.String())
	}
	sameHashes(t, "report --force on a summary.json of {}", before)
}

func TestBaselineWriteRefusesWhatItDidNotWrite(t *testing.T) {
	dir := copySession(t)
	notes := filepath.Join(t.TempDir(), "notes.json")
	if err := os.WriteFile(notes, []byte(`{"name": "my notes", "kind": "notes"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(dir, session.SummaryFile)
	before := hashes(t, notes, own)
	refused(t, "bindrace baseline: --out "+notes+` exists and is not a file of kind "bindrace-baseline" (it has kind "notes"); choose another --out, or give --force to replace it`,
		"baseline", "write", dir, "--out", notes)
	for _, force := range [][]string{nil, {"--force"}} {
		args := append([]string{"baseline", "write", dir, "--out", own}, force...)
		refused(t, "bindrace baseline: --out "+own+" is what this command reads ("+own+"); choose another --out", args...)
	}
	refused(t, "is a folder, not a file", "baseline", "write", dir, "--out", dir, "--force")
	sameHashes(t, "baseline write over an unrelated JSON and the session's summary.json", before)

	// --force replaces the unrelated file; a baseline is replaced without it (make baseline).
	for _, args := range [][]string{{"--force"}, nil} {
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"baseline", "write", dir, "--out", notes}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("baseline write %v: exit %d, %s", args, code, stderr.String())
		}
		if _, err := session.LoadBaseline(notes); err != nil {
			t.Errorf("baseline write %v: %v", args, err)
		}
	}
}

// userFolder is a folder of a user's files, of the names a session writes, with no summary.json
// (the race --out case), and their hashes.
func userFolder(t *testing.T) (string, map[string][32]byte) {
	dir := t.TempDir()
	for name, body := range map[string]string{"summary.md": "my notes\n", "summary.csv": "a,b\n", session.ManifestFile: `{"mine": true}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ents, _ := os.ReadDir(dir)
	var paths []string
	for _, e := range ents {
		paths = append(paths, filepath.Join(dir, e.Name()))
	}
	return dir, hashes(t, paths...)
}

// Every command with --out refuses a user's folder before anything runs: no server starts, so
// the targets need not exist. With --force the check passes and the command goes on to fail on
// its target, before it writes anything.
func TestOutRefusesAUserFolder(t *testing.T) {
	dir, before := userFolder(t)
	want := "--out " + dir + " holds files bindrace did not write ("
	for _, args := range [][]string{
		{"race", "--a", "no-such-a", "--b", "no-such-b"},
		{"matrix", "--targets", "no-such-a,no-such-b"},
		{"scale", "--targets", "no-such-a,no-such-b", "--threads", "1,2"},
		{"sweep", "--targets", "no-such-a", "--rates", "1000"},
		{"noise", "--target", "no-such-a"},
		{"calibrate", "--target", "no-such-a"},
	} {
		refused(t, "bindrace "+args[0]+": "+want, append(args, "--out", dir)...)
		var stdout, stderr bytes.Buffer
		run(append(args, "--out", dir, "--force"), &stdout, &stderr)
		if strings.Contains(stderr.String(), "did not write") {
			t.Errorf("%s --force: %s", args[0], stderr.String())
		}
	}
	sameHashes(t, "commands into a user's folder", before)
}

func TestServerLogRefusesAUserFile(t *testing.T) {
	dir, before := userFolder(t)
	md := filepath.Join(dir, "summary.md")
	refused(t, "bindrace race: --server-log "+md+" exists and is a file bindrace did not write; choose another --server-log, or give --force to replace it",
		"race", "--a", "no-such-a", "--b", "no-such-b", "--server-log", md)
	out := filepath.Join(t.TempDir(), "s")
	refused(t, "--server-log "+filepath.Join(out, "server.log")+" is inside --out "+out,
		"race", "--a", "no-such-a", "--b", "no-such-b", "--out", out, "--server-log", filepath.Join(out, "server.log"))
	// The profile the race reads is never its log, --force or not.
	prof := filepath.Join(t.TempDir(), "mine.json")
	if err := os.WriteFile(prof, []byte(`{"pairs": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	before[prof] = hashes(t, prof)[prof]
	refused(t, "bindrace race: --server-log "+prof+" is what this command reads ("+prof+"); choose another --server-log",
		"race", "--a", "no-such-a", "--b", "no-such-b", "--profile", prof, "--server-log", prof, "--force")
	sameHashes(t, "a server log over a user's file", before)
}
