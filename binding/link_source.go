//go:build !bindrace_release && !bindrace_plain && !bindrace_instrumented

package binding

// #cgo CXXFLAGS: -std=c++20 -O2 -fno-exceptions -fno-rtti
// #cgo LDFLAGS: -lstdc++ -lm
import "C"

// linkedVariant names the native core this build links (NativeBuild): compiled from source by
// cgo with default flags.
const linkedVariant = "source"
