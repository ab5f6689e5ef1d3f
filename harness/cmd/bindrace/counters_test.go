package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/internal/testbin"
	"github.com/bindrace/bindrace/harness/kinds"
)

func TestCountersCommandErrors(t *testing.T) {
	// A user's folder given to --keep: refused before anything runs, its file untouched.
	kept := t.TempDir()
	notes := filepath.Join(kept, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
			t.Errorf("the user's file in --keep's folder: %q, %v", b, err)
		}
	}()
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--help"}, 0, "--mode"},
		{[]string{}, 2, "--target is required"},
		{[]string{"--target", "nope"}, 2, `unknown target "nope"`},
		{[]string{"--target", "fasthttp", "--scenario", "nope"}, 2, `unknown scenario "nope"`},
		{[]string{"--target", "fasthttp", "--mode", "x"}, 2, "unknown --mode"},
		{[]string{"--target", "fasthttp", "--bogus"}, 2, "unknown flag"},
		{[]string{"--target", "fasthttp", "--cpus-server", "99"}, 2, "CPU 99"},
		{[]string{"--target", "fasthttp", "--mode", "cachegrind", "--keep", kept}, 2, "the folder is not empty (it holds notes.txt, of 1)"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := countersCommand(c.args, &out, &errb)
		if code != c.code || !strings.Contains(out.String()+errb.String(), c.want) {
			t.Errorf("%v: exit %d (want %d), stdout %q stderr %q, want %q", c.args, code, c.code, out.String(), errb.String(), c.want)
		}
	}
}

// fakeValgrind puts a `valgrind` on PATH that runs the server it is given, and when the
// server exits writes the next of files as the run's cachegrind out file: the real tool's
// output in the fixtures, without the real tool's minutes. It answers --version, and runs the
// harness's CPUID probe (BINDRACE_CPUID_PROBE) as it is, natively: counting checks both first.
func fakeValgrind(t *testing.T, files ...string) {
	t.Helper()
	dir := t.TempDir()
	script := `#!/bin/sh
[ "$1" = --version ] && exec echo valgrind-3.19.0
out=
while [ $# -gt 0 ]; do
  case "$1" in
    --cachegrind-out-file=*) out=${1#--cachegrind-out-file=} ;;
    --*) ;;
    *) break ;;
  esac
  shift
done
[ "$BINDRACE_CPUID_PROBE" = 1 ] && exec "$@"
"$@" &
child=$!
trap 'kill -TERM $child 2>/dev/null' TERM INT
wait $child
wait $child
n=$(cat "$FAKE_CG_STATE" 2>/dev/null || echo 0)
n=$((n + 1))
echo $n > "$FAKE_CG_STATE"
eval "src=\${FAKE_CG_$n}"
cp "$src" "$(echo "$out" | sed "s/%p/$$/")"
`
	if err := os.WriteFile(filepath.Join(dir, "valgrind"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	t.Setenv("FAKE_CG_STATE", filepath.Join(dir, "runs"))
	for i, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv(fmt.Sprintf("FAKE_CG_%d", i+1), abs)
	}
}

const cgFixtures = "../../counters/testdata/cgprog/"

// TestCountersCachegrindBadOutFile: a cachegrind out file whose fn= section is cut short is an
// error naming the file, exit 2, and no table.
func TestCountersCachegrindBadOutFile(t *testing.T) {
	whole, err := os.ReadFile(cgFixtures + "prog.N.out")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.out")
	if err := os.WriteFile(cut, whole[:len(whole)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	fakeValgrind(t, cut, cut)
	var out, errb bytes.Buffer
	code := countersCommand([]string{"--target", "fasthttp", "--mode", "cachegrind", "--n", "1000", "--cpus-client", "none", "--cpus-server", "none"}, &out, &errb)
	if code != 2 || !regexp.MustCompile(`cachegrind out file \S+/cg\.\d+: .*truncated`).MatchString(errb.String()) {
		t.Errorf("exit %d, stderr %q: want 2 and the file named as truncated", code, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q, want nothing", out.String())
	}
}

// TestCountersCachegrindStripped: a stripped server's table says its instructions have no
// symbol, and still gives the total.
func TestCountersCachegrindStripped(t *testing.T) {
	fakeValgrind(t, cgFixtures+"stripped.N.out", cgFixtures+"stripped.2N.out")
	var out, errb bytes.Buffer
	code := countersCommand([]string{"--target", "fasthttp", "--mode", "cachegrind", "--n", "1000", "--cpus-client", "none", "--cpus-server", "none"}, &out, &errb)
	text := out.String()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, text, errb.String())
	}
	for _, want := range []string{
		`instructions\s+354000\.0\s+354\.0`,                           // the total stands
		`100\.0% of the instructions ran in code without a symbol`,    // and the table says why
		`354\.0\s+100\.0%.*\[no symbol: stripped or generated code\]`, // it has one row
		`estimated-cycles\*\s+-\s+358\.0`, `\* estimated-cycles: estimated \(simulated\)`,
	} {
		if !regexp.MustCompile(want).MatchString(text) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

// TestCountersSampleWithoutPerf: --sample where perf is missing says why, and the perf-mode
// counters are still measured and printed (exit 0).
func TestCountersSampleWithoutPerf(t *testing.T) {
	testbin.PathWithout(t, "taskset", "setarch") // everything but perf
	var out, errb bytes.Buffer
	code := countersCommand([]string{"--target", "fasthttp", "--mode", "perf", "--sample", "--duration", "500ms", "--warmup", "200ms",
		"--connections", "4", "--json"}, &out, &errb)
	var r kinds.CountersReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("exit %d, stdout not JSON (%v): %s\n%s", code, err, out.String(), errb.String())
	}
	if code != 0 && code != 2 { // 2: no counter at all on this host, said in the report
		t.Errorf("exit %d", code)
	}
	if why := r.Unsupported["sample"]; !strings.Contains(why, "perf not found") || r.Sample != nil {
		t.Errorf("sample: %q, table %v", why, r.Sample)
	}
	if r.Responses <= 0 || r.PerResponse[counters.TaskClockNs] <= 0 && code == 0 {
		t.Errorf("the counters were not measured: responses %d, per response %v", r.Responses, r.PerResponse)
	}
}

func TestCountersCommandValgrindMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	code := countersCommand([]string{"--target", "fasthttp", "--mode", "cachegrind", "--n", "10", "--cpus-client", "none"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "valgrind missing") || !strings.Contains(errb.String(), "scripts/setup.sh") {
		t.Errorf("exit %d stderr %q", code, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q", out.String())
	}
}

// TestCountersFold: --fold reads a perf.data recorded elsewhere (by perf record -e cpu-clock -g
// by hand) into the sampler's tables; an unreadable file is exit 2.
func TestCountersFold(t *testing.T) {
	var out, errb bytes.Buffer
	if code := countersCommand([]string{"--fold", filepath.Join(t.TempDir(), "none.perf.data")}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "perf script") {
		t.Errorf("a missing file: exit %d, stderr %q", code, errb.String())
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Fatal("perf is not installed: scripts/setup.sh installs linux-perf")
	}
	data := filepath.Join(t.TempDir(), "busy.perf.data")
	rec := exec.Command("perf", "record", "-q", "-e", "cpu-clock", "-g", "-o", data, "--",
		"sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done")
	if b, err := rec.CombinedOutput(); err != nil {
		t.Skipf("perf record refused here: %v %s", err, b)
	}
	out.Reset()
	errb.Reset()
	code := countersCommand([]string{"--fold", data, "--responses", "1000", "--json"}, &out, &errb)
	var tab counters.SampleTable
	if code != 0 || json.Unmarshal(out.Bytes(), &tab) != nil {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if tab.Samples <= 0 || tab.NsPerResponse <= 0 || len(tab.Functions) == 0 || tab.UserNs <= 0 {
		t.Errorf("table %+v", tab)
	}
}

// TestCountersRSSGrowth: --mode rss-growth counts the resident set along a paced run and prints
// its growth with its resolution and the reads it rests on, as JSON or as a table.
func TestCountersRSSGrowth(t *testing.T) {
	args := []string{"--target", "fasthttp", "--mode", "rss-growth", "--n", "20000", "--cpus-client", "none", "--cpus-server", "none"}
	var out, errb bytes.Buffer
	if code := countersCommand(append(args, "--json"), &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	var r kinds.CountersReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("stdout not JSON: %v\n%s", err, out.String())
	}
	if _, ok := r.PerResponse["rss-growth"]; !ok || r.Resolution["rss-growth"] <= 0 || len(r.RSSReads) != 11 || r.RSSReads[10].Responses != 20000 {
		t.Errorf("report %+v", r)
	}
	out.Reset()
	if code := countersCommand(args, &out, &errb); code != 0 || !strings.Contains(out.String(), "mode rss-growth, N=20000 responses after the warm-up") ||
		!strings.Contains(out.String(), "rss-growth: the resident set's growth per 100k responses") || strings.Contains(out.String(), "window") {
		t.Errorf("exit %d, table:\n%s", code, out.String())
	}
}
