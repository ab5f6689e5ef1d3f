package counters

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/internal/cpuid"
)

// UserSpaceCaveat is printed with every cachegrind figure.
const UserSpaceCaveat = "cachegrind counts user-space instructions of the server process only: " +
	"work the kernel does in its syscalls (the TCP stack, epoll) is not in these figures, so a " +
	"server that makes fewer, larger syscalls looks cheaper than its wall-clock cost; cache and " +
	"branch figures come from valgrind's simple simulated caches and predictor, not this CPU"

// DefaultN is the request count of cachegrind mode's first run when none is given.
const DefaultN = 20000

// CachegrindRun is one fresh server process under cachegrind.
type CachegrindRun struct {
	Requests  int64            `json:"requests"`
	Responses int64            `json:"responses"`
	Events    map[string]int64 `json:"events"` // the out file's summary line
	File      string           `json:"file,omitempty"`
	StartupS  float64          `json:"startup_s"`
	ElapsedS  float64          `json:"elapsed_s"` // the load phase, under valgrind

	Profile *CachegrindProfile `json:"-"` // the whole out file, cost lines included
}

// CachegrindResult is the N and 2N runs and their difference.
type CachegrindResult struct {
	Target      string             `json:"target"`
	Scenario    string             `json:"scenario"`
	N           int                `json:"n"`
	Runs        []CachegrindRun    `json:"runs"`         // [0]: N requests, [1]: 2N requests
	Responses   int64              `json:"responses"`    // responses(2N run) − responses(N run)
	Totals      Totals             `json:"-"`            // run 2N − run N, derived counter names
	PerResponse map[string]float64 `json:"per_response"` // Totals / Responses, raw (noise can make a small one negative)
	Events      map[string]float64 `json:"events"`       // raw events (Ir, Bc, …) per response

	// Resolution is, per counter, the smallest per-response total told from noise; a total
	// under it is shown as "under the resolution", never as a number.
	Resolution Resolution `json:"resolution"`
	// Estimated holds estimated-cycles per response: a model over the simulated caches
	// (EstimatedFormula), estimated (simulated), never a count of cycles.
	Estimated map[string]float64 `json:"estimated"`
	Functions *Breakdown         `json:"functions"` // per-function slopes
	Files     *Breakdown         `json:"files"`     // per-source-file slopes (inlined helpers under their own file)
	// CPU: the host, what the server saw under valgrind and the switches applied (ValgrindCPU).
	CPU *cpuid.CountedCPU `json:"cpu"`
}

// NewCachegrindResult is the difference of runs (N requests, then 2N, each in a fresh server
// under Wrap) as per-response figures: (count(2N) − count(N)) / N cancels start-up,
// the readiness probe and shutdown. cpu is the plan the runs were counted under.
func NewCachegrindResult(target, scenario string, n int, runs [2]CachegrindRun, cpu *cpuid.CountedCPU) (*CachegrindResult, error) {
	res := &CachegrindResult{Target: target, Scenario: scenario, N: n, Runs: runs[:], CPU: cpu}
	return res, res.difference()
}

// difference turns the N and 2N runs into per-response figures: totals, events, estimated
// cycles, and both breakdowns with their resolution.
func (res *CachegrindResult) difference() error {
	a, b := res.Runs[0], res.Runs[1]
	res.Responses = b.Responses - a.Responses
	if res.Responses <= 0 {
		return fmt.Errorf("no extra responses between the runs (%d, %d)", a.Responses, b.Responses)
	}
	va, vb := slopeCounters(a.Events), slopeCounters(b.Events)
	res.Totals = Totals{
		Window: time.Duration((b.ElapsedS - a.ElapsedS) * float64(time.Second)),
		Values: map[string]float64{},
	}
	for k, v := range vb {
		if w, ok := va[k]; ok && k != EstimatedCycles {
			res.Totals.Values[k] = v - w
		}
	}
	res.Totals.Unsupported = cachegrindUnsupported(res.Totals.Values)
	if d := res.Totals.Values[Instructions]; d <= 0 {
		return fmt.Errorf("the %d-request run counted no more instructions than the %d-request run (%d vs %d Ir)",
			b.Requests, a.Requests, b.Events["Ir"], a.Events["Ir"])
	}
	res.PerResponse = PerResponse(res.Totals, res.Responses)
	res.Estimated = map[string]float64{}
	if e, ok := vb[EstimatedCycles]; ok {
		res.Estimated[EstimatedCycles] = (e - va[EstimatedCycles]) / float64(res.Responses)
	}
	res.Events = map[string]float64{}
	for k, v := range b.Events {
		if w, ok := a.Events[k]; ok {
			res.Events[k] = float64(v-w) / float64(res.Responses)
		}
	}
	if a.Profile != nil && b.Profile != nil {
		res.breakdowns(a.Profile, b.Profile)
	}
	return nil
}

// breakdowns fills the function and file views and the totals' resolution, and says so when
// the totals or the tables fall under it or lack symbols.
func (res *CachegrindResult) breakdowns(a, b *CachegrindProfile) {
	seconds, node := res.Runs[0].ElapsedS+res.Runs[1].ElapsedS, isNode(b.Cmd)
	fnSlopes := Slopes(a, b, res.Responses, ByFunction)
	rowRes, totalRes := Resolutions(fnSlopes, res.N, seconds, node)
	res.Resolution = totalRes
	res.Functions = NewBreakdown(ByFunction, fnSlopes, rowRes, totalRes)
	flSlopes := Slopes(a, b, res.Responses, ByFile)
	flRowRes, _ := Resolutions(flSlopes, res.N, seconds, node)
	res.Files = NewBreakdown(ByFile, flSlopes, flRowRes, totalRes)

	if note := strippedNote(b.Cmd); note != "" {
		res.Functions.Notes = append(res.Functions.Notes, note)
	}
	if sh := res.Functions.NoSymbolShare(); sh >= 1 {
		res.Functions.Notes = append(res.Functions.Notes, fmt.Sprintf("%.1f%% of the instructions ran in code without a symbol (%s)", sh, unknownLabel(b.Cmd)))
	}
	var under []string
	for _, k := range CachegrindCounters {
		if v, ok := res.PerResponse[k]; ok && !totalRes.Resolves(k, v) {
			under = append(under, k)
		}
	}
	if len(under) > 0 {
		res.Totals.Notes = append(res.Totals.Notes, fmt.Sprintf("%s: under the resolution, what %d more requests add cannot be told from the time-driven work that differs between the two runs (docs/counters.md)", strings.Join(under, ", "), res.N))
	}
}

// ValgrindEnv is what a server needs to run under valgrind: an io_uring loop waits in ppoll on
// its ring, not in io_uring_enter, which valgrind 3.19 runs holding the lock every other thread
// needs (docs/io_uring.md, "Counting it"). The epoll loop ignores it.
var ValgrindEnv = []string{"BINDRACE_URING_WAIT=poll"}

// cachegrindWrap is the command prefix a server runs under: ASLR off so addresses, hash seeds
// taken from them and the simulated cache's set mapping repeat run to run; symbols left mangled
// so that SymbolName demangles every name the same way (and folds clones into their function);
// valgrind's own messages in a log file per process beside the out files, so that a server
// that dies is explained from it (DiedIn) and the log stays with the counts.
func cachegrindWrap(setarch, valgrind, outDir string) []string {
	return []string{setarch, "-R", valgrind, "--tool=cachegrind", "--branch-sim=yes", "--cache-sim=yes", "--demangle=no",
		"--cachegrind-out-file=" + filepath.Join(outDir, "cg.%p"), "--log-file=" + filepath.Join(outDir, valgrindLog)}
}

// ReadOutFile reads into run the out file the server pid wrote in dir at its exit.
func ReadOutFile(dir string, pid int, run *CachegrindRun) error {
	file, err := pickOutFile(dir, pid)
	if err != nil {
		return err
	}
	prof, err := ParseCachegrindFile(file)
	if err != nil {
		return err
	}
	run.Events, run.File, run.Profile = prof.Totals, file, prof
	return nil
}

// pickOutFile finds the server's cg.<pid> file; when valgrind traced several processes (a wrapper
// script), the one with the most instructions is the server.
func pickOutFile(dir string, pid int) (string, error) {
	want := filepath.Join(dir, "cg."+strconv.Itoa(pid))
	if st, err := os.Stat(want); err == nil && st.Size() > 0 {
		return want, nil
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "cg.*"))
	if len(matches) == 0 {
		return "", fmt.Errorf("no cachegrind out file in %s: did the server exit through a signal valgrind could not catch (SIGKILL)?", dir)
	}
	best, bestIr := "", int64(-1)
	for _, m := range matches {
		if p, err := ParseCachegrindFile(m); err == nil && p.Totals["Ir"] > bestIr {
			best, bestIr = m, p.Totals["Ir"]
		}
	}
	if best == "" {
		return "", fmt.Errorf("no readable cachegrind out file among %s", strings.Join(matches, ", "))
	}
	return best, nil
}
