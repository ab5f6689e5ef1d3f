package machine

import (
	"slices"
	"testing"
)

func TestParseCPUInfo(t *testing.T) {
	text := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse avx2\n\n" +
		"processor\t: 1\nvendor_id\t: Other\nmodel name\t: Other\nflags\t\t: fpu\n"
	c := parseCPUInfo(text)
	if c.Vendor != "AuthenticAMD" || c.Model != "AMD EPYC" || c.Count != 2 || !slices.Equal(c.Flags, []string{"fpu", "sse", "avx2"}) {
		t.Errorf("parseCPUInfo = %+v: want the first processor's AuthenticAMD, AMD EPYC, fpu sse avx2, and 2 processors", c)
	}
}
