package main

import (
	"strings"
	"testing"
)

// Each stack goes to the first bucket one of its frames names, in the buckets' order; blank
// lines separate samples and a stack no bucket names is "other".
func TestClassify(t *testing.T) {
	script := `
	  4a1 runtime.copystack
	  4a2 runtime.newstack
	  4a3 github.com/bindrace/bindrace/harness/db.(*Queries).Handle

	  5b1 runtime.netpoll
	  5b2 runtime.findRunnable

	  6c1 github.com/bindrace/bindrace/harness/db.(*Queries).Handle
	  6c2 main.addDBRoutes.dbHandler.func1.1
	  7d1 some.unknown
`
	counts, total, err := classify(strings.NewReader(strings.ReplaceAll(script, "\t", "")))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"goroutine stack growth (morestack)":                 1,
		"scheduler, netpoll, park":                           1,
		"database query (db.Handle: pgx and its socket I/O)": 1,
	}
	if total != 3 || len(counts) != len(want) {
		t.Fatalf("total %d, counts %v", total, counts)
	}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s: %d, want %d (all: %v)", k, counts[k], v, counts)
		}
	}
	if _, n, _ := classify(strings.NewReader("  1 some.unknown\n")); n != 1 || bucketOf("1 some.unknown") != "other" {
		t.Errorf("an unnamed stack: %d samples, bucket %q", n, bucketOf("1 some.unknown"))
	}
}
