package machine

import "testing"

func TestEnvironment(t *testing.T) {
	m := environment(FindRoot("."), []string{"bindrace", "race"})
	if m.Kernel == "" || m.CPUCount < 1 || m.GoVersion == "" || m.Governor == "" {
		t.Errorf("manifest: %+v", m)
	}
	if m.SourceHashes["harness"] == "" {
		t.Errorf("no harness source hash (root %q)", FindRoot("."))
	}
}
