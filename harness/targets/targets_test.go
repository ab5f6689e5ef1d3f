package targets

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestResolveKnown(t *testing.T) {
	for _, name := range []string{"fasthttp", "nethttp", "cmd:./server --port {port}"} {
		tg, err := Resolve(name)
		if err != nil {
			t.Fatalf("Resolve(%q): %v", name, err)
		}
		if tg.Name != name {
			t.Errorf("Resolve(%q).Name = %q", name, tg.Name)
		}
	}
	// These depend on the machine's state: they resolve, or say exactly what to run.
	for name, fix := range map[string]string{
		"binding": "make build", "binding-static": "make build", "binding-ownp": "make build",
		"binding-plain": "make build-plain", "uws": "scripts/setup.sh",
	} {
		if _, err := Resolve(name); err != nil && !strings.Contains(err.Error(), fix) {
			t.Errorf("Resolve(%q) = %v; the error should say to run %s", name, err, fix)
		}
	}
}

func TestResolveUnknown(t *testing.T) {
	_, err := Resolve("nginx")
	if err == nil {
		t.Fatal("Resolve(nginx) succeeded")
	}
	for _, want := range []string{`"nginx"`, "binding", "uws", "fasthttp", "nethttp", "cmd:<command with {port}>"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	if _, err := Resolve("cmd:"); err == nil {
		t.Error("Resolve(cmd:) with no command succeeded")
	}
}

func TestResolveReference(t *testing.T) {
	t.Setenv("BINDRACE_REFERENCE", "")
	if _, err := Resolve("reference"); err == nil || !strings.Contains(err.Error(), "BINDRACE_REFERENCE") {
		t.Fatalf("Resolve(reference) without env = %v", err)
	}
	for _, n := range Names() {
		if n == "reference" {
			t.Error("Names lists reference without BINDRACE_REFERENCE")
		}
	}
	t.Setenv("BINDRACE_REFERENCE", "cmd:./ref --port {port}")
	tg, err := Resolve("reference")
	if err != nil || tg.Runtime != RuntimeOther || tg.Command != "./ref --port {port}" {
		t.Fatalf("Resolve(reference) = %+v, %v", tg, err)
	}
	if n := Names(); n[len(n)-1] != "reference" {
		t.Errorf("Names() = %v, want reference listed", n)
	}
}

func TestCommandLine(t *testing.T) {
	tg, _ := Resolve("cmd:./srv --port {port}")
	argv, env, err := tg.command(8080, StartOptions{CPUs: "1", Wrap: []string{"valgrind", "--tool=cachegrind"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "taskset -c 1 sh -c exec 'valgrind' '--tool=cachegrind' ./srv --port 8080"
	if got := strings.Join(argv, " "); got != want {
		t.Errorf("argv = %q, want %q", got, want)
	}
	if strings.Contains(strings.Join(env, " "), "GOMAXPROCS") {
		t.Errorf("a command target got GOMAXPROCS: %v", env)
	}
	tg, _ = Resolve("nethttp")
	argv, env, err = tg.command(8080, StartOptions{CPUs: "0-1", Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if argv[0] != "taskset" || !strings.HasSuffix(strings.Join(argv, " "), "/go-server --target nethttp --port 8080 --threads 2") {
		t.Errorf("argv = %q", argv)
	}
	if !strings.Contains(strings.Join(env, " "), "GOMAXPROCS=2") {
		t.Errorf("env = %v, want GOMAXPROCS=2", env)
	}
}

func TestGoTargetArtifactAndVersions(t *testing.T) {
	tg, _ := Resolve("fasthttp")
	path, size, err := tg.Artifact()
	if err != nil || size <= 0 || path == "" {
		t.Fatalf("artifact %q %d %v", path, size, err)
	}
	v := tg.Versions()
	if v["fasthttp"] != "v1.78.0" || v["fasthttp/websocket"] != "v1.5.12" || !strings.HasPrefix(v["go"], "go") {
		t.Errorf("versions %v", v)
	}
	tg, _ = Resolve("nethttp")
	if v := tg.Versions(); v["gorilla/websocket"] != "v1.5.3" {
		t.Errorf("nethttp versions %v", v)
	}
}

// TestWrap: a wrapper that execs (as valgrind and setarch do) leaves the server as the pid.
func TestWrap(t *testing.T) {
	tg, _ := Resolve("nethttp")
	s := startT(t, tg, StartOptions{Wrap: []string{"env", "BINDRACE_WRAPPED=1"}})
	env, err := os.ReadFile("/proc/" + strconv.Itoa(s.Pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(env), "BINDRACE_WRAPPED=1") {
		t.Error("the wrapper did not run")
	}
	exe, _ := os.Readlink("/proc/" + strconv.Itoa(s.Pid) + "/exe")
	if strings.HasSuffix(exe, "/env") {
		t.Errorf("pid %d is the wrapper %s, not the server", s.Pid, exe)
	}
}
