//go:build bindrace_release

package binding

// #cgo LDFLAGS: ${SRCDIR}/../build/release/libbindrace.a -lstdc++ -lm
import "C"

// linkedVariant names the native core this build links (NativeBuild).
const linkedVariant = "release"
