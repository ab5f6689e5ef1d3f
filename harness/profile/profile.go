// Package profile loads the race profiles in profiles/*.json and applies the command-line
// overrides of race and matrix to them.
package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/bindrace/bindrace/harness/counters"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/strictjson"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/setting"
	"github.com/bindrace/bindrace/harness/stats"
)

// Duration is a time.Duration written in JSON as a Go duration string ("5s", "200ms") or a
// number of seconds.
type Duration time.Duration

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("bad duration %q (want e.g. \"5s\" or \"200ms\")", s)
		}
		if v < 0 {
			return fmt.Errorf("negative duration %q", s)
		}
		*d = Duration(v)
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("bad duration %s (want a string like \"5s\" or seconds)", b)
	}
	if f < 0 {
		return fmt.Errorf("negative duration %s", b)
	}
	if f >= math.MaxInt64/float64(time.Second) {
		return fmt.Errorf("duration %s seconds is past the longest Go can hold (292 years)", b)
	}
	*d = Duration(f * float64(time.Second))
	return nil
}

// Extra is a further race a profile asks for beside its scenarios, e.g. ping without
// pipelining. Zero fields inherit the profile's values.
type Extra struct {
	Name        string `json:"name,omitempty"` // sub-session name; default "<scenario>-p<pipelining>"
	Scenario    string `json:"scenario"`
	Pipelining  int    `json:"pipelining,omitempty"`
	Connections int    `json:"connections,omitempty"`
	// Count false leaves this race out of the counts step (cachegrind, paced system calls):
	// where the counts cannot decide the profile's limit (ping at pipelining 1 under valgrind
	// resolves ±2.7% against +1%: docs/counters.md), counting would only take pairs' time.
	Count *bool `json:"count,omitempty"`
}

// Method is how every run of a session is measured: the steps of one run and their timing,
// where the server and the load generator run, and with what. harness/measure reads it as it
// is; a flag that overrides one of these writes into it directly.
type Method struct {
	// Windows per run: 1 measures every run in its own fresh process; more keeps both servers
	// of a pair alive and measures them in alternating windows (A B B A …), summed per side.
	Windows  int      `json:"windows"`
	Warmup   Duration `json:"warmup"`
	Duration Duration `json:"duration"`
	Settle   Duration `json:"settle"`   // pause between warm-up and the measured window
	Cooldown Duration `json:"cooldown"` // pause between runs
	// BusySample is how long the machine's idle and steal time are read before each run (the
	// end of the cooldown); 0 skips it.
	BusySample Duration `json:"busy_sample"`
	// WarmupRequests > 0 opens every run with exactly that many requests, all of which must
	// succeed, before the timed warm-up (pools filled, statements prepared, caches warm).
	WarmupRequests int64 `json:"warmup_requests,omitempty"`

	Workers int `json:"workers"` // client workers; capped to the client's CPUs
	// Loadgen drives the load: "builtin" (bindrace's own client) or "wrk" (HTTP scenarios, whole
	// seconds), to show that a headline is not one client's artefact.
	Loadgen string `json:"loadgen"`
	Threads int    `json:"threads"` // server threads; 0 = one per server CPU

	CPUsServer string `json:"cpus_server"` // taskset lists; "" = default split
	CPUsClient string `json:"cpus_client"`

	// StealLimitPct: a round of partner windows either of which lost more than this share of
	// the CPUs' time to the hypervisor is set aside and measured again (stats.Spoiled); below 0
	// nothing is set aside.
	StealLimitPct float64 `json:"steal_limit_pct"`
}

// Profile is one profiles/<name>.json.
type Profile struct {
	Name        string   `json:"name,omitempty"`
	Description string   `json:"description,omitempty"`
	Scenario    string   `json:"scenario,omitempty"`  // one scenario ...
	Scenarios   []string `json:"scenarios,omitempty"` // ... or several, one sub-session each

	Pairs int `json:"pairs,omitempty"` // race, fixed design: AB/BA pairs (none in a sequential one)
	// Sequential plans the pairs instead: looks after every even pair count, stopping once every
	// check is decided (stats.SequentialDesign); "pairs" is then left out.
	Sequential *Sequential `json:"sequential,omitempty"`
	Rounds     int         `json:"rounds"` // matrix: rounds
	Method                 // how every run is measured

	Connections int `json:"connections"`
	Pipelining  int `json:"pipelining"`

	Thresholds session.Thresholds `json:"thresholds"`
	// Confidence is the family level of the gate: a build raced against itself FAILs at most
	// 1-Confidence of the time over all statistical checks of the profile together.
	Confidence float64 `json:"confidence"`
	// DecideOn is the throughput figure the verdict rests on: "rps", or "rps_per_cpu_second"
	// when the load generator cannot saturate the servers.
	DecideOn string `json:"decide_on"`
	// Counters: "", "perf" (per-run perf_event counters, reported), "cachegrind" (deterministic
	// instructions per response of both sides, gated), or "perf,cachegrind".
	Counters       string  `json:"counters"`
	CachegrindN    int     `json:"cachegrind_n"`    // requests of the first cachegrind run (the second sends 2N)
	CachegrindReps int     `json:"cachegrind_reps"` // N/2N measurements per side; the median is gated
	ExtraRaces     []Extra `json:"extra_races,omitempty"`
	// Pooled gates the races' throughput together: one check on pooled pairs (pair i's ratio
	// averaged geometrically over the races; stats.PooledEvidence) with half the false-FAIL
	// budget, and in each race a FAIL-only guard sharing the other half, so that one shape's
	// collapse is not averaged away. For shapes too noisy one by one (db); fixed designs only;
	// see PoolsThroughput for when it applies.
	Pooled bool `json:"pooled,omitempty"`
	// Rate makes every race an open loop at this many requests per second in all (0: closed
	// loop); RateFraction instead offers both sides this fraction of the lower of their
	// closed-loop maxima, measured in the session at the same pipelining. An open-loop race
	// gates on latency (p50, p99), not on throughput, which the rate fixes.
	Rate         float64 `json:"rate,omitempty"`
	RateFraction float64 `json:"rate_fraction,omitempty"`

	Path string `json:"-"` // where it was loaded from
}

// Sequential is a sequential design's budget.
type Sequential struct {
	MinPairs int `json:"min_pairs"` // the first look
	MaxPairs int `json:"max_pairs"` // the last look; with the level it fixes every bound
	// MaxTime is the whole session's wall-clock budget (0: none): a race stops before a pair it
	// cannot finish in time, and races after a decided one get the time it left.
	MaxTime Duration `json:"max_time"`
}

// Default is the profile values a file leaves out.
func Default() Profile {
	return Profile{
		Scenario: "ping", Pairs: 4, Rounds: 3,
		Method: Method{Windows: 1, Warmup: Duration(time.Second), Duration: Duration(5 * time.Second),
			Settle: Duration(200 * time.Millisecond), Cooldown: Duration(time.Second), BusySample: Duration(time.Second),
			Workers: 1, Loadgen: "builtin", StealLimitPct: stats.StealLimitPct},
		Connections: 100, Pipelining: 10,
		Thresholds: session.Thresholds{MinMedianDeltaPct: -5, MaxP99DeltaPct: 25, MaxP50DeltaPct: 25, MaxErrors: 0,
			CounterMaxGrowthPct: map[string]float64{"instructions": 1}},
		Confidence: 0.95, DecideOn: "rps", CachegrindN: 20000, CachegrindReps: 3,
	}
}

// Dir is where named profiles live: $BINDRACE_PROFILES, else <repo root>/profiles.
func Dir() string {
	if d := os.Getenv("BINDRACE_PROFILES"); d != "" {
		return d
	}
	if r, err := machine.RepoRoot(); err == nil {
		return filepath.Join(r, "profiles")
	}
	return "profiles"
}

// Names lists the profiles in dir.
func Names(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var out []string
	for _, f := range files {
		out = append(out, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	sort.Strings(out)
	return out
}

// ErrNotFound is wrapped by Load when no such profile exists.
var ErrNotFound = errors.New("profile not found")

// Load reads a profile by name (profiles/<name>.json in dir) or by path (anything holding a
// "/" or ending in ".json"). Unknown fields are an error naming the field.
func Load(nameOrPath, dir string) (*Profile, error) {
	path := nameOrPath
	byName := !strings.ContainsRune(nameOrPath, '/') && !strings.HasSuffix(nameOrPath, ".json")
	if byName {
		if dir == "" {
			dir = Dir()
		}
		path = filepath.Join(dir, nameOrPath+".json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if byName {
				known := Names(dir)
				k := "none"
				if len(known) > 0 {
					k = strings.Join(known, ", ")
				}
				return nil, fmt.Errorf("%w: no profile %q (looked for %s; known: %s)", ErrNotFound, nameOrPath, path, k)
			}
			return nil, fmt.Errorf("%w: %s does not exist", ErrNotFound, path)
		}
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	p, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	p.Path = path
	if p.Name == "" {
		p.Name = strings.TrimSuffix(filepath.Base(path), ".json")
	}
	return p, nil
}

// Parse decodes a profile over the defaults and checks it: one JSON object (strictjson), every
// field known and of its type, every value in range (Check).
func Parse(b []byte) (*Profile, error) {
	p := Default()
	if err := strictjson.Decode(b, &p); err != nil {
		return nil, err
	}
	if len(p.Scenarios) > 0 && p.Scenario != "" && p.Scenario != Default().Scenario {
		return nil, errors.New(`set "scenario" or "scenarios", not both`)
	}
	if len(p.Scenarios) > 0 {
		p.Scenario = ""
	}
	p.emptyIsNone()
	if p.Sequential != nil {
		var given struct {
			Pairs *int `json:"pairs"`
		}
		if json.Unmarshal(b, &given) == nil && given.Pairs != nil {
			return nil, errors.New(`set "pairs" (a fixed design) or "sequential", not both`)
		}
		p.Pairs = 0
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	return &p, nil
}

// emptyIsNone makes an empty list or map of the file none at all, as the profile's encoding
// writes both (omitted), so a profile reads back the same from its own JSON.
func (p *Profile) emptyIsNone() {
	if len(p.Scenarios) == 0 {
		p.Scenarios = nil
	}
	if len(p.ExtraRaces) == 0 {
		p.ExtraRaces = nil
	}
	for _, m := range []*map[string]float64{&p.Thresholds.CounterMaxDeltaPct, &p.Thresholds.CounterMaxGrowthPct, &p.Thresholds.CounterMaxExcess} {
		if len(*m) == 0 {
			*m = nil
		}
	}
}

// Check validates the values; an error names the setting (setting.Error).
func (p *Profile) Check() error {
	for _, c := range []struct {
		bad  bool
		text string
		v    any
	}{
		{p.Sequential == nil && p.Pairs < 1, "{pairs} must be at least 1 (got %v)", p.Pairs},
		{p.Windows < 1, "{windows} must be at least 1 (got %v)", p.Windows},
		{p.Rounds < 1, "{rounds} must be at least 1 (got %v)", p.Rounds},
		{p.Duration <= 0, "{duration} must be positive (got %v)", p.Duration.D()},
		{p.Warmup < 0, "{warmup} must not be negative (got %v)", p.Warmup.D()},
		{p.Settle < 0, "{settle} must not be negative (got %v)", p.Settle.D()},
		{p.Cooldown < 0, "{cooldown} must not be negative (got %v)", p.Cooldown.D()},
		{p.BusySample < 0, "{busy_sample} must not be negative (got %v)", p.BusySample.D()},
		{p.Connections < 1, "{connections} must be at least 1 (got %v)", p.Connections},
		{p.Pipelining < 1, "{pipelining} must be at least 1 (got %v)", p.Pipelining},
		{p.Workers < 0, "{workers} must not be negative (got %v)", p.Workers},
		{p.Threads < 0, "{threads} must not be negative (got %v)", p.Threads},
		{p.WarmupRequests < 0, "{warmup_requests} must not be negative (got %v)", p.WarmupRequests},
		{p.Confidence < 0.5 || p.Confidence >= 1, "{confidence} must be in [0.5, 1) (got %v)", p.Confidence},
		{p.DecideOn != "rps" && p.DecideOn != "rps_per_cpu_second", `{decide_on} must be "rps" or "rps_per_cpu_second" (got %q)`, p.DecideOn},
		{p.Loadgen != "builtin" && p.Loadgen != "wrk", `{loadgen} must be "builtin" or "wrk" (got %q)`, p.Loadgen},
		{p.CachegrindN < 1, "{cachegrind_n} must be at least 1 (got %v)", p.CachegrindN},
		{p.CachegrindReps < 1, "{cachegrind_reps} must be at least 1 (got %v)", p.CachegrindReps},
	} {
		if c.bad {
			return setting.Errorf(c.text, c.v)
		}
	}
	if _, err := ParseCounters(p.Counters); err != nil {
		return err
	}
	if err := CheckRate(p.Rate, p.RateFraction); err != nil {
		return err
	}
	if err := checkThresholds(p.Thresholds); err != nil {
		return err
	}
	if err := checkPooled(p); err != nil {
		return err
	}
	// The bounds before the races: a design of millions of pairs would take hours to plan.
	if err := p.checkBounds(); err != nil {
		return err
	}
	return p.checkRaces()
}

// checkPooled refuses a pooled profile whose races cannot be pooled pair by pair.
func checkPooled(p *Profile) error {
	if p.Pooled && p.Sequential != nil {
		return setting.Errorf("{pooled} needs a fixed design ({pairs}): pooled pair i needs pair i of every race, and a sequential race stops on its own")
	}
	return nil
}

// PoolsThroughput is whether a race of this profile pools its throughput: a pooled profile of
// two races or more in a closed loop (one race has nothing to pool with, and an open loop's
// races gate latency, each on its own).
func (p *Profile) PoolsThroughput() bool { return p.Pooled && !p.OpenLoop() && len(p.Races()) > 1 }

// checkRaces checks the scenario names and the extra races.
func (p *Profile) checkRaces() error {
	for _, s := range p.ScenarioList() {
		if s == "" {
			return setting.Errorf("{scenarios}: empty scenario name")
		}
	}
	if _, err := p.Design(); err != nil {
		return err
	}
	for i, e := range p.ExtraRaces {
		if e.Scenario == "" {
			return setting.Errorf("{extra_races}[%d]: scenario is required", i)
		}
		if e.Pipelining < 0 || e.Connections < 0 {
			return setting.Errorf("{extra_races}[%d]: negative value", i)
		}
	}
	return nil
}

// Counter modes a profile can ask for (counters.Modes says what each needs).
const (
	CountersPerf       = counters.ModePerf
	CountersCachegrind = counters.ModeCachegrind
	// CountersSyscalls counts the server's system calls per response in every window of the
	// live load (tracepoints; no PMU needed).
	CountersSyscalls = counters.ModeSyscalls
	// CountersSample samples the server's threads with perf record -e cpu-clock -g during its
	// windows: where its CPU time went, kernel included, per response (no PMU needed).
	CountersSample = counters.ModeSample
)

// ParseCounters reads a counters setting: "", "none", or modes of counters.Modes joined by
// commas, into the set of modes.
func ParseCounters(v string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, m := range strings.Split(v, ",") {
		m = strings.TrimSpace(m)
		if _, ok := counters.ModeNamed(m); ok {
			out[m] = true
		} else if m != "" && m != "none" {
			return nil, setting.Errorf(`{counters}: unknown mode %q (want %s, several joined by commas as "perf,cachegrind", or "none")`, m, counters.ModeNames(nil))
		}
	}
	return out, nil
}

// Has reports whether the profile asks for a counters mode. A live system-call limit asks for
// the syscalls mode: it gates what that mode counts.
func (p *Profile) Has(mode string) bool {
	m, _ := ParseCounters(p.Counters)
	return m[mode] || mode == CountersSyscalls && p.Thresholds.LiveSyscallMaxDeltaPct != nil
}

// GateThresholds are the thresholds a race applies: the profile's, with instructions gated A
// against B (+1%) when it counts deterministically and names no counter limit of its own.
func (p *Profile) GateThresholds() session.Thresholds {
	th := p.Thresholds
	if p.Has(CountersCachegrind) && th.CounterMaxDeltaPct == nil {
		th.CounterMaxDeltaPct = map[string]float64{"instructions": 1}
	}
	return th
}

// RaceThresholds are the thresholds race r applies: GateThresholds, less the counts' limits
// when the profile leaves r out of the counts step (an uncounted race gates what it measured).
func (p *Profile) RaceThresholds(r Race) session.Thresholds {
	th := p.GateThresholds()
	if r.Uncounted {
		th.CounterMaxDeltaPct, th.CounterMaxGrowthPct, th.SyscallMaxDeltaPct, th.SyscallMaxGrowthPct = nil, nil, nil, nil
	}
	return th
}

// FallibleChecks is how many statistical checks of this profile can FAIL a release: in each
// closed-loop race throughput alone (its p99 is context: a saturated closed loop's p99 is its
// queue over its throughput, gate/context.go), in each open-loop race p50 and p99 (the rate
// fixes throughput), and live system calls per response where they are gated. They share the
// false-FAIL budget 1-Confidence (stats.CheckLevel); gate_test holds this count to the checks
// gate.Decide makes.
func (p *Profile) FallibleChecks() int {
	per := 1
	if p.OpenLoop() {
		per = 2
	}
	if p.Thresholds.LiveSyscallMaxDeltaPct != nil {
		per++
	}
	n := per * len(p.Races())
	if p.PoolsThroughput() {
		n++ // the pooled check, beside each race's guard
	}
	return n
}

// Alpha is each race's statistical check's share of the false-FAIL budget, per direction: the
// union bound over FallibleChecks gives each (1 - Confidence) / FallibleChecks. A pooled
// profile's races are FAIL-only guards sharing half the budget (PooledAlpha has the other).
func (p *Profile) Alpha() float64 {
	if p.PoolsThroughput() {
		return PooledAlpha(p.Confidence) / float64(len(p.Races()))
	}
	return (1 - p.Confidence) / float64(p.FallibleChecks())
}

// PooledAlpha is a pooled check's share of a family's false-FAIL budget at confidence, per
// direction: half of it (the races' guards share the other half).
func PooledAlpha(confidence float64) float64 { return (1 - confidence) / 2 }

// Design is how a race of this profile plans its pairs: Pairs rounded up to even in a fixed
// design, or the sequential plan. An error says what a sequential budget lacks: one of fewer
// pairs than a check needs to decide at all, every pair won, at its share of the budget
// (2^-n <= alpha), is refused before anything runs; a fixed design of fewer is allowed and
// INCONCLUSIVE naming that count (a smoke test's two pairs, as the design says).
func (p *Profile) Design() (*session.Design, error) {
	if p.Sequential == nil {
		return stats.FixedDesign(p.Pairs+p.Pairs%2, p.Alpha()), nil
	}
	sq := p.Sequential
	if sq.MinPairs < 2 {
		return nil, setting.Errorf("sequential {min_pairs} must be at least 2 (got %d)", sq.MinPairs)
	}
	if need := stats.MinDecisivePairs(p.Alpha()); sq.MaxPairs < need {
		return nil, setting.Errorf("{max_pairs} %d can decide nothing: with %d gated check(s) sharing the %s false-FAIL budget (%.4g%% per check and direction) even a race that wins every pair needs %d pairs; give at least %d",
			sq.MaxPairs, p.FallibleChecks(), pct(1-p.Confidence), 100*p.Alpha(), need, need)
	}
	d, err := stats.SequentialDesign(sq.MinPairs, sq.MaxPairs, p.Alpha())
	if err != nil {
		return nil, setting.Errorf("sequential design ({min_pairs} %d, {max_pairs} %d): %v", sq.MinPairs, sq.MaxPairs, err)
	}
	d.MaxTimeS = sq.MaxTime.D().Seconds()
	return d, nil
}

// pct writes a share in percent without trailing zeros: 0.05 -> "5%".
func pct(x float64) string { return fmt.Sprintf("%.4g%%", 100*x) }

// ScenarioList is the scenarios a race of this profile covers.
func (p *Profile) ScenarioList() []string {
	if len(p.Scenarios) > 0 {
		return p.Scenarios
	}
	return []string{p.Scenario}
}

// Race is one race (one sub-session) a profile expands to.
type Race struct {
	Name        string // sub-session name: the scenario, or the extra race's name
	Scenario    string
	Connections int
	Pipelining  int
	Rate        float64 // > 0: an open loop at this many requests/s (the race sets it from the profile)
	Uncounted   bool    // the profile leaves this race out of the counts step (Extra.Count)
}

// Races expands the scenarios and extra races.
func (p *Profile) Races() []Race {
	var out []Race
	for _, s := range p.ScenarioList() {
		out = append(out, Race{Name: s, Scenario: s, Connections: p.Connections, Pipelining: p.Pipelining})
	}
	for _, e := range p.ExtraRaces {
		r := Race{Name: e.Name, Scenario: e.Scenario, Connections: e.Connections, Pipelining: e.Pipelining,
			Uncounted: e.Count != nil && !*e.Count}
		if r.Connections == 0 {
			r.Connections = p.Connections
		}
		if r.Pipelining == 0 {
			r.Pipelining = p.Pipelining
		}
		if r.Name == "" {
			r.Name = fmt.Sprintf("%s-p%d", r.Scenario, r.Pipelining)
		}
		out = append(out, r)
	}
	// Names must be unique: they are directories.
	seen := map[string]int{}
	for i := range out {
		seen[out[i].Name]++
		if n := seen[out[i].Name]; n > 1 {
			out[i].Name = fmt.Sprintf("%s-%d", out[i].Name, n)
		}
	}
	return out
}
