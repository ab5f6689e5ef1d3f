//go:build !amd64

package cpuid

// cpuid has no instruction to run off x86-64: every leaf reads as zero, so no feature is seen.
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32) { return 0, 0, 0, 0 }
