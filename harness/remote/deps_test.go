package remote

import (
	"os/exec"
	"strings"
	"testing"
)

// The transport carries bytes and processes; it must not pull in the servers it transports
// (harness/targets, and with it fasthttp and pgx).
func TestImportsNoServers(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"/harness/targets", "valyala/fasthttp", "jackc/pgx"} {
			if strings.Contains(dep, banned) {
				t.Errorf("harness/remote depends on %s", dep)
			}
		}
	}
}
