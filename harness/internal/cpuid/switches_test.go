package cpuid

import (
	"slices"
	"testing"
)

func TestPlanEnv(t *testing.T) {
	// This VM (AMD EPYC, KVM, no RDTSCP) and the guest valgrind 3.19 synthesizes on it.
	epyc := View{Vendor: "AuthenticAMD", Features: []string{"pni", "ssse3", "avx", "avx2", "erms", "avx512f", "fsrm"}}
	guest := View{Vendor: "GenuineIntel", Features: []string{"pni", "ssse3", "avx", "avx2", "erms", "rdtscp"}}
	cases := []struct {
		name        string
		host, guest View
		environ     []string
		hidden      []string
		env         []string
	}{
		{name: "RDTSCP seen, not on the host", host: epyc, guest: guest,
			hidden: []string{"rdtscp"}, env: []string{"GODEBUG=cpu.rdtscp=off"}},
		{name: "the guest sees less than the host", host: guest, guest: View{Features: []string{"pni", "avx"}},
			hidden: []string{}},
		{name: "a feature both Go and glibc switch", host: View{Features: []string{"pni"}}, guest: View{Features: []string{"pni", "avx2", "abm"}},
			hidden: []string{"avx2", "abm"},
			env:    []string{"GODEBUG=cpu.avx2=off", "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-LZCNT"}},
		{name: "merged after the user's settings", host: epyc, guest: View{Features: []string{"rdtscp", "movbe"}},
			environ: []string{"GODEBUG=x", "GODEBUG=gctrace=1", "GLIBC_TUNABLES=glibc.malloc.arena_max=2"},
			hidden:  []string{"movbe", "rdtscp"},
			env:     []string{"GODEBUG=gctrace=1,cpu.rdtscp=off", "GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.cpu.hwcaps=-MOVBE"}},
		{name: "into the user's own hwcaps list", host: epyc, guest: View{Features: []string{"bmi2"}},
			environ: []string{"GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F:glibc.malloc.arena_max=2"},
			hidden:  []string{"bmi2"},
			env:     []string{"GODEBUG=cpu.bmi2=off", "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-BMI2:glibc.malloc.arena_max=2"}},
	}
	for _, c := range cases {
		s := Plan(c.host, c.guest)
		if !slices.Equal(s.Hidden, c.hidden) {
			t.Errorf("%s: hidden %q, want %q", c.name, s.Hidden, c.hidden)
		}
		if got := s.Env(c.environ); !slices.Equal(got, c.env) {
			t.Errorf("%s: env %q, want %q", c.name, got, c.env)
		}
	}
}

func TestOnlyListed(t *testing.T) {
	// CPUID says rdtscp and osxsave; the kernel lists neither (it never lists osxsave).
	v := View{Vendor: "AuthenticAMD", Features: []string{"avx2", "osxsave", "rdtscp"}}
	got := v.OnlyListed([]string{"fpu", "avx2"})
	if want := []string{"avx2", "osxsave"}; !slices.Equal(got.Features, want) {
		t.Errorf("OnlyListed = %q, want %q", got.Features, want)
	}
}

func TestReadNative(t *testing.T) {
	// Every x86-64 CPU has SSE3 (pni) and a 12-byte vendor string.
	v := Read()
	if len(v.Vendor) != 12 || !slices.Contains(v.Features, "pni") {
		t.Errorf("Read() = %+v: want a 12-byte vendor and pni", v)
	}
}
