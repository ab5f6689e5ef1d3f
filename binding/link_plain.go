//go:build bindrace_plain

package binding

// #cgo LDFLAGS: ${SRCDIR}/../build/plain/libbindrace.a -lstdc++ -lm
import "C"

// linkedVariant names the native core this build links (NativeBuild).
const linkedVariant = "plain"
