package kinds

import (
	"strings"
	"testing"
)

func TestCheckScale(t *testing.T) {
	for _, c := range []struct {
		targets []string
		threads []int
		want    string // "" = accepted
	}{
		{[]string{"binding", "fasthttp"}, []int{1, 2}, ""},
		{nil, []int{1}, "targets is empty"},
		{[]string{"binding"}, nil, "threads is empty"},
		{[]string{"binding"}, []int{0}, "at least 1"},
		{[]string{"binding"}, []int{-2}, "at least 1"},
		{[]string{"binding"}, []int{3}, "this machine has 2 CPUs"},
		{[]string{"binding"}, []int{1, 1}, "listed twice"},
		{[]string{"binding", "binding"}, []int{1}, `"binding" listed twice`},
	} {
		err := CheckScale(c.targets, c.threads, 2)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v %v: %v", c.targets, c.threads, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v %v: error %v, want one containing %q", c.targets, c.threads, err, c.want)
		}
	}
}

func TestScaleCPUs(t *testing.T) {
	for _, c := range []struct {
		threads        int
		server, client string
		ncpu           int
		want           string
		shared         bool
	}{
		{1, "1", "0", 2, "1", false},
		{2, "1", "0", 2, "1,0", true},
		{4, "8-15", "0-7", 16, "8,9,10,11", false},
		{10, "8-15", "0-7", 16, "8,9,10,11,12,13,14,15,0,1", true},
		{2, "2", "0", 4, "2,1", false}, // CPUs the client does not use come before the client's
	} {
		got, shared, err := ScaleCPUs(c.threads, c.server, c.client, c.ncpu)
		if err != nil || got != c.want || shared != c.shared {
			t.Errorf("ScaleCPUs(%d, %q, %q, %d) = %q, %v, %v; want %q, %v", c.threads, c.server, c.client, c.ncpu, got, shared, err, c.want, c.shared)
		}
	}
	if _, _, err := ScaleCPUs(3, "1", "0", 2); err == nil {
		t.Error("3 threads on 2 CPUs: no error")
	}
}
