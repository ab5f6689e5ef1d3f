package race

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

func TestPairOrders(t *testing.T) {
	got := PairOrders(5)
	want := []string{"AB", "BA", "AB", "BA", "AB"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("PairOrders(5) = %v, want %v", got, want)
	}
}

func TestMatrixOrdersReproducible(t *testing.T) {
	targets := []string{"binding", "uws", "fasthttp", "nethttp"}
	a := MatrixOrders(targets, 6, 42)
	b := MatrixOrders(targets, 6, 42)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, different orders:\n%v\n%v", a, b)
	}
	if len(a) != 6 {
		t.Fatalf("rounds: %d", len(a))
	}
	for _, round := range a {
		s := slices.Clone(round)
		slices.Sort(s)
		w := slices.Clone(targets)
		slices.Sort(w)
		if !reflect.DeepEqual(s, w) {
			t.Fatalf("round %v is not a permutation of %v", round, targets)
		}
	}
	// Another seed gives another sequence (with 4! orders over 6 rounds a clash is negligible).
	if c := MatrixOrders(targets, 6, 43); reflect.DeepEqual(a, c) {
		t.Errorf("seeds 42 and 43 gave the same orders")
	}
	// The rounds are not all the same order.
	same := true
	for _, r := range a[1:] {
		if !reflect.DeepEqual(r, a[0]) {
			same = false
		}
	}
	if same {
		t.Errorf("every round in the same order: %v", a)
	}
	// The input is not modified.
	if !reflect.DeepEqual(targets, []string{"binding", "uws", "fasthttp", "nethttp"}) {
		t.Errorf("input modified: %v", targets)
	}
}

func TestCPUs(t *testing.T) {
	for n, want := range map[int][2]string{1: {"", ""}, 2: {"1", "0"}, 4: {"2-3", "0-1"}, 8: {"4-7", "0-3"}} {
		s, c := DefaultCPUs(n)
		if s != want[0] || c != want[1] {
			t.Errorf("DefaultCPUs(%d) = %q,%q want %q,%q", n, s, c, want[0], want[1])
		}
	}
	got, err := ParseCPUs("0,2-4,3")
	if err != nil || !reflect.DeepEqual(got, []int{0, 2, 3, 4}) {
		t.Errorf("ParseCPUs: %v %v", got, err)
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "1-"} {
		if _, err := ParseCPUs(bad); err == nil {
			t.Errorf("ParseCPUs(%q) accepted", bad)
		}
	}
	if c := Complement("1", 4); c != "0,2,3" {
		t.Errorf("Complement: %q", c)
	}
	if n := CountCPUs("0-2,5"); n != 4 {
		t.Errorf("CountCPUs: %d", n)
	}
}

func TestPlanCaps(t *testing.T) {
	p := Plan{Workers: 4, CPUsClient: "0", CPUsServer: "1"}
	if w := p.clientWorkers(); w != 1 {
		t.Errorf("4 workers on one client CPU: %d", w)
	}
	if c := p.allottedCores(); c != 1 {
		t.Errorf("allotted cores: %v", c)
	}
	p = Plan{Threads: 1, CPUsServer: "2-3"}
	if c := p.allottedCores(); c != 1 {
		t.Errorf("one thread on two CPUs: %v", c)
	}
}

func TestWorst(t *testing.T) {
	v := session.Pass
	for _, x := range []string{session.Inconclusive, session.Pass, session.Fail, session.Inconclusive} {
		v = Worst(v, x)
	}
	if v != session.Fail {
		t.Errorf("worst: %s", v)
	}
	if Worst(v, session.Incomplete) != session.Incomplete {
		t.Errorf("incomplete must win")
	}
}

func TestProgress(t *testing.T) {
	if s := Thousands(482113.4); s != "482,113" {
		t.Errorf("Thousands: %s", s)
	}
	if s := Thousands(999); s != "999" {
		t.Errorf("Thousands: %s", s)
	}
	var b bytes.Buffer
	p := NewProgress(&b) // not a terminal: no status lines, plain log lines
	p.Status("pair 1/2 AB binding", "measuring", 0, 1, "rps")
	p.Logf("hello %d", 1)
	if strings.Contains(b.String(), "\r") || !strings.Contains(b.String(), "hello 1\n") {
		t.Errorf("non-TTY output: %q", b.String())
	}
	p = &Progress{w: &b, tty: true}
	b.Reset()
	p.Status("pair 3/10 AB binding", "measuring", 4100e6, 482113, "rps")
	if !strings.Contains(b.String(), "pair 3/10 AB binding  measuring 4.1s  482,113 rps") {
		t.Errorf("TTY line: %q", b.String())
	}
	b.Reset()
	p.Status("pair 1/2 AB fasthttp", "measuring", 1e9, 91234.6, "messages/s")
	if !strings.Contains(b.String(), "91,235 messages/s") {
		t.Errorf("TTY line: %q", b.String())
	}
}
