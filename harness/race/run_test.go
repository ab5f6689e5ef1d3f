package race

import "testing"

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
