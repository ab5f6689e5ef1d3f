package targets

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/scenario"
)

// A definition that works: a python server answering "hi", started from its own folder.
const goodDefinition = `{
  "name": "mine", "about": "a test server", "runtime": "other",
  "start": {"command": ["python3", "{dir}/hi.py", "{port}"]},
  "scenarios": ["ping"]
}`

// writeDefinition writes text as dir/file, making dir.
func writeDefinition(t *testing.T, dir, file, text string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, file)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every bad definition is refused before anything runs, naming the file and the field.
func TestDecodeDefinitionRefuses(t *testing.T) {
	for _, c := range []struct{ name, text, field string }{
		{"unknown field", `{"name":"x","runtime":"go","start":{"command":["s","{port}"]},"scenarios":["ping"],"colour":1}`, `"colour"`},
		{"missing start command", `{"name":"x","runtime":"go","start":{},"scenarios":["ping"]}`, `"start.command"`},
		{"no port", `{"name":"x","runtime":"go","start":{"command":["s","--port","8080"]},"scenarios":["ping"]}`, `"start.command": no {port}`},
		{"unknown runtime", `{"name":"x","runtime":"java","start":{"command":["s","{port}"]},"scenarios":["ping"]}`, `"runtime": "java"`},
		{"no scenarios", `{"name":"x","runtime":"go","start":{"command":["s","{port}"]}}`, `"scenarios"`},
		{"unknown scenario", `{"name":"x","runtime":"go","start":{"command":["s","{port}"]},"scenarios":["ping","pong"]}`, `"scenarios[1]"`},
		{"bad name", `{"name":"My Server","runtime":"go","start":{"command":["s","{port}"]},"scenarios":["ping"]}`, `"name"`},
		{"cmd name", `{"name":"cmd:x","runtime":"go","start":{"command":["s","{port}"]},"scenarios":["ping"]}`, `"name"`},
		{"unknown placeholder", `{"name":"x","runtime":"go","start":{"command":["s","{port}","{host}"]},"scenarios":["ping"]}`, `unknown placeholder {host}`},
		{"port outside start", `{"name":"x","runtime":"go","start":{"command":["s","{port}"]},"scenarios":["ping"],"artifact":"{port}.bin"}`, `"artifact"`},
		{"bundle off node", `{"name":"x","runtime":"go","prepare":{"bundle":{"entry":"a.ts","out":"b.js","node":20}},"start":{"command":["s","{port}"]},"scenarios":["ping"]}`, `"prepare.bundle"`},
		{"null", `{"name":"x","runtime":"go","start":{"command":["s","{port}"]},"scenarios":["ping"],"files":null}`, `"files"`},
		{"not an object", `["x"]`, `definitions/x.json`},
	} {
		_, err := DecodeDefinition([]byte(c.text), "definitions/x.json")
		if err == nil || !strings.Contains(err.Error(), "definitions/x.json") || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: %v; want an error naming the file and %s", c.name, err, c.field)
		}
	}
}

// A folder with one bad file or a taken name adds nothing; a good one adds its targets, once.
func TestAddDir(t *testing.T) {
	dir := t.TempDir()
	writeDefinition(t, dir, "a.target.json", strings.Replace(goodDefinition, `"mine"`, `"add-dir-a"`, 1))
	writeDefinition(t, filepath.Join(dir, "b"), "target.json", strings.Replace(goodDefinition, `"mine"`, `"binding"`, 1))
	err := AddDir(dir)
	if err == nil || !strings.Contains(err.Error(), "b/target.json") || !strings.Contains(err.Error(), `"binding" is already defined by harness/targets/builtin/binding.json`) {
		t.Fatalf("a taken name: %v", err)
	}
	if _, ok, _ := lookup("add-dir-a"); ok {
		t.Fatal("a folder that failed added a target")
	}
	os.Remove(filepath.Join(dir, "b", "target.json"))
	writeDefinition(t, dir, "package.json", `{"name": "not-a-definition"}`) // a folder's other JSON is not read
	if err := AddDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := AddDir(dir); err != nil { // the same files again: a flag given twice
		t.Fatalf("adding the same folder twice: %v", err)
	}
	other := t.TempDir()
	writeDefinition(t, other, "target.json", strings.Replace(goodDefinition, `"mine"`, `"add-dir-a"`, 1))
	if err := AddDir(other); err == nil || !strings.Contains(err.Error(), "already defined") {
		t.Fatalf("another file with the same name: %v", err)
	}
	if err := AddDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no definition in it") {
		t.Fatalf("an empty folder: %v", err)
	}
}

// A target defined by a file takes the road a built-in one does: resolved by its path, started
// in its folder, checked on the scenarios it claims and refused the ones it does not, placed on
// another host as its folder.
func TestUserDefinition(t *testing.T) {
	dir := t.TempDir()
	writeDefinition(t, dir, "hi.py", hiServer)
	def := writeDefinition(t, dir, "user-def.json", strings.Replace(goodDefinition, `"mine"`, `"user-def"`, 1))
	tg, err := Resolve(def)
	if err != nil {
		t.Fatal(err)
	}
	if tg.Name != "user-def" || tg.Definition() != def || tg.TakesThreads() {
		t.Fatalf("resolved %+v from %s", tg, tg.Definition())
	}
	s := startT(t, tg, StartOptions{})
	if err := Verify(context.Background(), tg.Name, s.Addr(), []scenario.Scenario{mustScenario(t, "ping")}); err != nil {
		t.Fatal(err)
	}
	err = tg.Refuses([]string{"ping", "json", "get-user"})
	if err == nil || !strings.Contains(err.Error(), "target user-def does not serve json, get-user: its definition ("+def+") claims ping") {
		t.Fatalf("Refuses: %v", err)
	}
	// On another host it is its folder, served there by its file's path.
	n, err := tg.ForHost()
	if err != nil || len(n.Files) != 1 || n.Files[0].Local != dir || n.Files[0].Rel != "targets/user-def" || n.DefinitionAt != "targets/user-def/user-def.json" {
		t.Fatalf("ForHost: %+v, %v", n, err)
	}
	outside := writeDefinition(t, dir, "outside.json", `{"name":"user-outside","runtime":"other","prepare":{"produces":["/bin/sh"]},
  "start":{"command":["python3","{dir}/hi.py","{port}"]},"scenarios":["ping"]}`)
	if o, err := Resolve(outside); err != nil {
		t.Fatal(err)
	} else if _, err := o.ForHost(); err == nil || !strings.Contains(err.Error(), "/bin/sh is outside its definition's folder") {
		t.Fatalf("a file outside the folder: %v", err)
	}
	if v := tg.Versions(); v["definition"] != def || !strings.Contains(v["command"], "hi.py") {
		t.Errorf("versions %v", v)
	}
}

// A definition whose product is missing says how to prepare it, and PrepareTarget does: a
// failing preparation names its command, its exit status and its last lines.
func TestPrepare(t *testing.T) {
	dir := t.TempDir()
	writeDefinition(t, dir, "hi.py", hiServer)
	def := writeDefinition(t, dir, "prep.json", `{
  "name": "prep-test", "runtime": "other",
  "prepare": {"command": "echo building; cp hi.py server.py", "produces": ["{dir}/server.py"]},
  "start": {"command": ["python3", "{dir}/server.py", "{port}"]},
  "scenarios": ["ping"]
}`)
	if _, err := Resolve(def); err == nil || !strings.Contains(err.Error(), "run `echo building; cp hi.py server.py` in "+dir) {
		t.Fatalf("unprepared: %v", err)
	}
	if _, err := PrepareTarget(context.Background(), def, &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(def); err != nil {
		t.Fatalf("prepared: %v", err)
	}
	bad := writeDefinition(t, t.TempDir(), "bad.json", `{
  "name": "prep-bad", "runtime": "other",
  "prepare": {"command": "echo compiling main.c; echo 'main.c:1: error' >&2; exit 3", "produces": ["{dir}/server"]},
  "start": {"command": ["{dir}/server", "{port}"]},
  "scenarios": ["ping"]
}`)
	_, err := PrepareTarget(context.Background(), bad, &strings.Builder{})
	for _, want := range []string{"target prep-bad: preparing it with `echo compiling main.c;", "exit status 3", "main.c:1: error"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("failed preparation: %v; want %q", err, want)
		}
	}
}

// The built-in definitions decode, each names what prepares it or the files it needs, and the
// README's table is the one they make.
func TestBuiltinDefinitions(t *testing.T) {
	defs := Definitions()
	if registry.err != nil {
		t.Fatal(registry.err)
	}
	for _, want := range builtinOrder {
		if d, ok, _ := lookup(want); !ok || !d.builtin || d.About == "" {
			t.Errorf("built-in %s: %+v", want, d)
		}
	}
	if len(defs) < len(builtinOrder) || defs[0].Name != "binding" {
		t.Errorf("definitions %v", Names())
	}
}

func mustScenario(t *testing.T, name string) scenario.Scenario {
	t.Helper()
	sc, err := scenario.ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// Whatever a definition file holds, decoding it returns a definition that passes its own checks
// or an error naming the file, and never panics.
func FuzzDecodeDefinition(f *testing.F) {
	f.Add([]byte(goodDefinition))
	for _, d := range builtinOrder {
		b, _ := builtinFS.ReadFile("builtin/" + d + ".json")
		f.Add(b)
	}
	f.Add([]byte(`{"name":"x","runtime":"go","start":{"command":["{port}"]},"scenarios":["*"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := DecodeDefinition(b, "fuzz.json")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		if !namePattern.MatchString(d.Name) || !d.mentionsPort() || len(d.Scenarios) == 0 {
			t.Fatalf("accepted %+v", d)
		}
	})
}

// A bundle is written before every start, but never over a file the harness did not write.
func TestBundleKeepsAUsersFile(t *testing.T) {
	dir := t.TempDir()
	writeDefinition(t, dir, "server.ts", `console.log("hi");`+"\n")
	mine := writeDefinition(t, dir, "mine.js", "precious\n")
	def := writeDefinition(t, dir, "target.json", `{"name":"bundle-keeps","runtime":"node",
  "prepare":{"bundle":{"entry":"{dir}/server.ts","out":"{dir}/mine.js","node":20}},
  "start":{"command":["node","{dir}/mine.js"],"env":{"PORT":"{port}"}},"scenarios":["ping"]}`)
	tg, err := Resolve(def)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tg.command(8080, StartOptions{}); err == nil || !strings.Contains(err.Error(), "was not written by bindrace") {
		t.Fatalf("bundling over a user's file: %v", err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "precious\n" {
		t.Fatalf("the user's file now holds %q", b)
	}
	os.Remove(mine)
	for i := 0; i < 2; i++ { // written, then written over: it is the harness's now
		if _, _, err := tg.command(8080, StartOptions{}); err != nil {
			t.Fatalf("bundle %d: %v", i+1, err)
		}
	}
	if b, _ := os.ReadFile(mine); !strings.HasPrefix(string(b), bundleMark) {
		t.Errorf("the bundle begins %q", b[:min(len(b), 60)])
	}
}
