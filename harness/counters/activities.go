package counters

import "strings"

// activity is a share of a Go server's samples, named by what the frames of its stacks do.
type activity struct {
	name   string
	frames []string
}

// activities are checked in order, and a sample goes to the first one a frame of its stack
// names: a sample inside a database query that also grows its stack counts as stack growth,
// the cost this view was made to find (docs/database.md). They name Go's runtime, the binding,
// fasthttp and the database client; other servers' samples are all OtherActivity.
var activities = []activity{
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

// OtherActivity is the activity of a stack no activity names.
const OtherActivity = "other"

// activityOf is the first activity one of the stack's frame names matches.
func activityOf(frames []string) string {
	for _, a := range activities {
		for _, want := range a.frames {
			for _, f := range frames {
				if strings.Contains(f, want) {
					return a.name
				}
			}
		}
	}
	return OtherActivity
}
