package gate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

// epyc is this VM's record: valgrind 3.19 shows an Intel CPUID with RDTSCP, which the host
// lacks, so the counted server ran with it switched off.
func epyc() *session.CountedCPU {
	return &session.CountedCPU{Vendor: "AuthenticAMD", Model: "AMD EPYC", Flags: []string{"avx2", "erms"},
		GuestVendor: "GenuineIntel", GuestFeatures: []string{"pni", "avx", "avx2", "bmi1", "bmi2", "erms", "rdtscp"},
		Hidden: []string{"rdtscp"}, Switches: []string{"GODEBUG=cpu.rdtscp=off"}}
}

// TestGateBaselineCPU: `gate DIR --baseline FILE` (Regate) gates a session against a baseline
// whose counted programs ran the same code paths whatever the host's vendor, refuses one whose
// guest saw other features or ran with other features switched off (rdtscp's switch aside: it
// moves no count), and gates counts without a CPU record
// saying "CPU unknown".
func TestGateBaselineCPU(t *testing.T) {
	xeon := epyc()
	xeon.Vendor, xeon.Model, xeon.Flags = "GenuineIntel", "Intel Xeon", []string{"avx2", "erms", "rdtscp", "avx512f"}
	noAVX2 := epyc()
	noAVX2.GuestFeatures = slices.DeleteFunc(slices.Clone(noAVX2.GuestFeatures), func(f string) bool { return f == "avx2" })
	rdtscpOn := epyc()
	rdtscpOn.Hidden, rdtscpOn.Switches = []string{}, []string{}
	avx2Off := epyc()
	avx2Off.Hidden, avx2Off.Switches = []string{"rdtscp", "avx2"}, []string{"GODEBUG=cpu.rdtscp=off,cpu.avx2=off"}
	cases := []struct {
		name      string
		base, cur *session.CountedCPU
		refused   []string // what the refusal names; nil: gated
		note      string   // the gate's note on the CPUs
	}{
		{name: "same CPU", base: epyc(), cur: epyc(), note: "counts' CPU: baseline AMD EPYC (AuthenticAMD); under valgrind: GenuineIntel"},
		{name: "another vendor, the same guest and switches", base: xeon, cur: epyc(), note: "baseline Intel Xeon (GenuineIntel)"},
		{name: "the guest saw other features", base: noAVX2, cur: epyc(), refused: []string{"other code paths", `only in the second ["avx2"]`}},
		{name: "only the count-neutral rdtscp switch differs", base: rdtscpOn, cur: epyc(), note: "counts' CPU: baseline AMD EPYC"},
		{name: "other switches", base: avx2Off, cur: epyc(), refused: []string{"switched off", `only in the first ["avx2"]`}},
		{name: "baseline without a CPU record", base: nil, cur: epyc(), note: "baseline CPU unknown; this session AMD EPYC"},
		{name: "session without a CPU record", base: epyc(), cur: nil, note: "this session CPU unknown"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		old := withCounts(2214, 7700)
		old.CountedCPU = c.base
		basePath := filepath.Join(dir, "baseline.json")
		if err := session.WriteJSON(basePath, baselineOf(old)); err != nil {
			t.Fatal(err)
		}
		s := withCounts(2220, 7700)
		s.CountedCPU = c.cur
		Apply(s, nil) // as the race that saved it did
		race := filepath.Join(dir, "race")
		if err := os.Mkdir(race, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := session.WriteJSON(filepath.Join(race, session.SummaryFile), s); err != nil {
			t.Fatal(err)
		}
		out, v, err := Regate(race, nil, basePath, false)
		if c.refused != nil {
			for _, want := range c.refused {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: err = %v, want a refusal naming %q", c.name, err, want)
				}
			}
			continue
		}
		if err != nil || v != session.Pass || check(out[0].Summary.Checks, "baseline:instructions") == nil {
			t.Errorf("%s: %s, %v: want the baseline check gated", c.name, v, err)
			continue
		}
		if !has(out[0].Summary.Reasons, c.note) {
			t.Errorf("%s: reasons %q lack %q", c.name, out[0].Summary.Reasons, c.note)
		}
	}
}
