package counters

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// UserSpaceCaveat is printed with every cachegrind figure.
const UserSpaceCaveat = "cachegrind counts user-space instructions of the server process only: " +
	"work the kernel does in its syscalls (the TCP stack, epoll) is not in these figures, so a " +
	"server that makes fewer, larger syscalls looks cheaper than its wall-clock cost; cache and " +
	"branch figures come from valgrind's simple simulated caches and predictor, not this CPU"

// DefaultN is the request count of cachegrind mode's first run when none is given.
const DefaultN = 20000

// CachegrindOptions shape a cachegrind measurement. Zero values take the defaults.
type CachegrindOptions struct {
	Connections  int           // default 1: one pipelined connection keeps the batches identical
	Pipelining   int           // default 10
	CPUs         string        // taskset list for the server, "" = not pinned
	Threads      int           // server threads, 0 = the target's default
	StartTimeout time.Duration // default 180 s for node (uws), 90 s otherwise
	Timeout      time.Duration // load generator's dial/per-batch timeout, default 60 s
	StopTimeout  time.Duration // wait for the server to exit after SIGTERM, default 120 s
	Dir          string        // where the cg.<pid> files go; "" = a temporary directory, removed
	Valgrind     string        // valgrind executable, default "valgrind" from PATH
	DB           Backend       // a database scenario's trial database; nil for the others
	// Gap is the pause between batches. > 0 (default 2 ms): a paced single-connection client
	// waits for a whole batch's responses, then Gap, so every batch meets an idle server and
	// costs it the same; this is what makes the figure repeat to ~0.1-0.5%. < 0: load.Run in
	// Count mode (closed loop, no pause, Connections honoured), which races the valgrind'ed
	// server and repeats only to a few percent.
	Gap time.Duration
	Log io.Writer // server output and progress lines; nil = discarded
}

// CachegrindRun is one fresh server process under cachegrind.
type CachegrindRun struct {
	Requests  int64            `json:"requests"`
	Responses int64            `json:"responses"`
	Events    map[string]int64 `json:"events"` // the out file's summary line
	File      string           `json:"file,omitempty"`
	StartupS  float64          `json:"startup_s"`
	ElapsedS  float64          `json:"elapsed_s"` // the load phase, under valgrind

	profile *CachegrindProfile // the whole out file, cost lines included
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
	CPU *session.CountedCPU `json:"cpu"`
}

// Cachegrind measures target's per-response counts for scenario sc deterministically: one fresh
// server under `setarch -R valgrind --tool=cachegrind --branch-sim=yes --cache-sim=yes` driven
// with exactly n requests, a second fresh one with 2n, each stopped with SIGTERM so cachegrind
// writes its file; (count(2n) − count(n)) / n cancels start-up, the readiness probe and shutdown.
func Cachegrind(ctx context.Context, t *targets.Target, sc scenario.Scenario, n int, o CachegrindOptions) (_ *CachegrindResult, err error) {
	if n <= 0 {
		return nil, fmt.Errorf("cachegrind: n must be > 0, got %d", n)
	}
	o = o.withDefaults(t)
	if err := checkBackend(t, o.DB, sc); err != nil {
		return nil, err
	}
	plan, err := ValgrindCPU(ctx, o.Valgrind)
	if err != nil {
		return nil, fmt.Errorf("cachegrind: %w", err)
	}
	setarch, err := exec.LookPath("setarch")
	if err != nil {
		return nil, fmt.Errorf("cachegrind: setarch not found (%v): install util-linux (scripts/setup.sh)", err)
	}
	dir, err := countDir(o.Dir)
	if err != nil {
		return nil, err
	}
	if o.Dir == "" {
		// A server that died leaves its valgrind log here for the error to point at.
		defer func() {
			if !errors.As(err, new(*DiedError)) {
				os.RemoveAll(dir)
			}
		}()
	}
	res := &CachegrindResult{Target: t.Name, Scenario: sc.Name, N: n, CPU: &plan.CPU}
	for i, count := range []int64{int64(n), 2 * int64(n)} {
		runDir := filepath.Join(dir, fmt.Sprintf("%s-%s-%d", safeName(t.Name), sc.Name, count))
		if err := os.MkdirAll(runDir, 0o755); err != nil {
			return nil, err
		}
		logf(o.Log, "cachegrind: %s %s: run %d/2, %d requests (server under valgrind, start-up is slow)", t.Name, sc.Name, i+1, count)
		var run *CachegrindRun
		run, err = cachegrindRun(ctx, t, sc, count, runDir, plan, setarch, o)
		if err != nil {
			return nil, fmt.Errorf("cachegrind %s %s, run with %d requests: %w", t.Name, sc.Name, count, err)
		}
		if o.Dir == "" {
			run.File = ""
		}
		res.Runs = append(res.Runs, *run)
		logf(o.Log, "cachegrind: %s %s: %d requests: Ir %d", t.Name, sc.Name, count, run.Events["Ir"])
	}
	if err := res.difference(); err != nil {
		return nil, fmt.Errorf("cachegrind %s %s: %w", t.Name, sc.Name, err)
	}
	return res, nil
}

// countDir is where a measurement's runs write: dir, made if need be, or a new temporary one.
func countDir(dir string) (string, error) {
	if dir == "" {
		return os.MkdirTemp("", "bindrace-cachegrind-")
	}
	return dir, os.MkdirAll(dir, 0o755)
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
	if a.profile != nil && b.profile != nil {
		res.breakdowns(a.profile, b.profile)
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
		if v, ok := res.PerResponse[k]; ok && !totalRes.resolves(k, v) {
			under = append(under, k)
		}
	}
	if len(under) > 0 {
		res.Totals.Notes = append(res.Totals.Notes, fmt.Sprintf("%s: under the resolution, what %d more requests add cannot be told from the time-driven work that differs between the two runs (docs/counters.md)", strings.Join(under, ", "), res.N))
	}
}

func (o CachegrindOptions) withDefaults(t *targets.Target) CachegrindOptions {
	if o.Connections <= 0 {
		o.Connections = 1
	}
	if o.Pipelining <= 0 {
		o.Pipelining = 10
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 90 * time.Second
		if t.Kind == targets.KindNode {
			o.StartTimeout = 180 * time.Second
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = 120 * time.Second
	}
	if o.Gap == 0 {
		o.Gap = 500 * time.Microsecond
	}
	if o.Valgrind == "" {
		o.Valgrind = "valgrind"
	}
	return o
}

// ValgrindEnv is what a server needs to run under valgrind: an io_uring loop waits in ppoll on
// its ring, not in io_uring_enter, which valgrind 3.19 runs holding the lock every other thread
// needs (docs/io_uring.md, "Counting it"). The epoll loop ignores it.
var ValgrindEnv = []string{"BINDRACE_URING_WAIT=poll"}

// CachegrindWrap is the command prefix a server runs under: ASLR off so addresses, hash seeds
// taken from them and the simulated cache's set mapping repeat run to run; symbols left mangled
// so that SymbolName demangles every name the same way (and folds clones into their function);
// valgrind's own messages in a log file per process beside the out files, so that a server
// that dies is explained from it (diedIn) and the log stays with the counts.
func CachegrindWrap(setarch, valgrind, outDir string) []string {
	return []string{setarch, "-R", valgrind, "--tool=cachegrind", "--branch-sim=yes", "--cache-sim=yes", "--demangle=no",
		"--cachegrind-out-file=" + filepath.Join(outDir, "cg.%p"), "--log-file=" + filepath.Join(outDir, valgrindLog)}
}

// cachegrindRun is one run in dir. A server that died under valgrind surfaces as whatever its
// death broke first (start-up, a reset connection, no out file); valgrind's log says what
// happened, so that is the error.
func cachegrindRun(ctx context.Context, t *targets.Target, sc scenario.Scenario, count int64, dir string, plan *CPUPlan, setarch string, o CachegrindOptions) (*CachegrindRun, error) {
	run, err := serveCounted(ctx, t, sc, count, dir, plan, setarch, o)
	if d := diedIn(dir); d != nil {
		return nil, d
	}
	return run, err
}

// serveCounted starts the server under valgrind with the plan's switches, drives it with count
// requests, stops it and reads its out file.
func serveCounted(ctx context.Context, t *targets.Target, sc scenario.Scenario, count int64, dir string, plan *CPUPlan, setarch string, o CachegrindOptions) (*CachegrindRun, error) {
	srv, err := t.Start(ctx, targets.StartOptions{
		Threads:      o.Threads,
		CPUs:         o.CPUs,
		Wrap:         CachegrindWrap(setarch, plan.valgrind, dir),
		StartTimeout: o.StartTimeout,
		Log:          o.Log,
		Env:          slices.Concat(backendEnv(o.DB), ValgrindEnv, plan.Env),
	})
	if err != nil {
		return nil, fmt.Errorf("start under valgrind: %w", err)
	}
	stopped := false
	defer func() {
		if !stopped {
			srv.Stop()
		}
	}()
	addr := srv.Addr()
	run := &CachegrindRun{Requests: count, StartupS: srv.Startup.Seconds()}
	if o.Gap > 0 {
		got, elapsed, err := pacedRun(ctx, addr, exchangeFor(sc, addr, backendRequests(o.DB, sc, addr)), count, o.Pipelining, o.Gap, o.Timeout)
		if err != nil {
			return nil, fmt.Errorf("paced client: %d of %d responses: %w", got, count, err)
		}
		run.Responses, run.ElapsedS = got, elapsed.Seconds()
	} else {
		cfg := load.ForScenario(sc, addr)
		cfg.Build = backendRequests(o.DB, sc, addr)
		cfg.Connections, cfg.Pipelining, cfg.Workers, cfg.Count, cfg.Timeout = o.Connections, o.Pipelining, 1, count, o.Timeout
		res, err := load.Run(ctx, cfg, load.Hooks{})
		if err != nil {
			return nil, fmt.Errorf("load: %w", err)
		}
		if errs := errorCount(res.Errors); errs > 0 || res.Responses != count {
			return nil, fmt.Errorf("load: %d of %d responses, errors %v: the difference would not be %d requests' worth", res.Responses, count, res.Errors, count)
		}
		run.Responses, run.ElapsedS = res.Responses, res.Elapsed.Seconds()
	}

	// Graceful stop so valgrind runs cachegrind's exit and writes the file: SIGTERM, then wait
	// (a valgrind'ed exit takes seconds) before Stop's SIGKILL could cut it short.
	if err := terminate(srv.Pid); err != nil {
		return nil, fmt.Errorf("SIGTERM server pid %d: %w", srv.Pid, err)
	}
	select {
	case <-srv.Exited():
	case <-time.After(o.StopTimeout):
		return nil, fmt.Errorf("server pid %d did not exit within %s of SIGTERM; cachegrind writes its file only at exit", srv.Pid, o.StopTimeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	srv.Stop()
	stopped = true

	file, err := pickOutFile(dir, srv.Pid)
	if err != nil {
		return nil, err
	}
	prof, err := ParseCachegrindFile(file)
	if err != nil {
		return nil, err
	}
	run.Events, run.File, run.profile = prof.Totals, file, prof
	return run, nil
}

// terminate sends SIGTERM to the server's process group (Start puts it in its own), or to the
// process alone when it has no group of its own.
func terminate(pid int) error {
	if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
		return syscall.Kill(-pid, syscall.SIGTERM)
	}
	err := syscall.Kill(pid, syscall.SIGTERM)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone; Exited will say so
	}
	return err
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

func errorCount(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

func logf(w io.Writer, format string, a ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", a...)
	}
}
