package counters

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestSymbolName(t *testing.T) {
	for raw, want := range map[string]string{
		// C++ (the native core, the uws addon, V8), clones folded into their function
		"_ZN3app6Server5serveEj":                                                      "app::Server::serve(unsigned int)",
		"_ZN2br12_GLOBAL__N_17processEP7br_loopPNS_4ConnE":                            "br::(anonymous namespace)::process(br_loop*, br::Conn*)",
		"_ZN2br6reasonEj.llvm.14636788788751232242":                                   "br::reason(unsigned int)",
		"_ZN2br6reasonEj.cold":                                                        "br::reason(unsigned int)",
		"_ZN3uWS12HttpResponseILb0EE3endESt17basic_string_viewIcSt11char_traitsIcEEb": "uWS::HttpResponse<false>::end(std::basic_string_view<char, std::char_traits<char> >, bool)",
		// Go: as the linker wrote them, escapes undone, cgo's per-build hash dropped
		"github.com/bindrace/bindrace/binding.(*loop).serve":            "github.com/bindrace/bindrace/binding.(*loop).serve",
		"gopkg.in/yaml%2ev3.Unmarshal":                                  "gopkg.in/yaml.v3.Unmarshal",
		"_cgo_92adeff1d999_Cfunc_br_loop_step":                          "_cgo_Cfunc_br_loop_step",
		"github.com/bindrace/bindrace/binding._Cfunc_br_loop_step.abi0": "github.com/bindrace/bindrace/binding._Cfunc_br_loop_step.abi0",
		// C, promoted by ThinLTO
		"connection_tokens.llvm.12659968232458032625": "connection_tokens",
		"__libc_start_main@@GLIBC_2.34":               "__libc_start_main@@GLIBC_2.34",
		"(below main)":                                "(below main)",
		// not mangled after all: shown as is
		"_Zork":  "_Zork",
		noSymbol: noSymbol,
	} {
		if got := SymbolName(raw); got != want {
			t.Errorf("SymbolName(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestNoSymbolRowNames(t *testing.T) {
	if got := unknownLabel("/usr/bin/node --max-old-space-size=100 server.js"); got != JITCode {
		t.Errorf("node: %q", got)
	}
	if got := unknownLabel("/work/bin/binding-server --port 1"); got != NoSymbolCode {
		t.Errorf("binding: %q", got)
	}
	if FileName(noSymbol) != NoDebugInfo || FileName("./helper.h") != "helper.h" {
		t.Errorf("%q %q", FileName(noSymbol), FileName("./helper.h"))
	}
	if root := repoRoot(); root == "" {
		t.Error("no repository root")
	} else if got := FileName(root + "/native/src/http_parser.cc"); got != "native/src/http_parser.cc" {
		t.Errorf("a file of the repository: %q", got)
	}
	if got := FileName("/usr/local/go/src/runtime/proc.go"); got != "/usr/local/go/src/runtime/proc.go" {
		t.Errorf("a file outside it: %q", got)
	}
}

// TestStrippedNote: an executable without a symbol table is named as stripped; the same
// program with its symbol table is not. (go test's own binary is linked stripped.)
func TestStrippedNote(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(name string, ldflags string) string {
		out := filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-ldflags="+ldflags, "-o", out, "main.go")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GO111MODULE=off")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, b)
		}
		return out
	}
	withSymbols, stripped := build("server", ""), build("stripped", "-s -w")
	if n := strippedNote(withSymbols + " --port 1"); n != "" {
		t.Errorf("a binary with symbols, note %q", n)
	}
	n := strippedNote(stripped + " --port 1")
	if !strings.Contains(n, "stripped") || !strings.Contains(n, stripped) || !strings.Contains(n, "totals are complete") {
		t.Errorf("note %q", n)
	}
	if strippedNote("/nonexistent/server") != "" || strippedNote("/usr/bin/node x.js") != "" {
		t.Error("a missing executable or node must give no note")
	}
}
