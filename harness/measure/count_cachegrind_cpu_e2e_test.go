//go:build long

package measure

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/counters"
)

// TestCachegrindBindingPingP1 counts the binding at ping, pipelining 1, on whatever CPU this
// is. Without pipelining the Go runtime's locks are contended and take runtime.cputicks, which
// executes RDTSCP when CPUID says it may: on a host without RDTSCP (this AMD VM) valgrind still
// says so and then cannot run it, and before the switches the server died there (a death
// cachegrindRun now reports). With them it is counted, and the count names its CPU.
func TestCachegrindBindingPingP1(t *testing.T) {
	tg, sc := targetAndPing(t, "binding")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	const n = 5000
	var log bytes.Buffer
	res, err := counterOf(t, tg.Name, "1", &log).Cachegrind(ctx, tg.Name, sc, n, CachegrindOptions{Pipelining: 1})
	if err != nil {
		t.Fatalf("%v\nlog:\n%s", err, log.String())
	}
	c := res.CPU
	if res.Responses != n || res.PerResponse[counters.Instructions] <= 0 || c == nil || c.Model == "" || len(c.GuestFeatures) == 0 {
		t.Fatalf("responses %d, instructions %v, CPU %+v", res.Responses, res.PerResponse[counters.Instructions], c)
	}
	t.Logf("%.1f instructions per response on %s", res.PerResponse[counters.Instructions], c.Describe())
	if slices.Contains(c.Hidden, "rdtscp") && !slices.ContainsFunc(c.Switches, func(s string) bool { return strings.Contains(s, "cpu.rdtscp=off") }) {
		t.Errorf("rdtscp hidden without its switch: %v", c.Switches)
	}
}
