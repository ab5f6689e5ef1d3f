package kinds

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/testbin"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

// TestVerify (`bindrace verify`): every scenario of the Go targets passes, each reported; a
// wrong server's mismatches are reported scenario by scenario and counted, and the targets
// after it are still checked.
func TestVerify(t *testing.T) {
	type check struct {
		target, scenario string
		err              error
	}
	verify := func(names []string, scens ...string) (checks []check, failed int) {
		t.Helper()
		var scs []scenario.Scenario
		for _, n := range scens {
			sc, err := scenario.ByName(n)
			if err != nil {
				t.Fatal(err)
			}
			scs = append(scs, sc)
		}
		res, err := Verify(context.Background(), VerifyOptions{Targets: names, Scenarios: scs,
			Report: func(target, scenario string, err error) { checks = append(checks, check{target, scenario, err}) }})
		if err != nil {
			t.Fatal(err)
		}
		return checks, res.Summary.Failed
	}
	checks, failed := verify([]string{"nethttp", "fasthttp"}, "ping", "params", "json", "ws-echo")
	if failed != 0 || len(checks) != 8 {
		t.Fatalf("verify: %d failed of %+v", failed, checks)
	}
	for _, c := range checks {
		if c.err != nil {
			t.Errorf("%s/%s: %v", c.target, c.scenario, c.err)
		}
	}

	srv := filepath.Join(t.TempDir(), "hi.py")
	if err := os.WriteFile(srv, []byte(testbin.HiServer), 0o644); err != nil {
		t.Fatal(err)
	}
	checks, failed = verify([]string{"cmd:python3 " + srv + " {port}", "nethttp"}, "ping", "params", "ws-echo")
	var text string
	for _, c := range checks {
		if c.err != nil {
			for _, m := range targets.Mismatches(c.err) {
				text += m.Error() + "\n"
			}
		}
	}
	if failed != 2 || len(checks) != 6 || checks[0].scenario != "ping" || checks[0].err != nil || checks[5].target != "nethttp" ||
		!strings.Contains(text, `scenario params: body: expected "1 bun", got "hi"`) ||
		!strings.Contains(text, `scenario ws-echo: upgrade: expected 101 Switching Protocols`) {
		t.Errorf("verify of a wrong server, then a right one: %d failed of %+v\n%s", failed, checks, text)
	}
}
