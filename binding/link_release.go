//go:build bindrace_release

package binding

// #cgo LDFLAGS: ${SRCDIR}/../build/release/libbindrace.a -lstdc++ -lm
import "C"
