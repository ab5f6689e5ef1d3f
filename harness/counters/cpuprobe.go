package counters

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/bindrace/bindrace/harness/internal/cpuid"
	"github.com/bindrace/bindrace/harness/internal/machine"
)

// probeEnv makes a process that links this package print its CPUID view and exit: the probe
// that runs under valgrind to read the guest's view. It is the harness's own executable (or a
// test binary) rather than a separate one, so that wherever counting runs the probe exists.
const probeEnv = "BINDRACE_CPUID_PROBE"

// The probe answers before main (or a test's TestMain) runs anything else.
func init() {
	if os.Getenv(probeEnv) == "1" {
		if err := json.NewEncoder(os.Stdout).Encode(cpuid.Read()); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// CPUPlan is what counting on this machine under one valgrind needs: the record every count
// carries and the environment entries that keep the counted server to instructions valgrind
// runs here.
type CPUPlan struct {
	CPU cpuid.CountedCPU
	Env []string // GODEBUG=..., GLIBC_TUNABLES=..., merged with the harness's own values

	valgrind, setarch string // their paths
}

// Wrap is the command prefix a counted server runs under (cachegrindWrap with the plan's
// valgrind), its out files and valgrind's log going to outDir.
func (p *CPUPlan) Wrap(outDir string) []string {
	return cachegrindWrap(p.setarch, p.valgrind, outDir)
}

var cpuPlans struct {
	sync.Mutex
	byValgrind map[string]*CPUPlan
}

// ValgrindCPU checks that valgrind (a name on PATH or a path) can run a program here and
// plans the switches of every server counted under it. The plan is made once per harness
// process and valgrind executable, since neither the host nor valgrind changes while it runs;
// the check, a --version, runs every time. A *ValgrindError says why valgrind
// cannot be used.
func ValgrindCPU(ctx context.Context, valgrind string) (*CPUPlan, error) {
	path, err := checkValgrind(ctx, valgrind)
	if err != nil {
		return nil, err
	}
	cpuPlans.Lock()
	defer cpuPlans.Unlock()
	if p := cpuPlans.byValgrind[path]; p != nil {
		return p, nil
	}
	setarch, err := exec.LookPath("setarch")
	if err != nil {
		return nil, fmt.Errorf("setarch not found (%v): install util-linux (scripts/setup.sh)", err)
	}
	guest, err := probeGuest(ctx, path, setarch)
	if err != nil {
		return nil, err
	}
	p := planCPU(guest)
	p.valgrind, p.setarch = path, setarch
	if cpuPlans.byValgrind == nil {
		cpuPlans.byValgrind = map[string]*CPUPlan{}
	}
	cpuPlans.byValgrind[path] = p
	return p, nil
}

// planCPU compares guest with the host: CPUID run natively, less what /proc/cpuinfo's flags
// say the kernel withholds.
func planCPU(guest cpuid.View) *CPUPlan {
	info, err := machine.ReadCPUInfo()
	host := cpuid.Read()
	if err == nil {
		host = host.OnlyListed(info.Flags)
	}
	sw := cpuid.Plan(host, guest)
	return &CPUPlan{
		CPU: cpuid.CountedCPU{Vendor: host.Vendor, Model: info.Model, Flags: info.Flags,
			GuestVendor: guest.Vendor, GuestFeatures: guest.Features, Hidden: sw.Hidden, Switches: sw.Env(nil)},
		Env: sw.Env(os.Environ()),
	}
}

// probeGuest runs this executable's probe under the wrap every counted server runs under
// (cachegrindWrap): the same valgrind, tool and options. GODEBUG=cpu.all=off keeps the probe's
// own Go runtime off every optional instruction, RDTSCP included, whatever the guest claims.
func probeGuest(ctx context.Context, valgrind, setarch string) (cpuid.View, error) {
	self, err := os.Executable()
	if err != nil {
		return cpuid.View{}, fmt.Errorf("the CPUID probe: %w", err)
	}
	dir, err := os.MkdirTemp("", "bindrace-cpuid-")
	if err != nil {
		return cpuid.View{}, err
	}
	defer os.RemoveAll(dir)
	argv := append(cachegrindWrap(setarch, valgrind, dir), self)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), probeEnv+"=1", "GODEBUG=cpu.all=off")
	var out strings.Builder
	cmd.Stdout = &out
	runErr := cmd.Run()
	var v cpuid.View
	if err := json.Unmarshal([]byte(out.String()), &v); runErr != nil || err != nil || v.Vendor == "" {
		return v, &ValgrindError{Kind: ValgrindCrashed, Path: valgrind,
			Detail: fmt.Sprintf("running a program under it (%s): %v; %s", strings.Join(argv, " "), firstErr(runErr, err), logTail(dir))}
	}
	return v, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return fmt.Errorf("no vendor in the probe's answer")
}
