// Package cpuid reads the CPU features a program sees (the CPUID instruction) and turns the
// difference between two views into the environment switches that hide features: what a
// server under valgrind needs when valgrind shows it a feature the host cannot run
// (docs/counters.md, "Counts on any x86-64 CPU").
package cpuid

import "slices"

// Feature is one CPUID bit that a program counted under valgrind reads to pick its code paths,
// with its switches.
type Feature struct {
	Name  string // the name bindrace records: /proc/cpuinfo's flag where the kernel lists one
	Leaf  uint32 // CPUID leaf (EAX) and subleaf (ECX)
	Sub   uint32
	Reg   int    // 0 EAX, 1 EBX, 2 ECX, 3 EDX
	Bit   uint   // bit in Reg
	Flag  string // /proc/cpuinfo's flag; "" when the kernel may not list it (osxsave, abm)
	Go    string // the Go runtime's option (internal/cpu, GODEBUG=cpu.<Go>=off); "" none
	Glibc string // glibc 2.36's tunable (GLIBC_TUNABLES=glibc.cpu.hwcaps=-<Glibc>); "" none
}

const (
	eax = iota
	ebx
	ecx
	edx
)

// Features is every bit bindrace compares. Go's names are internal/cpu's option list
// (src/internal/cpu/cpu_x86.go, Go 1.26); glibc's are the ones glibc 2.36 accepts, checked with
// `GLIBC_TUNABLES=glibc.cpu.hwcaps=-NAME ld.so --list-diagnostics` (SSE3, F16C, FSRM, ADX, SHA,
// AES and PCLMULQDQ have no switch there; the pre-2.33 "AVX2_Usable" spellings are ignored).
var Features = []Feature{
	{Name: "pni", Leaf: 1, Reg: ecx, Bit: 0, Flag: "pni", Go: "sse3"},
	{Name: "pclmulqdq", Leaf: 1, Reg: ecx, Bit: 1, Flag: "pclmulqdq", Go: "pclmulqdq"},
	{Name: "ssse3", Leaf: 1, Reg: ecx, Bit: 9, Flag: "ssse3", Go: "ssse3", Glibc: "SSSE3"},
	{Name: "fma", Leaf: 1, Reg: ecx, Bit: 12, Flag: "fma", Go: "fma", Glibc: "FMA"},
	{Name: "sse4_1", Leaf: 1, Reg: ecx, Bit: 19, Flag: "sse4_1", Go: "sse41", Glibc: "SSE4_1"},
	{Name: "sse4_2", Leaf: 1, Reg: ecx, Bit: 20, Flag: "sse4_2", Go: "sse42", Glibc: "SSE4_2"},
	{Name: "movbe", Leaf: 1, Reg: ecx, Bit: 22, Flag: "movbe", Glibc: "MOVBE"},
	{Name: "popcnt", Leaf: 1, Reg: ecx, Bit: 23, Flag: "popcnt", Go: "popcnt", Glibc: "POPCNT"},
	{Name: "aes", Leaf: 1, Reg: ecx, Bit: 25, Flag: "aes", Go: "aes"},
	{Name: "xsave", Leaf: 1, Reg: ecx, Bit: 26, Flag: "xsave", Glibc: "XSAVE"},
	{Name: "osxsave", Leaf: 1, Reg: ecx, Bit: 27, Glibc: "OSXSAVE"},
	{Name: "avx", Leaf: 1, Reg: ecx, Bit: 28, Flag: "avx", Go: "avx", Glibc: "AVX"},
	{Name: "bmi1", Leaf: 7, Reg: ebx, Bit: 3, Flag: "bmi1", Go: "bmi1", Glibc: "BMI1"},
	{Name: "avx2", Leaf: 7, Reg: ebx, Bit: 5, Flag: "avx2", Go: "avx2", Glibc: "AVX2"},
	{Name: "bmi2", Leaf: 7, Reg: ebx, Bit: 8, Flag: "bmi2", Go: "bmi2", Glibc: "BMI2"},
	{Name: "erms", Leaf: 7, Reg: ebx, Bit: 9, Flag: "erms", Go: "erms", Glibc: "ERMS"},
	{Name: "avx512f", Leaf: 7, Reg: ebx, Bit: 16, Flag: "avx512f", Go: "avx512f", Glibc: "AVX512F"},
	{Name: "avx512dq", Leaf: 7, Reg: ebx, Bit: 17, Flag: "avx512dq", Go: "avx512dq", Glibc: "AVX512DQ"},
	{Name: "adx", Leaf: 7, Reg: ebx, Bit: 19, Flag: "adx", Go: "adx"},
	{Name: "avx512cd", Leaf: 7, Reg: ebx, Bit: 28, Flag: "avx512cd", Go: "avx512cd", Glibc: "AVX512CD"},
	{Name: "sha_ni", Leaf: 7, Reg: ebx, Bit: 29, Flag: "sha_ni", Go: "sha"},
	{Name: "avx512bw", Leaf: 7, Reg: ebx, Bit: 30, Flag: "avx512bw", Go: "avx512bw", Glibc: "AVX512BW"},
	{Name: "avx512vl", Leaf: 7, Reg: ebx, Bit: 31, Flag: "avx512vl", Go: "avx512vl", Glibc: "AVX512VL"},
	{Name: "vpclmulqdq", Leaf: 7, Reg: ecx, Bit: 10, Flag: "vpclmulqdq", Go: "vpclmulqdq"},
	{Name: "fsrm", Leaf: 7, Reg: edx, Bit: 4, Flag: "fsrm", Go: "fsrm"},
	// LZCNT: Linux 6.18 lists neither "abm" nor "lzcnt" where CPUID reports it (this VM).
	{Name: "abm", Leaf: 0x80000001, Reg: ecx, Bit: 5, Glibc: "LZCNT"},
	{Name: "rdtscp", Leaf: 0x80000001, Reg: edx, Bit: 27, Flag: "rdtscp", Go: "rdtscp"},
}

// View is what CPUID told one program: the vendor string and the names of Features it reports,
// in Features' order.
type View struct {
	Vendor   string   `json:"vendor"`
	Features []string `json:"features"`
}

// Read is this process's view: natively the host's CPUID, under valgrind its guest's.
func Read() View {
	maxLeaf, b, c, d := cpuid(0, 0)
	v := View{Vendor: string(le(b)) + string(le(d)) + string(le(c)), Features: []string{}}
	maxExt, _, _, _ := cpuid(0x80000000, 0)
	for _, f := range Features {
		if (f.Leaf < 0x80000000 && f.Leaf > maxLeaf) || (f.Leaf >= 0x80000000 && f.Leaf > maxExt) {
			continue
		}
		var r [4]uint32
		r[eax], r[ebx], r[ecx], r[edx] = cpuid(f.Leaf, f.Sub)
		if r[f.Reg]&(1<<f.Bit) != 0 {
			v.Features = append(v.Features, f.Name)
		}
	}
	return v
}

// le is a register's four bytes as CPUID's vendor string stores them.
func le(r uint32) []byte { return []byte{byte(r), byte(r >> 8), byte(r >> 16), byte(r >> 24)} }

// OnlyListed keeps the features the kernel also lists in /proc/cpuinfo's flags: CPUID in a VM
// can report a bit the hypervisor does not let the guest use, and the kernel clears those. A
// feature the kernel never lists (Flag "") is kept as CPUID said.
func (v View) OnlyListed(flags []string) View {
	out := View{Vendor: v.Vendor, Features: []string{}}
	for _, name := range v.Features {
		if f := byName(name); f.Flag == "" || slices.Contains(flags, f.Flag) {
			out.Features = append(out.Features, name)
		}
	}
	return out
}

func byName(name string) Feature {
	i := slices.IndexFunc(Features, func(f Feature) bool { return f.Name == name })
	if i < 0 {
		return Feature{Name: name}
	}
	return Features[i]
}
