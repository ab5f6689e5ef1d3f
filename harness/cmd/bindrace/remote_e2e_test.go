//go:build long

// Long test tier (make test-all, -tags long): races across hosts of the network-namespace lab.

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/remote/netnstest"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// These tests race across real hosts: network namespaces on this machine (a server and two
// clients on a bridge, sshd in each, keys and an ssh config of their own; netnstest). They
// skip, naming the capability, where namespaces cannot be made.

// leftInLab lists processes the session left in the lab's namespaces: anything but sshd.
func leftInLab(t *testing.T, l *netnstest.Lab) []string {
	t.Helper()
	var left []string
	for _, h := range l.Hosts() {
		out, err := l.Exec(h, "sh", "-c", "for p in /proc/[0-9]*; do grep -qsaz ^BINDRACE_PROC= $p/environ && echo ${p#/proc/} $(tr '\\0' ' ' < $p/cmdline); done; true")
		if err != nil {
			t.Fatalf("listing %s: %v", h.Role, err)
		}
		if s := strings.TrimSpace(string(out)); s != "" {
			left = append(left, h.Role+": "+s)
		}
	}
	return left
}

func noneLeftInLab(t *testing.T, l *netnstest.Lab) {
	t.Helper()
	waitNoneLeft(t, 5*time.Second, 100*time.Millisecond, "processes left on the lab's hosts", func() []string { return leftInLab(t, l) })
}

// The server's CPU is read over the server host's usage channel when the window opens and
// closes, and its share is taken over the host's clock between the two reads.
func TestRaceAcrossHosts(t *testing.T) {
	l := lab.Get(t)
	if _, err := os.Stat(filepath.Join(root, "bin", "binding-server")); err != nil {
		t.Fatal("bin/binding-server not built: make test builds it; run make build")
	}
	dir := filepath.Join(t.TempDir(), "race")
	clients := l.Clients[0].Spec + "," + l.Clients[1].Spec
	r := cli(t, 120*time.Second, "race", "--a", "binding", "--b", "fasthttp", "--server-host", l.Server.Spec, "--client-hosts", clients,
		"--ssh-config", l.ConfigFile, "--pairs", "2", "--windows", "1", "--duration", "2s", "--warmup", "200ms", "--settle", "0",
		"--cooldown", "0", "--busy-sample", "0", "--out", dir, "--json")
	var s session.Summary
	r.decode(t, &s)
	if s.Verdict == "" || len(s.Pairs) != 2 {
		t.Fatalf("verdict %q, %d pairs\n%s", s.Verdict, len(s.Pairs), r.stderr)
	}
	for _, p := range s.Pairs {
		for _, run := range []session.Run{p.A, p.B} {
			if run.RPS <= 0 || run.ServerCPUPct <= 0 || run.RPSPerCPUSecond <= 0 || run.RSSMiB <= 0 || run.Error != "" {
				t.Errorf("pair %d %s: rps %.0f, server CPU %.1f%%, per CPU-s %.0f, RSS %.1f MiB, error %q: a figure is missing",
					p.Index, run.Target, run.RPS, run.ServerCPUPct, run.RPSPerCPUSecond, run.RSSMiB, run.Error)
			}
			// The server is pinned to one CPU: more than one core's worth is a misread window
			// (its CPU read against another interval's time).
			if run.ServerCPUPct > 102 {
				t.Errorf("pair %d %s: server CPU %.1f%% on one CPU", p.Index, run.Target, run.ServerCPUPct)
			}
		}
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", r.stderr)
	}
	t.Logf("%s (stderr tail: %s)", strings.TrimSpace(s.Headline), tailLines(r.stderr, 3))
	noneLeftInLab(t, l)
}

// A race at a rate across hosts is the open-loop race a local one is: each client host sends
// its share of the rate, and every run has the open loop's figures (the rate asked in all, sent
// rate, send lag) and a latency histogram merged from the hosts'. Side a is a capped target,
// which runs on the server host from the binary its base target names.
func TestRaceAtRateAcrossHosts(t *testing.T) {
	l := lab.Get(t)
	if _, err := os.Stat(filepath.Join(root, "bin", "binding-server")); err != nil {
		t.Fatal("bin/binding-server not built: make test builds it; run make build")
	}
	dir := filepath.Join(t.TempDir(), "race")
	r := cli(t, 120*time.Second, "race", "--a", "binding@cpu95", "--b", "fasthttp", "--rate", "2000", "--connections", "8",
		"--pipelining", "1", "--server-host", l.Server.Spec, "--client-hosts", l.Clients[0].Spec+","+l.Clients[1].Spec,
		"--ssh-config", l.ConfigFile, "--pairs", "2", "--windows", "1", "--duration", "1s", "--warmup", "200ms", "--settle", "0",
		"--cooldown", "0", "--busy-sample", "0", "--out", dir, "--json")
	var s session.Summary
	r.decode(t, &s)
	var metrics []string
	for _, c := range s.Checks {
		metrics = append(metrics, c.Metric)
	}
	if s.Rate == nil || s.Rate.RPS != 2000 || strings.Join(metrics, ",") != "p50_ms,p99_ms,errors" || s.MergedA == nil || s.MergedB == nil {
		t.Errorf("rate %+v, checks %v, merged %+v %+v: want an open-loop race at 2000/s", s.Rate, metrics, s.MergedA, s.MergedB)
	}
	for i, run := range rawRuns(t, dir, 4) {
		if n, err := histCount(run); err != nil || n != run.Responses || n == 0 || run.Error != "" {
			t.Errorf("run %d (%s): histogram %v of %d values for %d responses, error %q", i, run.Target, err, n, run.Responses, run.Error)
		}
		if o := run.Open; o == nil || o.Rate != 2000 || o.SentRPS <= 0 || o.LagP99Ms <= 0 {
			t.Errorf("run %d (%s): open loop %+v, want the 2000/s asked of both hosts together, what they sent and their send lag", i, run.Target, run.Open)
		}
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", r.stderr)
	}
	noneLeftInLab(t, l)
}

func TestRaceHostFaults(t *testing.T) {
	l := lab.Get(t)
	refused, err := l.RefusedConfig("stranger")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, host, config, want string
	}{
		{"unreachable", "root@" + l.Unused, l.ConfigFile, "root@" + l.Unused},
		{"refused key", l.Server.Spec, refused, "permission denied"},
	} {
		r := cli(t, 60*time.Second, "race", "--a", "fasthttp", "--b", "nethttp", "--server-host", c.host, "--ssh-config", c.config,
			"--pairs", "2", "--windows", "1", "--duration", "300ms", "--warmup", "100ms", "--cooldown", "0", "--busy-sample", "0",
			"--out", filepath.Join(t.TempDir(), "race"))
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, c.host) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 naming %s and %q", c.name, r.code, tailLines(r.stderr, 4), c.host, c.want)
		}
	}
	noneLeftInLab(t, l)
}

// TestLoadFromHosts drives a server here (reached from the lab through the bridge's .1) from
// both client hosts at once and checks the merged figures add up to the hosts' own.
func TestLoadFromHosts(t *testing.T) {
	l := lab.Get(t)
	// On the bridge's address here, where the lab's clients reach it (serve listens on
	// loopback unless told otherwise).
	ready := serveHere(t, l.Gateway)
	url := "http://" + l.Gateway + ":" + strconv.Itoa(ready.Port)
	for _, rate := range []string{"", "1000"} {
		args := []string{"load", url, "--client-hosts", l.Clients[0].Spec + "," + l.Clients[1].Spec, "--ssh-config", l.ConfigFile,
			"--connections", "10", "--duration", "500ms", "--warmup", "200ms", "--json"}
		if rate != "" {
			args = append(args, "--rate", rate)
		}
		checkMergedLoad(t, l, rate, cli(t, 180*time.Second, args...))
	}
	noneLeftInLab(t, l)
}

// checkMergedLoad checks that the merged figures of a load from the lab's clients add up to
// the hosts' own, and, at a rate, that the hosts' shares add up to it.
func checkMergedLoad(t *testing.T, l *netnstest.Lab, rate string, r result) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("rate %q: exit %d\n%s", rate, r.code, r.stderr)
	}
	var merged struct {
		Responses int64   `json:"responses"`
		Hist      string  `json:"hist"`
		Rate      float64 `json:"rate"`
		LagHist   string  `json:"lag_hist"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &merged); err != nil {
		t.Fatalf("stdout: %v\n%s", err, r.stdout)
	}
	var sum int64
	for _, c := range l.Clients {
		m := regexp.MustCompile(regexp.QuoteMeta("host "+c.Spec+": ") + `[0-9.]+ \S+, (\d+) responses`).FindStringSubmatch(r.stderr)
		if m == nil {
			t.Fatalf("no figures of host %s in stderr:\n%s", c.Spec, r.stderr)
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		sum += n
	}
	if merged.Responses == 0 || merged.Responses != sum || merged.Hist == "" {
		t.Errorf("rate %q: merged %d responses, hosts %d in all, hist %d bytes", rate, merged.Responses, sum, len(merged.Hist))
	}
	if open := rate != ""; open != (merged.LagHist != "") || (open && strconv.FormatFloat(merged.Rate, 'f', -1, 64) != rate) {
		t.Errorf("rate %q: merged rate %v, send-lag histogram %d bytes", rate, merged.Rate, len(merged.LagHist))
	}
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// honestFirst starts a lie: the real `bindrace SUB` for its first n runs on the host, the lie
// after (a race keeps the pairs measured before it). A lie keeps no start instant: it starts
// when it is started (on a busy lab a generator may be started after the instant has passed).
const honestFirst = `#!/bin/sh
real=$1; shift
n=$(($(cat "$0.count" 2>/dev/null || echo 0) + 1)); echo $n >"$0.count"
if [ $n -le %d ]; then exec "$real" "$@"; fi
n=$#; skip=
for a; do
  if [ -n "$skip" ]; then skip=; elif [ "$a" = --start-at ]; then skip=1; else set -- "$@" "$a"; fi
done
shift $n
`

// The lies a host tells, each after the honest runs of honestFirst.
const (
	// Its load's JSON cut off.
	lieTruncated = `"$real" "$@" | head -c 700`
	// A load's JSON with a negative count of responses.
	lieNegative = `"$real" "$@" | sed 's/"responses":\([0-9]*\)/"responses":-\1/'`
	// An open loop's JSON with more responses than requests sent.
	lieMoreThanSent = `"$real" "$@" | sed 's/"sent":[0-9]*/"sent":1/'`
	// It connects to the server, then neither sends nor ends.
	lieHang = `addr=$(sed -n 's/.*"addr":"\([^"]*\)".*/\1/p')
exec bash -c 'exec 3<>/dev/tcp/${0%:*}/${0##*:} && sleep 600' "$addr"`
	// It runs its load, then 0.9 s into it (its window opens after 0.2 s) drops the harness's
	// connection to the host.
	lieDrop = `"$real" "$@" &
sleep 0.9; kill "$BINDRACE_LAB_CONN"; wait`
	// It serves, then 2 s after its ready line (past the verification) kills the server it
	// started.
	lieKillServer = `"$real" "$@" | { IFS= read -r line; printf '%s\n' "$line"
pid=$(printf '%s' "$line" | sed 's/.*"pid":\([0-9]*\).*/\1/'); sleep 2; kill -9 "$pid"; cat; }`
)

// TestClientHostsThatLie drives a server here from both client hosts, client2 misbehaving: its
// load's JSON cut off, or holding impossible figures; it hangs after connecting; it is slow to
// answer, then drops the connection mid-window. Each load is exit 2 naming the host and what
// it did, prints what the honest host measured marked incomplete, and leaves nothing running.
func TestClientHostsThatLie(t *testing.T) {
	l := lab.Get(t)
	url := "http://" + l.Gateway + ":" + strconv.Itoa(serveHere(t, l.Gateway).Port)
	liar := l.Clients[1]
	for _, c := range []struct {
		name string
		lie  string
		slow time.Duration
		rate bool
		say  string
	}{
		{"truncated JSON", lieTruncated, 0, false, "load output: truncated"},
		{"negative count", lieNegative, 0, false, "load output: responses -"},
		{"more responses than sent", lieMoreThanSent, 0, true, "more than the 1 requests sent"},
		{"hangs after connecting", lieHang, 0, false, "it hangs (stopped)"},
		{"slow, then drops the connection", lieDrop, time.Second, false, "lost"},
	} {
		t.Run(c.name, func(t *testing.T) {
			lie(t, l, liar, "load", 0, c.lie, c.slow)
			args := []string{"load", url, "--client-hosts", l.Clients[0].Spec + "," + liar.Spec, "--ssh-config", l.ConfigFile,
				"--connections", "10", "--pipelining", "1", "--duration", "1s", "--warmup", "200ms", "--json"}
			if c.rate {
				args = append(args, "--rate", "1000")
			}
			r := cli(t, 240*time.Second, args...)
			line := hostLine(r.stderr, liar.Spec+":")
			t.Logf("exit %d: %s", r.code, line)
			if r.code != 2 || !strings.Contains(line, c.say) {
				t.Errorf("exit %d, want 2 and a line naming %s saying %q:\n%s", r.code, liar.Spec, c.say, r.stderr)
			}
			var kept struct {
				Responses  int64  `json:"responses"`
				Incomplete string `json:"incomplete"`
			}
			// The honest host's figures, marked: unless it failed too (on a busy lab its start
			// instant may pass before it starts), which stderr says.
			err := json.Unmarshal([]byte(r.stdout), &kept)
			t.Logf("kept: %d responses (%v); the honest host: %s", kept.Responses, err, hostLine(r.stderr, l.Clients[0].Spec+":"))
			if err == nil && !strings.Contains(kept.Incomplete, liar.Spec) {
				t.Errorf("stdout %.300q: the figures kept are not marked incomplete by the liar", r.stdout)
			}
			noneLeftInLab(t, l)
		})
	}
}

// TestServerHostThatLies races, the load from here, on a server host whose `bindrace serve` kills
// the server it started, 2 s after it is ready, from the second pair on (the preflight's two
// servers and the first pair's are honest). Windows of 4 s put the kill inside the measured
// window whatever the start's checks and warm-up take (with 1 s windows the run could end before
// the kill, once a window's usage reads stopped taking a second each). The race is exit 2 naming
// the host, keeps the first pair as INCOMPLETE, and leaves nothing running.
func TestServerHostThatLies(t *testing.T) {
	l := lab.Get(t)
	lie(t, l, l.Server, "serve", 4, lieKillServer, 0)
	dir := filepath.Join(t.TempDir(), "race")
	r := cli(t, 420*time.Second, "race", "--a", "fasthttp", "--b", "nethttp", "--server-host", l.Server.Spec,
		"--ssh-config", l.ConfigFile, "--pairs", "2", "--windows", "1",
		"--duration", "4s", "--warmup", "200ms", "--settle", "0", "--cooldown", "0", "--busy-sample", "0", "--out", dir)
	line := hostLine(r.stderr, "session incomplete:")
	t.Logf("exit %d: %s", r.code, line)
	if r.code != 2 || !strings.Contains(line, l.Server.Addr) {
		t.Errorf("exit %d, want 2 and a line naming %s:\n%s", r.code, l.Server.Addr, r.stderr)
	}
	var s session.Summary
	if b, err := os.ReadFile(filepath.Join(dir, "summary.json")); err != nil || json.Unmarshal(b, &s) != nil {
		t.Errorf("no session kept: %v", err)
	} else if complete := completePairs(s); s.Verdict != session.Incomplete || complete != 1 {
		t.Errorf("session: verdict %s, %d complete pairs of %d; want INCOMPLETE with the first pair", s.Verdict, complete, len(s.Pairs))
	}
	noneLeftInLab(t, l)
}

// completePairs counts the pairs of s whose runs both finished without an error.
func completePairs(s session.Summary) int {
	n := 0
	for _, p := range s.Pairs {
		if p.A.Error == "" && p.B.Error == "" {
			n++
		}
	}
	return n
}

// serveHere serves fasthttp here on addr (the bridge's end: the lab's clients reach it) until
// the test ends, and returns its ready line.
func serveHere(t *testing.T, addr string) targets.Ready {
	srv := exec.Command(bin, "serve", "--target", "fasthttp", "--port", "0", "--listen", addr)
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() })
	line, err := bufio.NewReader(out).ReadBytes('\n')
	ready, ok, perr := targets.ParseReady(line)
	if err != nil || !ok || perr != nil || ready.Host != addr {
		t.Fatalf("server: %q, %v %v", line, err, perr)
	}
	return ready
}

// lie puts a lie on h's `bindrace SUB`, honest for its first n runs, h slowed by slow, undone
// when the test ends.
func lie(t *testing.T, l *netnstest.Lab, h netnstest.Host, sub string, n int, script string, slow time.Duration) {
	t.Cleanup(func() { l.Truth(h) })
	if err := l.Lie(h, sub, fmt.Sprintf(honestFirst, n)+script+"\n"); err != nil {
		t.Fatal(err)
	}
	if slow > 0 {
		if err := l.Delay(h, slow); err != nil {
			t.Fatal(err)
		}
	}
}

// hostLine is the first line of stderr that holds s.
func hostLine(stderr, s string) string {
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// A target of the user's runs on the server host as a built-in one does: its definition's
// folder (here the go template, built here) goes there, and the host serves it from its file.
func TestRaceUserTargetAcrossHosts(t *testing.T) {
	l := lab.Get(t)
	t.Setenv("GOWORK", "off")
	t.Setenv("GOTOOLCHAIN", "local")
	mine := filepath.Join(t.TempDir(), "mine")
	if r := cli(t, time.Minute, "target", "new", "mine-remote", "--runtime", "go", "--dir", mine); r.code != 0 {
		t.Fatalf("target new: %s", r.stderr)
	}
	def := filepath.Join(mine, "target.json")
	if r := cli(t, 2*time.Minute, "target", "prepare", def); r.code != 0 {
		t.Fatalf("target prepare: %s", r.stderr)
	}
	dir := filepath.Join(t.TempDir(), "race")
	r := cli(t, 120*time.Second, "race", "--a", def, "--b", "fasthttp", "--server-host", l.Server.Spec, "--client-hosts", l.Clients[0].Spec,
		"--ssh-config", l.ConfigFile, "--pairs", "2", "--windows", "1", "--duration", "1s", "--warmup", "200ms", "--settle", "0",
		"--cooldown", "0", "--busy-sample", "0", "--out", dir, "--json")
	var s session.Summary
	r.decode(t, &s)
	if s.Verdict == "" || len(s.Pairs) != 2 {
		t.Fatalf("verdict %q, %d pairs\n%s", s.Verdict, len(s.Pairs), r.stderr)
	}
	for _, p := range s.Pairs {
		if p.A.Target != def || p.A.RPS <= 0 || p.A.ServerCPUPct <= 0 || p.A.Error != "" {
			t.Errorf("pair %d: %s rps %.0f, server CPU %.1f%%, error %q", p.Index, p.A.Target, p.A.RPS, p.A.ServerCPUPct, p.A.Error)
		}
	}
	noneLeftInLab(t, l)
}
