package measure

import (
	"testing"

	"github.com/bindrace/bindrace/harness/profile"
)

func TestPlanCaps(t *testing.T) {
	p := Plan{Method: profile.Method{Workers: 4, CPUsClient: "0", CPUsServer: "1"}}
	if w := p.ClientWorkers(); w != 1 {
		t.Errorf("4 workers on one client CPU: %d", w)
	}
	if c := p.AllottedCores(); c != 1 {
		t.Errorf("allotted cores: %v", c)
	}
	p = Plan{Method: profile.Method{Threads: 1, CPUsServer: "2-3"}}
	if c := p.AllottedCores(); c != 1 {
		t.Errorf("one thread on two CPUs: %v", c)
	}
	if c := p.of(Spec{Threads: 2, CPUs: "4-5"}).AllottedCores(); c != 2 {
		t.Errorf("a spec's own server shape: %v cores", c)
	}
}

// A CPU list the profile got wrong is named by its setting.
func TestNewPlanBadCPUs(t *testing.T) {
	p := profile.Default()
	p.CPUsServer = "1-x"
	if _, err := NewPlan(&p); err == nil || err.Error()[:len("cpus_server")] != "cpus_server" {
		t.Errorf("NewPlan = %v, want an error naming cpus_server", err)
	}
}
