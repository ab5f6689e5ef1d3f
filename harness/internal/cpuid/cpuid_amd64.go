package cpuid

// cpuid executes the CPUID instruction: natively the host's answer, under valgrind the one
// valgrind synthesizes for its guest.
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
