// Command perfbuckets sorts a server's perf samples into where its time per request goes. It
// reads `perf script -F ip,sym` (call-graph samples, one blank-line-separated stack each) on
// stdin and puts each sample in the first bucket one of whose frames its stack holds, in the
// order below; with -rps and -seconds it also gives each bucket in µs of CPU per request.
//
// Usage: perf script -F ip,sym -i server.perf.data | go run ./scripts/perfbuckets -hz 4000 -rps 20985 -seconds 5
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// bucket is a share of the samples, named by what its frames do.
type bucket struct {
	name   string
	frames []string
}

// buckets are checked in order: a sample inside the database query that also grows its stack
// counts as stack growth, the cost this view was made to find (docs/database.md).
var buckets = []bucket{
	{"goroutine stack growth (morestack)", []string{"runtime.newstack"}},
	{"sysmon", []string{"runtime.sysmon"}},
	{"GC", []string{"runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge"}},
	{"database query (db.Handle: pgx and its socket I/O)", []string{"db.(*Queries).Handle"}},
	{"hand-off (Detach, go, End, br_loop_complete)", []string{"binding.(*Response).Detach", "binding.(*Response).End", "runtime.newproc", "br_loop_complete"}},
	{"response send", []string{"__libc_sendmsg", "bufio.(*Writer).Flush"}},
	{"request receive and parse", []string{"recvfrom", "bufio.(*Reader)", "fasthttp.(*RequestHeader)"}},
	{"scheduler, netpoll, park", []string{"runtime.schedule", "runtime.findRunnable", "runtime.netpoll", "runtime.park_m", "runtime.mcall", "epoll_wait", "epoll_pwait"}},
	{"binding loop: step and dispatch (rest)", []string{"binding.(*loop)", "br_loop_step"}},
	{"fasthttp serveConn (rest)", []string{"fasthttp.(*Server).serveConn"}},
}

func main() {
	hz := flag.Float64("hz", 4000, "perf's sampling frequency (-F)")
	rps := flag.Float64("rps", 0, "requests per second served while sampled (0: shares only)")
	seconds := flag.Float64("seconds", 0, "how long perf sampled")
	flag.Parse()
	counts, total, err := classify(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "perfbuckets:", err)
		os.Exit(1)
	}
	if total == 0 {
		fmt.Fprintln(os.Stderr, "perfbuckets: no samples on stdin")
		os.Exit(1)
	}
	perRequest := func(n int) string { // µs of CPU per request
		if *rps <= 0 || *seconds <= 0 {
			return ""
		}
		return fmt.Sprintf("  %6.2f µs", float64(n)/(*hz)*1e6/(*rps**seconds))
	}
	fmt.Printf("%d samples%s per request\n", total, perRequest(total))
	names := make([]string, 0, len(counts))
	for name := range counts {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return counts[names[i]] > counts[names[j]] })
	for _, name := range names {
		fmt.Printf("  %-52s %5.1f%%%s\n", name, 100*float64(counts[name])/float64(total), perRequest(counts[name]))
	}
}

// classify counts the samples of a perf script by bucket ("other" for the rest).
func classify(r io.Reader) (map[string]int, int, error) {
	counts := map[string]int{}
	total := 0
	var stack strings.Builder
	flush := func() {
		if stack.Len() == 0 {
			return
		}
		total++
		counts[bucketOf(stack.String())]++
		stack.Reset()
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			flush()
			continue
		}
		stack.WriteString(line)
		stack.WriteByte('\n')
	}
	flush()
	return counts, total, sc.Err()
}

func bucketOf(stack string) string {
	for _, b := range buckets {
		for _, f := range b.frames {
			if strings.Contains(stack, f) {
				return b.name
			}
		}
	}
	return "other"
}
