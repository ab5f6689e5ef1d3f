package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/internal/child"
	"github.com/bindrace/bindrace/harness/internal/loopback"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/testbin"
	"github.com/bindrace/bindrace/harness/kinds"
	"github.com/bindrace/bindrace/harness/remote/netnstest"
	"github.com/bindrace/bindrace/harness/session"
)

// These tests build the CLI and run it as a user would, on loopback, with runs of a second or
// two, so the whole file stays well under a minute.

var (
	bin      string // the CLI built for the tests
	goServer string // the Go targets' server built for the tests (harness/cmd/go-server)
	root     string // repository root
	// lab is the network-namespace lab of the tests across hosts (remote_e2e_test.go, long
	// tier): started by the first test to need it and removed by TestMain after the tests.
	lab netnstest.Shared
)

func TestMain(m *testing.M) {
	root = machine.FindRoot(".")
	tmp, err := os.MkdirTemp("", "bindrace-e2e-")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(tmp, "bindrace")
	build := exec.Command("go", "build", "-o", bin, "./harness/cmd/bindrace")
	build.Dir = root
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the CLI:", err)
		os.Exit(1)
	}
	if goServer, err = testbin.BuildGoServer(tmp); err != nil { // the Go targets' server, beside the CLI
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := lab.Run(m)
	os.RemoveAll(tmp)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

// cli runs the CLI with args. Its races set nothing aside for steal unless the test says
// otherwise: a CI machine losing 4-33% of its CPUs to the hypervisor for minutes set every round
// of a run aside, so the run measured nothing, and these tests are about what a measured run
// holds. The steal rule has its own tests, on windows whose steal the test sets (measure's
// TestPairSetAsideCapped, TestRecordSetAside; stats' steal_test.go).
func cli(t *testing.T, timeout time.Duration, args ...string) result {
	t.Helper()
	if len(args) > 0 && (args[0] == "race" || args[0] == "matrix" || args[0] == "calibrate") && !slices.Contains(args, "--steal-limit") {
		args = append(args, "--steal-limit", "-1")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(timeout):
		cmd.Process.Kill()
		<-done
		t.Fatalf("bindrace %s: still running after %s\nstderr: %s", strings.Join(args, " "), timeout, errb.String())
	}
	return result{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
}

// decode reads the command's --json stdout into v. Exit 2 (an error or an incomplete session;
// a race's 0, 1 and 3 are verdicts) or a stdout that is not one JSON object fails the test.
func (r result) decode(t *testing.T, v any) {
	t.Helper()
	if r.code == 2 {
		t.Fatalf("exit 2\nstderr: %s", r.stderr)
	}
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s\nstderr: %s", err, r.stdout, r.stderr)
	}
}

// leftovers lists live processes started from the binaries built for the tests: the CLI (the
// cmd: targets below run it) and the Go targets' go-server, which sit in one directory.
func leftovers(t *testing.T) []string {
	t.Helper()
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte(filepath.Dir(bin)+"/")) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			// A zombie is gone already, only not reaped.
			if i := bytes.LastIndexByte(st, ')'); i > 0 && len(st) > i+2 && st[i+2] == 'Z' {
				continue
			}
		}
		out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
	}
	return out
}

func noLeftovers(t *testing.T) {
	t.Helper()
	waitNoneLeft(t, 3*time.Second, 50*time.Millisecond, "server processes left behind", func() []string { return leftovers(t) })
}

// waitNoneLeft lists what is left every poll until the list is empty: processes take a moment
// to go after a session. After within, the test fails with what, then the list.
func waitNoneLeft(t *testing.T, within, poll time.Duration, what string, list func() []string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		left := list()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s:\n%s", what, strings.Join(left, "\n"))
		}
		time.Sleep(poll)
	}
}

func TestHelp(t *testing.T) {
	r := cli(t, 10*time.Second, "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "race") {
		t.Fatalf("--help: %d %s %s", r.code, r.stdout, r.stderr)
	}
	for _, c := range []string{"serve", "verify", "load", "counters", "race", "matrix", "report", "gate", "version"} {
		r := cli(t, 10*time.Second, c, "--help")
		if r.code != 0 || !strings.Contains(strings.ToLower(r.stdout+r.stderr), "usage") {
			t.Errorf("%s --help: exit %d\nstdout: %s\nstderr: %s", c, r.code, r.stdout, r.stderr)
		}
	}
	if r := cli(t, 10*time.Second, "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "bindrace ") {
		t.Errorf("version: %d %q", r.code, r.stdout)
	}
}

func TestFaults(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown target", []string{"race", "--a", "nosuch", "--b", "nethttp"}, `unknown target "nosuch"`},
		{"missing profile", []string{"race", "--a", "fasthttp", "--b", "nethttp", "--profile", "nosuch"}, `no profile "nosuch"`},
		{"bad flag value", []string{"race", "--a", "fasthttp", "--b", "nethttp", "--pairs", "many"}, `invalid argument "many" for "--pairs"`},
		{"bad duration", []string{"race", "--a", "fasthttp", "--b", "nethttp", "--duration", "0s"}, "duration must be positive"},
		{"unknown flag", []string{"race", "--a", "fasthttp", "--b", "nethttp", "--bogus"}, "unknown flag: --bogus"},
		{"unknown scenario", []string{"race", "--a", "fasthttp", "--b", "nethttp", "--scenario", "pong"}, `unknown scenario "pong"`},
		{"missing side", []string{"race", "--a", "fasthttp"}, "--a and --b are required"},
		{"unknown command", []string{"sprint"}, `unknown command "sprint"`},
		{"matrix one target", []string{"matrix", "--targets", "fasthttp"}, "at least two targets"},
		{"gate no session", []string{"gate", os.TempDir()}, "not a session directory"},
		{"report bad format", []string{"report", os.TempDir(), "--format", "pdf"}, ""},
		{"target fails to start", []string{"race", "--a", "cmd:false {port}", "--b", "nethttp", "--out", filepath.Join(t.TempDir(), "x")}, "cmd:false {port}"},
	}
	for _, c := range cases {
		r := cli(t, 30*time.Second, c.args...)
		if r.code != 2 {
			t.Errorf("%s: exit %d, want 2\nstderr: %s", c.name, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: stderr %q lacks %q", c.name, r.stderr, c.want)
		}
	}
	noLeftovers(t)
}

func TestRaceJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "session")
	// Two interleaved windows a pair (quick's are four): the files' shape, not the figures, is
	// under test here.
	r := cli(t, 90*time.Second, "race", "--a", "fasthttp", "--b", "nethttp", "--pairs", "6", "--duration", "400ms",
		"--windows", "2", "--warmup", "200ms", "--settle", "0", "--cooldown", "0", "--busy-sample", "100ms", "--out", dir, "--json")
	var s session.Summary
	r.decode(t, &s)
	var generic map[string]any
	json.Unmarshal([]byte(r.stdout), &generic)
	for _, k := range []string{"schema_version", "verdict", "a", "b", "scenario", "connections", "pipelining", "median_delta_pct",
		"ci_pct", "ci_level", "ci_confidence", "paired", "checks", "side_a", "side_b", "pairs", "counters"} {
		if _, ok := generic[k]; !ok {
			t.Errorf("summary.json lacks %q", k)
		}
	}
	// quick gates one statistical check (throughput; its p99 is context): 5% each way, a 90% interval.
	if s.SchemaVersion != session.SchemaVersion || math.Abs(s.CILevel-0.90) > 1e-9 || s.CIPct == nil || s.CIConfidence < 0.90 {
		t.Errorf("schema %d, level %v, interval %v at %v", s.SchemaVersion, s.CILevel, s.CIPct, s.CIConfidence)
	}
	checkRaceChecks(t, s.Checks, s.Context)
	// Both sides ran on the same CPU with one thread each, and say what they are.
	for _, sd := range []session.Side{s.SideA, s.SideB} {
		if sd.Threads != 1 || sd.CPUs == "" || sd.Build["kind"] == "" {
			t.Errorf("side %+v", sd)
		}
	}
	if s.Verdict == "" || s.A != "fasthttp" || s.B != "nethttp" || s.Scenario != "ping" || s.Connections != 100 || s.Pipelining != 10 {
		t.Errorf("summary: verdict %q a %q b %q scenario %q conns %d pipe %d", s.Verdict, s.A, s.B, s.Scenario, s.Connections, s.Pipelining)
	}
	if want := map[string]int{session.Pass: 0, session.Fail: 1, session.Inconclusive: 3}[s.Verdict]; r.code != want {
		t.Errorf("verdict %s but exit %d", s.Verdict, r.code)
	}
	if len(s.Pairs) != 6 || s.Pairs[0].Order != "AB" || s.Pairs[1].Order != "BA" {
		t.Fatalf("pairs: %+v", s.Pairs)
	}
	checkRaceRuns(t, s.Pairs)
	// The slots say who went first.
	if s.Pairs[0].A.Slot != 0 || s.Pairs[1].A.Slot != 1 {
		t.Errorf("slots: %d %d", s.Pairs[0].A.Slot, s.Pairs[1].A.Slot)
	}
	for _, f := range []string{"summary.json", "raw.json", "manifest.json", "summary.md", "summary.csv", "report.html"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	var raw session.Raw
	if err := session.ReadJSON(filepath.Join(dir, session.RawFile), &raw); err != nil || len(raw.Runs) != 12 {
		t.Errorf("raw.json: %d runs, %v", len(raw.Runs), err)
	}
	var man session.Manifest
	if err := session.ReadJSON(filepath.Join(dir, session.ManifestFile), &man); err != nil || man.Kernel == "" || len(man.Command) == 0 || man.Targets["fasthttp"] == nil {
		t.Errorf("manifest: %+v %v", man, err)
	}
	noLeftovers(t)

	// gate re-applies the stored thresholds: same verdict; an impossible threshold fails.
	g := cli(t, 20*time.Second, "gate", dir)
	if g.code != r.code || !strings.Contains(g.stdout, s.Headline) {
		t.Errorf("gate: exit %d (race %d)\n%s%s", g.code, r.code, g.stdout, g.stderr)
	}
	g = cli(t, 20*time.Second, "gate", dir, "--threshold", "100000")
	if g.code != 1 {
		t.Errorf("gate with an impossible threshold: exit %d\n%s%s", g.code, g.stdout, g.stderr)
	}
	// A session without deterministic counts cannot be a baseline: refused, naming why.
	g = cli(t, 20*time.Second, "gate", dir, "--baseline", dir)
	if g.code != 2 || !strings.Contains(g.stderr, "no cachegrind counts") {
		t.Errorf("gate against a session without counts: exit %d\n%s%s", g.code, g.stdout, g.stderr)
	}
	// report renders each format.
	for _, f := range []string{"md", "csv", "json", "benchfmt", "html"} {
		rep := cli(t, 20*time.Second, "report", dir, "--format", f)
		if rep.code != 0 || len(rep.stdout) == 0 {
			t.Errorf("report --format %s: exit %d %s", f, rep.code, rep.stderr)
		}
	}
}

func TestTargetDiesMidRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "session")
	// Serves correctly, then its server is killed 1.5 s after start: mid-measurement.
	dying := fmt.Sprintf("cmd:sh -c '%s --target nethttp --port {port} & p=$!; sleep 1.5; kill -9 $p'", goServer)
	r := cli(t, 60*time.Second, "race", "--a", dying, "--b", "fasthttp", "--pairs", "2", "--duration", "3s",
		"--warmup", "100ms", "--settle", "0", "--cooldown", "0", "--busy-sample", "100ms", "--out", dir, "--json")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	s, err := session.LoadSummary(dir)
	if err != nil {
		t.Fatalf("no partial results: %v", err)
	}
	if s.Verdict != session.Incomplete || !strings.Contains(s.Incomplete, "exited") {
		t.Errorf("verdict %q incomplete %q", s.Verdict, s.Incomplete)
	}
	if len(s.Pairs) != 1 || s.Pairs[0].A.Error == "" {
		t.Errorf("pairs: %+v", s.Pairs)
	}
	for _, f := range []string{"raw.json", "manifest.json", "summary.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	noLeftovers(t)
}

func TestInterrupt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "session")
	// --steal-limit -1: under the hypervisor's steal every window of the measured run could be
	// set aside, and this test is about what an interrupt keeps, not about steal.
	cmd := exec.Command(bin, "race", "--a", "fasthttp", "--b", "nethttp", "--pairs", "4", "--duration", "1s", "--windows", "2",
		"--warmup", "100ms", "--cooldown", "0", "--busy-sample", "100ms", "--steal-limit", "-1", "--out", dir)
	errb := interruptSecondRun(t, cmd, 20*time.Second)
	s, err := session.LoadSummary(dir)
	if err != nil {
		t.Fatalf("no partial results: %v\n%s", err, errb.String())
	}
	if s.Verdict != session.Incomplete || !strings.Contains(s.Incomplete, "SIGINT") || s.Stop == nil || s.Stop.Reason != session.StopInterrupted {
		t.Errorf("verdict %q incomplete %q stop %+v", s.Verdict, s.Incomplete, s.Stop)
	}
	if len(s.Pairs) == 0 || s.Pairs[0].A.RPS <= 0 {
		t.Errorf("the measured run was not kept: %+v", s.Pairs)
	}
	noLeftovers(t)
}

// interruptSecondRun starts a race whose first run is fasthttp's, sends SIGINT while its second
// run is measured and checks that it exits 2 within stopWithin. It returns the race's stderr.
func interruptSecondRun(t *testing.T, cmd *exec.Cmd, stopWithin time.Duration) *child.Buffer {
	t.Helper()
	cmd.Dir = root
	errb := child.NewBuffer()
	cmd.Stderr = errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	// The first run's line comes when its pair's interleaved windows end: some seconds, more on
	// a busy machine.
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(errb.String(), "pair 1/4 AB fasthttp:") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("first run never finished: %s", errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(700 * time.Millisecond) // inside the second run
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(stopWithin):
		cmd.Process.Kill()
		t.Fatal("did not stop after SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Errorf("exit %d, want 2\n%s", code, errb.String())
	}
	return errb
}

func TestMatrix(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "matrix")
	r := cli(t, 60*time.Second, "matrix", "--targets", "fasthttp,nethttp", "--rounds", "2", "--seed", "7",
		"--duration", "500ms", "--warmup", "100ms", "--settle", "0", "--cooldown", "0", "--busy-sample", "100ms", "--out", dir, "--json")
	var m session.Matrix // a matrix exits 0 or 2
	r.decode(t, &m)
	if m.Seed != 7 || !reflect.DeepEqual(m.Orders, kinds.MatrixOrders([]string{"fasthttp", "nethttp"}, 2, 7)) {
		t.Errorf("orders %v not reproducible from seed %d", m.Orders, m.Seed)
	}
	if len(m.Runs) != 4 || len(m.PerTarget) != 2 {
		t.Errorf("runs %d per-target %d", len(m.Runs), len(m.PerTarget))
	}
	for i, run := range m.Runs {
		if want := m.Orders[i/2][i%2]; run.Target != want || run.Slot != i%2 {
			t.Errorf("run %d: %s slot %d, want %s slot %d", i, run.Target, run.Slot, want, i%2)
		}
	}
	for _, f := range []string{"summary.json", "raw.json", "manifest.json", "summary.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	noLeftovers(t)
}

// A profile with several scenarios and an extra race writes one sub-session per race and an
// index whose verdict is the worst one.
func TestRaceSet(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "set.json")
	os.WriteFile(prof, []byte(`{"scenarios": ["ping", "params"], "pairs": 1, "duration": "300ms", "warmup": "100ms",
		"settle": "0s", "cooldown": "0s", "busy_sample": "0s", "connections": 20, "pipelining": 4,
		"thresholds": {"min_median_delta_pct": -100, "max_p99_delta_pct": 100000, "max_errors": 0},
		"extra_races": [{"scenario": "ping", "pipelining": 1}]}`), 0o644)
	dir := filepath.Join(t.TempDir(), "set")
	r := cli(t, 60*time.Second, "race", "--a", "fasthttp", "--b", "nethttp", "--profile", prof, "--out", dir, "--json")
	if r.code == 2 {
		t.Fatalf("exit 2\n%s", r.stderr)
	}
	var out struct {
		session.Index
		Summaries []session.Summary `json:"summaries"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	ix, err := session.LoadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ix.Sessions {
		names = append(names, e.Name)
		s, err := session.LoadSummary(filepath.Join(dir, e.Dir))
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		if ix.Verdict != gate.Worst(ix.Verdict, s.Verdict) {
			t.Errorf("index verdict %s is not the worst (%s has %s)", ix.Verdict, e.Name, s.Verdict)
		}
	}
	if strings.Join(names, ",") != "ping,params,ping-p1" || len(out.Summaries) != 3 || out.Summaries[2].Pipelining != 1 {
		t.Errorf("sub-sessions %v, %d summaries", names, len(out.Summaries))
	}
	if g := cli(t, 20*time.Second, "gate", dir); g.code != r.code {
		t.Errorf("gate of the set: exit %d, race %d\n%s", g.code, r.code, g.stdout)
	}
	if rep := cli(t, 20*time.Second, "report", dir, "--format", "md"); rep.code != 0 || !strings.Contains(rep.stdout, "params") {
		t.Errorf("report of the set: %d %s", rep.code, rep.stderr)
	}
	noLeftovers(t)
}

// A target that answers "hi" on every path starts fine but fails the params scenario: exit 2
// naming target, scenario, expected and got, and no number for it.
func TestVerificationFailure(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("skipped: python3 is not on PATH (it serves the wrong answers)")
	}
	script := filepath.Join(t.TempDir(), "wrong.py")
	os.WriteFile(script, []byte(`import http.server as h, sys
class H(h.BaseHTTPRequestHandler):
    def do_GET(s):
        s.send_response(200); s.send_header('content-type', 'text/plain'); s.send_header('content-length', '2'); s.end_headers(); s.wfile.write(b'hi')
    def log_message(self, *a): pass
h.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
`), 0o644)
	dir := filepath.Join(t.TempDir(), "s")
	target := fmt.Sprintf("cmd:%s %s {port}", py, script)
	r := cli(t, 60*time.Second, "race", "--a", target, "--b", "fasthttp", "--scenario", "params", "--out", dir)
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
	}
	for _, want := range []string{target, "params", `expected "1 bun"`, `got "hi"`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err == nil {
		t.Errorf("a session was written for a target that failed verification")
	}
	if strings.TrimSpace(r.stdout) != "" {
		t.Errorf("stdout: %q", r.stdout)
	}
}

// `bindrace load` drives ws:// URLs and WebSocket scenarios as WebSocket loads, everything else
// as HTTP; both print the same JSON object.
func TestLoadDispatch(t *testing.T) {
	port := loopback.Unused(t).Port
	srv := exec.Command(bin, "serve", "--target", "fasthttp", "--port", strconv.Itoa(port))
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() })
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server on %s did not come up", addr)
		}
	}
	for _, c := range []struct {
		args []string
		unit string
	}{
		{[]string{"--scenario", "ws-echo", "ws://" + addr + "/ws"}, "messages/s"},
		{[]string{"ws://" + addr}, "messages/s"},
		{[]string{"--scenario=ws-echo", addr}, "messages/s"},
		{[]string{"http://" + addr + "/"}, ""},
	} {
		args := append([]string{"load", "-c", "4", "--pipelining", "2", "-t", "1", "--count", "400", "--json"}, c.args...)
		r := cli(t, 30*time.Second, args...)
		var j map[string]any
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &j) != nil {
			t.Errorf("%q: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
			continue
		}
		unit, _ := j["unit"].(string)
		if unit != c.unit || j["responses"] != 400.0 || j["errors"] != 0.0 {
			t.Errorf("%q: %s", args, r.stdout)
		}
	}
	// A WebSocket scenario cannot be sent as an HTTP request, and wss:// is not supported.
	for _, args := range [][]string{{"load", "--scenario", "ws-echo", "wss://" + addr + "/ws"}, {"load", "--scenario", "nope", addr}} {
		if r := cli(t, 10*time.Second, args...); r.code != 2 || r.stdout != "" {
			t.Errorf("%q: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
}

// checkRaceChecks: every check of TestRaceJSON's race says what it compared, with its interval
// and real coverage where statistical.
func checkRaceChecks(t *testing.T, checks, context []session.Check) {
	t.Helper()
	metrics := map[string]session.Check{}
	for _, c := range append(checks, context...) {
		metrics[c.Metric] = c
	}
	// quick decides throughput per server CPU-second.
	if c := metrics["rps_per_cpu_second"]; c.Verdict == "" || c.Interval == nil || c.Confidence == nil || *c.Confidence < 0.90 || c.Limit != -5 || c.Bound != "min" || c.N != 6 {
		t.Errorf("throughput check %+v", c)
	}
	// A closed loop's p99 is reported as context, not gated.
	if c := metrics["p99_ms"]; c.Interval == nil || c.Verdict != session.Context || len(context) != 1 {
		t.Errorf("p99 context %+v", c)
	}
	if c := metrics["errors"]; c.Verdict != session.Pass || c.Confidence != nil {
		t.Errorf("errors check %+v", c)
	}
}

// checkRaceRuns: every run of TestRaceJSON's race measured, on one thread, with its memory and
// startup.
func checkRaceRuns(t *testing.T, pairs []session.Pair) {
	t.Helper()
	for _, p := range pairs {
		for _, run := range []session.Run{p.A, p.B} {
			if run.RPS <= 0 || run.P99Ms <= 0 || run.ServerCPUPct <= 0 || run.Responses <= 0 || run.Error != "" {
				t.Errorf("pair %d %s: rps %v p99 %v cpu %v responses %d error %q", p.Index, run.Target, run.RPS, run.P99Ms, run.ServerCPUPct, run.Responses, run.Error)
			}
			if run.Threads != 1 || run.BusyPct < 0 || run.BusyPct > 100 {
				t.Errorf("pair %d %s: threads %d busy %v", p.Index, run.Target, run.Threads, run.BusyPct)
			}
			if run.RSSMiB <= 0 || run.PeakRSSMiB <= 0 || run.StartupMs <= 0 {
				t.Errorf("pair %d %s: rss %v peak %v startup %v", p.Index, run.Target, run.RSSMiB, run.PeakRSSMiB, run.StartupMs)
			}
		}
	}
}
