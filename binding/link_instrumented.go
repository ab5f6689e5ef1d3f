//go:build bindrace_instrumented

// The archive carries the profile runtime (the Makefile links it in with ld.lld -r -u
// __llvm_profile_runtime); br_profile_flush writes the .profraw at Shutdown.

package binding

// #cgo LDFLAGS: ${SRCDIR}/../build/instrumented/libbindrace.a -L/usr/lib/llvm-19/lib/clang/19/lib/linux -lclang_rt.profile-x86_64 -lstdc++ -lm
import "C"

// linkedVariant names the native core this build links (NativeBuild).
const linkedVariant = "instrumented"
