package cpuid

import (
	"slices"
	"strings"
)

// Switches hide from a program the features its CPUID reports but the host lacks. valgrind
// shows its guest a synthesized CPUID that can claim a feature the host has not got (valgrind
// 3.19 on an AMD VM without RDTSCP reports RDTSCP), and decodes such an instruction only when
// the host has it: the program dies with SIGILL the first time it takes that path.
type Switches struct {
	Hidden []string // guest features the host lacks, in Features' order
	Go     []string // GODEBUG options: "cpu.rdtscp=off"
	Glibc  []string // glibc.cpu.hwcaps values: "-AVX2"
}

// Plan is the switches for a program that sees guest on a host that has host.
func Plan(host, guest View) Switches {
	s := Switches{Hidden: []string{}, Go: []string{}, Glibc: []string{}}
	for _, f := range Features {
		if !slices.Contains(guest.Features, f.Name) || slices.Contains(host.Features, f.Name) {
			continue
		}
		s.Hidden = append(s.Hidden, f.Name)
		if f.Go != "" {
			s.Go = append(s.Go, "cpu."+f.Go+"=off")
		}
		if f.Glibc != "" {
			s.Glibc = append(s.Glibc, "-"+f.Glibc)
		}
	}
	return s
}

// glibcHwcaps is the tunable that takes the hwcaps list.
const glibcHwcaps = "glibc.cpu.hwcaps"

// Env is the environment entries that apply s on top of environ (the environment the program
// would otherwise get): GODEBUG and GLIBC_TUNABLES with s's options appended to the values
// already there, so a user's own settings stay and s's win (both are read left to right, the
// last setting of an option counting). Nothing when s switches nothing.
func (s Switches) Env(environ []string) []string {
	var env []string
	if len(s.Go) > 0 {
		env = append(env, "GODEBUG="+appendList(lookup(environ, "GODEBUG"), ",", strings.Join(s.Go, ",")))
	}
	if len(s.Glibc) > 0 {
		env = append(env, "GLIBC_TUNABLES="+mergeTunables(lookup(environ, "GLIBC_TUNABLES"), strings.Join(s.Glibc, ",")))
	}
	return env
}

// mergeTunables adds hwcaps to the glibc.cpu.hwcaps entry of a GLIBC_TUNABLES value
// ("name=value:name=value"), or adds that entry: a second entry of the same tunable would
// replace the first, user's, one.
func mergeTunables(tunables, hwcaps string) string {
	var parts []string
	if tunables != "" {
		parts = strings.Split(tunables, ":")
	}
	for i, p := range parts {
		if v, ok := strings.CutPrefix(p, glibcHwcaps+"="); ok {
			parts[i] = glibcHwcaps + "=" + appendList(v, ",", hwcaps)
			return strings.Join(parts, ":")
		}
	}
	return strings.Join(append(parts, glibcHwcaps+"="+hwcaps), ":")
}

func appendList(list, sep, more string) string {
	if list == "" {
		return more
	}
	return list + sep + more
}

// lookup is the last value of key in environ, as exec uses the last of duplicates.
func lookup(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if val, ok := strings.CutPrefix(kv, key+"="); ok {
			v = val
		}
	}
	return v
}
