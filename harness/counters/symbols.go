package counters

import (
	"debug/elf"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/ianlancetaylor/demangle"

	"github.com/bindrace/bindrace/harness/internal/machine"
)

// noSymbol is what cachegrind names code it found no symbol for (fn=???), and a file it found no
// debug information for (fl=???).
const noSymbol = "???"

// JITCode and NoSymbolCode name the rows of instructions that ran where no symbol was: Node's
// JIT-compiled JavaScript (V8 emits no symbols for its generated code), or, for other servers,
// code from a stripped object. The row is kept, never dropped: it is part of the total.
const (
	JITCode      = "[JIT-compiled code: no symbol]"
	NoSymbolCode = "[no symbol: stripped or generated code]" // PLT stubs too
	NoDebugInfo  = "[no debug info]"
)

// unknownLabel names the no-symbol row for the server cmd ran.
func unknownLabel(cmd string) string {
	if isNode(cmd) {
		return JITCode
	}
	return NoSymbolCode
}

// isNode says whether cmd (a cachegrind cmd: line) runs node.
func isNode(cmd string) bool {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return false
	}
	base := filepath.Base(f[0])
	return base == "node" || base == "nodejs"
}

var (
	// cgo's wrappers carry a per-build hash (_cgo_92adeff1d999_Cfunc_br_loop_step); without it
	// the name is the same in every build, so two builds' tables line up.
	cgoHash = regexp.MustCompile(`^_cgo_[0-9a-f]{12}_`)
	// ThinLTO renames the local symbols it promotes (foo.llvm.1234…) with a hash of the module.
	llvmSuffix = regexp.MustCompile(`\.llvm\.\d+$`)
)

// SymbolName is the name a table shows for a symbol cachegrind recorded: C++ (and Rust) names
// demangled (clone suffixes such as .cold, .isra or .llvm.<hash> folded into their function, so a
// function split by the optimiser is one row), Go's escaped package paths unescaped, cgo's
// per-build hash dropped. Names that are none of these are shown as they are.
func SymbolName(raw string) string {
	if raw == noSymbol || raw == "" {
		return raw
	}
	if strings.HasPrefix(raw, "_Z") || strings.HasPrefix(raw, "_R") {
		if s, err := demangle.ToString(raw, demangle.NoClones); err == nil {
			return s
		}
	}
	name := llvmSuffix.ReplaceAllString(raw, "")
	name = cgoHash.ReplaceAllString(name, "_cgo_")
	return unescapeGo(name)
}

// unescapeGo undoes the Go linker's escaping in symbol names: in a package path, '.' in the
// last element and bytes outside printable ASCII are written %xx (gopkg.in/yaml%2ev3.Unmarshal).
func unescapeGo(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// FileName is the name the by-file view shows for a cachegrind fl= path: the repository's own
// files relative to its root, so that two checkouts' tables line up.
func FileName(raw string) string {
	if raw == noSymbol || raw == "" {
		return NoDebugInfo
	}
	name := filepath.Clean(raw)
	if root := repoRoot(); root != "" {
		if rel, ok := strings.CutPrefix(name, root+string(filepath.Separator)); ok {
			return rel
		}
	}
	return name
}

// repoRoot is the repository's root, "" when it cannot be found.
var repoRoot = sync.OnceValue(func() string {
	root, err := machine.RepoRoot()
	if err != nil {
		return ""
	}
	if abs, err := filepath.EvalSymlinks(root); err == nil {
		return abs
	}
	return root
})

// strippedNote says so when the server's executable (the first word of cmd) has no symbol
// table, so that its functions land in the no-symbol row; "" when it has one or cannot be read.
func strippedNote(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 || isNode(cmd) {
		return ""
	}
	ef, err := elf.Open(f[0])
	if err != nil {
		return ""
	}
	defer ef.Close()
	if ef.Section(".symtab") != nil {
		return ""
	}
	return fmt.Sprintf("%s has no symbol table (stripped): its own functions are counted in the %q row, so this table cannot say which of them did the work; the totals are complete", f[0], NoSymbolCode)
}
