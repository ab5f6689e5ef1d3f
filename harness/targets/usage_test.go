package targets

import "testing"

func TestParseStatCPU(t *testing.T) {
	// The command name may hold spaces and parentheses; fields count from the last ')'.
	stat := "1234 (a b) c)) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 130 0 0 20 0 3 0 5 0 0"
	got, err := parseStatCPU(stat)
	if err != nil || got != 3.8 {
		t.Fatalf("parseStatCPU = %v, %v; want 3.8", got, err)
	}
	if _, err := parseStatCPU("garbage"); err == nil {
		t.Fatal("malformed stat parsed")
	}
}

func TestParseStatusRSS(t *testing.T) {
	rss, peak := parseStatusRSS("Name:\tx\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\n")
	if rss != 1024<<10 || peak != 2048<<10 {
		t.Fatalf("rss %d peak %d", rss, peak)
	}
}
