package stats

import (
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

func scaleRun(target string, threads int, rps, cpuPct, clientPct float64, shared bool) session.ScaleRun {
	return session.ScaleRun{Run: session.Run{Target: target, RPS: rps, ServerCPUPct: cpuPct, RPSPerCPUSecond: rps / cpuPct * 100},
		ServerThreads: threads, SharedCPUs: shared, ClientCPUPct: clientPct, ClientCores: 1, CPUsServer: "1"}
}

func TestSummarizeScale(t *testing.T) {
	s := &session.Scale{Targets: []string{"a", "b"}, Threads: []int{1, 2, 4}, Runs: []session.ScaleRun{
		scaleRun("a", 1, 100, 99, 50, false), scaleRun("a", 1, 120, 99, 50, false), scaleRun("a", 1, 110, 99, 50, false),
		scaleRun("b", 1, 50, 99, 95, false),
		scaleRun("a", 2, 180, 150, 60, true), scaleRun("b", 2, 100, 190, 40, true),
		scaleRun("a", 4, 0, 0, 0, true), // failed: no valid run at 4 threads for a
		scaleRun("b", 4, 150, 390, 40, true),
	}}
	s.Runs[6].Error = "target exited"
	SummarizeScale(s)
	if s.BaseThreads != 1 || len(s.Points) != 6 {
		t.Fatalf("base %d, %d points", s.BaseThreads, len(s.Points))
	}
	a1, b1, a2, b2, a4 := s.Points[0], s.Points[1], s.Points[2], s.Points[3], s.Points[4]
	if a1.Target != "a" || a1.Threads != 1 || a1.RPS != 110 || a1.Runs != 3 || a1.EfficiencyPct != 100 {
		t.Errorf("a@1 = %+v, want the median 110 of three runs, efficiency 100", a1)
	}
	if !b1.ClientBound || a1.ClientBound {
		t.Errorf("client-bound marks: a@1 %v (client 50%%), b@1 %v (client 95%% of 1 core)", a1.ClientBound, b1.ClientBound)
	}
	// a: 180 at 2 threads against 110 at 1: speed-up 1.64, efficiency 180/2/110 = 81.82%.
	if a2.SpeedUp != 1.64 || a2.EfficiencyPct != 81.82 || !a2.SharedCPUs || !a2.ServerUnsaturated {
		t.Errorf("a@2 = %+v", a2)
	}
	if b2.EfficiencyPct != 100 || b2.ServerUnsaturated {
		t.Errorf("b@2 = %+v, want efficiency 100 (twice b@1), saturated at 190%%", b2)
	}
	if a4.Runs != 0 || a4.RPS != 0 || a4.EfficiencyPct != 0 {
		t.Errorf("a@4 = %+v, want no valid run and no figures", a4)
	}
	if len(s.Warnings) != 1 {
		t.Errorf("warnings %q, want one naming a at 4 threads", s.Warnings)
	}
}

func TestSummarizeScaleBaseIsSmallest(t *testing.T) {
	s := &session.Scale{Targets: []string{"a"}, Threads: []int{2, 4}, Runs: []session.ScaleRun{
		scaleRun("a", 2, 200, 199, 10, false), scaleRun("a", 4, 300, 399, 10, false),
	}}
	SummarizeScale(s)
	if s.BaseThreads != 2 || s.Points[1].EfficiencyPct != 75 || s.Points[1].SpeedUp != 1.5 {
		t.Errorf("base %d, a@4 %+v: want efficiency (300/4)/(200/2) = 75%%", s.BaseThreads, s.Points[1])
	}
}
