package profile

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/stats"
)

const shipped = "../../profiles"

func TestShippedProfilesLoad(t *testing.T) {
	for _, name := range []string{"quick", "release-linux", "pgo-balanced-linux", "ci", "db"} {
		p, err := Load(name, shipped)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Name != name {
			t.Errorf("%s: name %q", name, p.Name)
		}
		if len(p.Races()) == 0 {
			t.Errorf("%s: no races", name)
		}
	}
	// Every shipped profile can reach a verdict within its budget, at the family budget of 5%:
	// a fixed design has enough pairs, an even count, for the interval level its checks share
	// (stats.CheckLevel); a sequential one can decide before its last look.
	for _, name := range []string{"quick", "ci", "release-linux", "pgo-balanced-linux", "db"} {
		p, _ := Load(name, shipped)
		d, err := p.Design()
		if err != nil || p.Confidence != 0.95 {
			t.Errorf("%s: %v, confidence %v", name, err, p.Confidence)
			continue
		}
		level := stats.CheckLevel(p.Confidence, p.FallibleChecks())
		if d.Kind == "fixed" && (p.Pairs < stats.MinSamples(level) || p.Pairs%2 != 0) {
			t.Errorf("%s: %d pairs at %.4g%% per check (need %d, even)", name, p.Pairs, level*100, stats.MinSamples(level))
		}
		if d.Kind == "sequential" && stats.FirstDecisiveLook(d) >= d.MaxPairs {
			t.Errorf("%s: first decisive look %d of at most %d pairs", name, stats.FirstDecisiveLook(d), d.MaxPairs)
		}
	}
	if q, _ := Load("quick", shipped); q.Sequential == nil || q.Sequential.MaxTime.D() != 3*time.Minute {
		t.Errorf("quick is not sequential within 3 minutes: %+v", q.Sequential)
	}
	q, _ := Load("quick", shipped)
	if q.Scenario != "ping" || q.Pipelining != 10 || q.Connections != 100 || q.Warmup.D() != time.Second {
		t.Errorf("quick: %+v", q)
	}
	r, _ := Load("release-linux", shipped)
	if r.Windows != 4 || r.Duration.D() != time.Second || r.Warmup.D() != 2*time.Second || r.Workers != 4 {
		t.Errorf("release-linux: %+v", r)
	}
	races := r.Races()
	if len(races) != 2 || races[1].Scenario != "ping" || races[1].Pipelining != 1 || races[1].Connections != 100 || races[1].Name != "ping-p1" {
		t.Errorf("release-linux races: %+v", races)
	}
	// ping-p1 is raced, not counted: its counts resolve wider than the instruction limit.
	if races[0].Uncounted || !races[1].Uncounted {
		t.Errorf("release-linux counts: %+v", races)
	}
	if th := r.RaceThresholds(races[1]); th.CounterMaxDeltaPct != nil || th.SyscallMaxDeltaPct != nil {
		t.Errorf("an uncounted race gates counts: %+v", th)
	}
	if th := r.RaceThresholds(races[0]); th.CounterMaxDeltaPct["instructions"] != 1 {
		t.Errorf("the counted race gates no instructions: %+v", th)
	}
	g, _ := Load("pgo-balanced-linux", shipped)
	var names []string
	for _, x := range g.Races() {
		names = append(names, x.Scenario)
	}
	if strings.Join(names, ",") != "ping,params,json,ws-echo,stream" {
		t.Errorf("pgo-balanced-linux scenarios: %v", names)
	}
	c, _ := Load("ci", shipped)
	if !c.Has(CountersCachegrind) || c.GateThresholds().CounterMaxDeltaPct["instructions"] != 1 {
		t.Errorf("ci counts no instructions: %+v", c)
	}
}

func TestUnknownFieldNamed(t *testing.T) {
	_, err := Parse([]byte(`{"pairs": 2, "pipelineing": 10}`))
	if err == nil || !strings.Contains(err.Error(), `"pipelineing"`) {
		t.Fatalf("want an error naming the unknown field, got %v", err)
	}
	_, err = Parse([]byte(`{"thresholds": {"max_p99": 3}}`))
	if err == nil || !strings.Contains(err.Error(), `"max_p99"`) {
		t.Fatalf("nested unknown field: got %v", err)
	}
}

func TestMissingProfileMessage(t *testing.T) {
	_, err := Load("nosuch", shipped)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("want ErrNotFound, got %v", err)
	}
	for _, want := range []string{`"nosuch"`, "quick", "release-linux"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if _, err := Load("/nonexistent/p.json", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("path: %v", err)
	}
}

func TestParseValues(t *testing.T) {
	p, err := Parse([]byte(`{"duration": 2.5, "warmup": "300ms", "scenarios": ["ping", "json"],
		"thresholds": {"min_median_delta_pct": -1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Duration.D() != 2500*time.Millisecond || p.Warmup.D() != 300*time.Millisecond {
		t.Errorf("durations: %v %v", p.Duration.D(), p.Warmup.D())
	}
	// Thresholds not given keep their defaults.
	if p.Thresholds.MinMedianDeltaPct != -1 || p.Thresholds.MaxP99DeltaPct != Default().Thresholds.MaxP99DeltaPct {
		t.Errorf("thresholds: %+v", p.Thresholds)
	}
	if got := p.ScenarioList(); len(got) != 2 {
		t.Errorf("scenarios: %v", got)
	}
	for _, bad := range []string{`{"pairs": 0}`, `{"duration": "fast"}`, `{"pipelining": 0}`, `{"counters": "pmu"}`, `{"duration": "-1s"}`, `{`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestFileByPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mine.json")
	os.WriteFile(path, []byte(`{"pairs": 6}`), 0o644)
	p, err := Load(path, "")
	if err != nil || p.Pairs != 6 || p.Name != "mine" {
		t.Fatalf("%+v %v", p, err)
	}
}

// The setters write one setting each and name it in their errors; Check then judges the whole
// profile, naming the field.
func TestSetters(t *testing.T) {
	p := Default()
	if err := p.Set().Threshold("-3"); err != nil || p.Thresholds.MinMedianDeltaPct != -3 {
		t.Fatalf("threshold: %v, %v", err, p.Thresholds.MinMedianDeltaPct)
	}
	if err := p.Set().Threshold("counter.instructions=1"); err != nil || p.Thresholds.CounterMaxGrowthPct["instructions"] != 1 {
		t.Fatalf("counter threshold: %v, %v", err, p.Thresholds.CounterMaxGrowthPct)
	}
	if err := p.Set().Threshold("counter_excess.rss-growth=2"); err != nil || p.Thresholds.CounterMaxExcess["rss-growth"] != 2 {
		t.Errorf("counter_excess: %v %v", err, p.Thresholds.CounterMaxExcess)
	}
	// A counter keeps its dashes; only the threshold's own name may use either.
	if err := p.Set().Threshold("counter-delta.branch-misses=3"); err != nil || p.Thresholds.CounterMaxDeltaPct["branch-misses"] != 3 {
		t.Errorf("counter-delta.branch-misses: %v %v", err, p.Thresholds.CounterMaxDeltaPct)
	}
	if err := p.Set().Scenarios("ping, params"); err != nil || len(p.Races()) != 2 || p.Races()[1].Scenario != "params" {
		t.Fatalf("scenarios: %v, %+v", err, p.Races())
	}
	for _, bad := range []func(*Profile) error{
		func(p *Profile) error { return p.Set().Threshold("p42=1") },
		func(p *Profile) error { return p.Set().Threshold("fast") },
		func(p *Profile) error { return p.Set().Scenarios(" , ") },
	} {
		q := Default()
		if err := bad(&q); err == nil || !strings.HasPrefix(err.Error(), "threshold") && !strings.HasPrefix(err.Error(), "scenarios") {
			t.Errorf("%v: want an error naming the setting", err)
		}
	}
	q := Default()
	q.Cooldown = -Duration(time.Second)
	if err := q.Check(); err == nil || !strings.HasPrefix(err.Error(), "cooldown must not be negative") {
		t.Errorf("a negative cooldown: %v", err)
	}
}

func TestDesigns(t *testing.T) {
	p, err := Parse([]byte(`{"sequential": {"min_pairs": 6, "max_pairs": 30, "max_time": "5m"}}`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Design()
	// One closed-loop race gates throughput alone: the whole 5% each way.
	if err != nil || d.Kind != "sequential" || d.MinPairs != 6 || d.MaxPairs != 30 || d.MaxTimeS != 300 || math.Abs(d.Alpha-0.05) > 1e-12 {
		t.Errorf("sequential: %+v %v", d, err)
	}
	// --pairs always means a fixed design of that many pairs.
	if err := p.Set().Pairs(5); err != nil || p.Sequential != nil || p.Pairs != 5 {
		t.Errorf("--pairs 5 over a sequential profile: %+v %v", p, err)
	}
	if d, _ := p.Design(); d.Kind != "fixed" || d.MaxPairs != 6 || d.Looks[0] != 6 {
		t.Errorf("fixed: %+v", d)
	}
	// --max-pairs turns a fixed profile sequential, from the defaults 6..30.
	q := Default()
	if err := q.Set().MaxPairs(12); err != nil || q.Sequential == nil || q.Sequential.MinPairs != 6 || q.Sequential.MaxPairs != 12 || q.Pairs != 0 {
		t.Errorf("--max-pairs 12: %+v %v", q.Sequential, err)
	}
	for _, c := range []struct {
		name string
		set  func(*Profile) error
		want string
	}{
		{"min above max", func(p *Profile) error { p.Set().MinPairs(10); p.Set().MaxPairs(8); return p.Check() }, "max_pairs 8 is below min_pairs 10"},
		// Four closed-loop races gate four checks sharing 5%: 1.25% each way, which unanimous
		// pairs reach at 8 (2^-7 <= 1.25% < 2^-6); the same budget of two races decides at 6.
		{"too few for the level", func(p *Profile) error {
			p.Set().MaxPairs(6)
			p.Set().MinPairs(2)
			p.Set().Scenarios("ping,params,json,stream")
			return p.Check()
		}, "max_pairs 6 can decide nothing: with 4 gated check(s) sharing the 5% false-FAIL budget (1.25% per check and direction) even a race that wins every pair needs 8 pairs; give at least 8"},
		{"too few at an open loop's two latency checks", func(p *Profile) error {
			p.Set().MaxPairs(6)
			p.Set().MinPairs(2)
			p.Set().Scenarios("ping,params")
			p.Set().Rate(5000)
			return p.Check()
		}, "max_pairs 6 can decide nothing: with 4 gated check(s)"},
		{"negative time", func(p *Profile) error { return p.Set().MaxTime(-Duration(time.Second)) }, "must not be negative"},
	} {
		q := Default()
		if err := c.set(&q); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	two := Default()
	two.Set().MinPairs(2)
	two.Set().MaxPairs(6)
	two.Set().Scenarios("ping,params")
	if err := two.Check(); err != nil {
		t.Errorf("two closed-loop races, 2 to 6 pairs: %v", err)
	}
	if _, err := Parse([]byte(`{"pairs": 6, "sequential": {"min_pairs": 6, "max_pairs": 30}}`)); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("pairs and sequential: %v", err)
	}
}

// A pooled profile splits the budget in two: the pooled check has half in each direction, the
// races' FAIL-only guards share the other half; in an open loop, or with one race, nothing
// pools. It needs a fixed design.
func TestPooled(t *testing.T) {
	db, err := Load("db", shipped)
	if err != nil {
		t.Fatal(err)
	}
	if !db.PoolsThroughput() || db.FallibleChecks() != 17 || math.Abs(PooledAlpha(db.Confidence)-0.025) > 1e-12 || math.Abs(db.Alpha()-0.025/16) > 1e-12 || stats.MinDecisivePairs(db.Alpha()) != 10 {
		t.Errorf("db: pools %v, checks %d, pooled %g, guard %g, decisive at %d", db.PoolsThroughput(), db.FallibleChecks(), PooledAlpha(db.Confidence), db.Alpha(), stats.MinDecisivePairs(db.Alpha()))
	}
	if err := db.Set().Rate(1000); err != nil || db.PoolsThroughput() || db.FallibleChecks() != 32 {
		t.Errorf("db at a rate: pools %v, checks %d (%v)", db.PoolsThroughput(), db.FallibleChecks(), err)
	}
	one, err := Load("db", shipped)
	if err != nil || one.Set().Scenarios("get-user") != nil || one.PoolsThroughput() || one.FallibleChecks() != 1 || math.Abs(one.Alpha()-0.05) > 1e-12 {
		t.Errorf("db on one scenario: pools %v, checks %d, alpha %g (%v)", one.PoolsThroughput(), one.FallibleChecks(), one.Alpha(), err)
	}
	bad := `{"pooled": true, "scenarios": ["ping", "json"], "sequential": {"min_pairs": 6, "max_pairs": 20}}`
	if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "pooled needs a fixed design (pairs)") {
		t.Errorf("pooled and sequential: %v", err)
	}
}
