//go:build bindrace_plain

package binding

// #cgo LDFLAGS: ${SRCDIR}/../build/plain/libbindrace.a -lstdc++ -lm
import "C"
