package page

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/session"
)

// attributionFixture is the race fixture counted under cachegrind, with per-function counts of
// both sides as the race's counts step stores them, gated (gate.Apply ranks the deltas).
func attributionFixture() session.Summary {
	sum, _, _ := raceFixture("binding-plain")
	sum.B = "binding"
	sum.CountersMode = "cachegrind"
	sum.Counters = map[string]map[string]float64{"a": {"instructions": 2444.9}, "b": {"instructions": 2134.7}}
	sum.Thresholds.CounterMaxDeltaPct = map[string]float64{"instructions": 1}
	side := func(rows ...any) *session.Breakdowns {
		b := &session.Breakdown{Resolution: 2.3, TotalResolution: 10}
		for i := 0; i < len(rows); i += 2 {
			b.Rows = append(b.Rows, session.BreakdownRow{Name: rows[i].(string), Instructions: rows[i+1].(float64)})
		}
		return &session.Breakdowns{Functions: b, Files: b}
	}
	sum.Breakdowns = map[string]*session.Breakdowns{
		"a": side("br::process(br_loop*, br::Conn*)", 836.0, "br::parse_head(char const*, unsigned long)", 120.0, "main.ping", 344.0, "br::apply_batch(br_loop*, br_batch*)", 230.0, "runtime.memmove", 76.0),
		"b": side("br::process(br_loop*, br::Conn*)", 686.2, "main.ping", 344.0, "br::apply_batch(br_loop*, br_batch*)", 236.8, "runtime.memmove", 76.0),
	}
	gate.Apply(&sum, nil)
	return sum
}

// TestBrowserAttribution: the diverging chart has one bar per ranked function and one for
// everything else, with the gate's deltas; a bar of more instructions in A is right of the zero
// line and one of fewer left of it; the table's rows are the gate's, in its order.
func TestBrowserAttribution(t *testing.T) {
	chromium(t)
	sum := attributionFixture()
	_, raw, man := raceFixture("binding-plain")
	dom := browse(t, "report-attribution", renderFixture(t, t.TempDir(), sum, raw, man))
	at := sum.Attribution[0]
	v := at.Functions
	if len(v.Rows) != 3 { // process +149.8, parse_head +120 (only A), apply_batch −6.8; memmove and ping 0
		t.Fatalf("fixture: %+v", v.Rows)
	}
	svg := chart(t, dom, "attribution-function")
	got := points(svg, "rect")
	var want []string
	for _, r := range v.Rows {
		want = append(want, jsNum(r.Delta))
	}
	want = append(want, jsNum(v.Rest.Delta))
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("bars %v, want %v", got, want)
	}
	zero := regexp.MustCompile(`class="zero" data-x="([^"]+)"`).FindStringSubmatch(svg)
	if zero == nil {
		t.Fatal("no zero line")
	}
	x0, _ := strconv.ParseFloat(zero[1], 64)
	for _, r := range v.Rows {
		m := regexp.MustCompile(`<rect x="([^"]+)" y="[^"]+" width="([^"]+)"[^>]*data-value="` + regexp.QuoteMeta(jsNum(r.Delta)) + `"`).FindStringSubmatch(svg)
		if m == nil {
			t.Fatalf("no bar for %s", r.Name)
		}
		x, _ := strconv.ParseFloat(m[1], 64)
		w, _ := strconv.ParseFloat(m[2], 64)
		if r.Delta > 0 && x < x0-0.1 || r.Delta < 0 && x+w > x0+0.1 {
			t.Errorf("%s (%+v) bar at %v..%v, zero at %v", r.Name, r.Delta, x, x+w, x0)
		}
	}
	if !strings.Contains(svg, `class="bar-better"`) || !strings.Contains(svg, `class="bar-worse"`) || !strings.Contains(svg, "(only binding-plain)") {
		t.Error("chart lacks a better bar, a worse bar or the one-sided label")
	}
	rows := regexp.MustCompile(`data-testid="attribution-row" data-name="([^"]+)"`).FindAllStringSubmatch(dom, -1)
	if len(rows) != 2*len(v.Rows) || rows[0][1] != v.Rows[0].Name { // the function and the file tables
		t.Errorf("table rows %v", rows)
	}
	if got := textOf(t, dom, "attribution-total"); !strings.Contains(got, fmt.Sprintf("+%.1f", at.Delta)) {
		t.Errorf("total line %q", got)
	}
	// A check without per-function counts says so instead of a chart.
	sum.Breakdowns = nil
	gate.Apply(&sum, nil)
	dom = browse(t, "report-attribution-none", renderFixture(t, t.TempDir(), sum, raw, man))
	if !strings.Contains(dom, `data-unavailable="true"`) || strings.Contains(dom, `data-chart="attribution-function"`) {
		t.Error("no per-function counts: no note, or a chart anyway")
	}
}
