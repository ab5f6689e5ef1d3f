package engine

import "time"

// clockBase anchors nanotime. time.Since on a monotonic Time reads the runtime's vDSO clock
// directly (no wall-clock work), so taking a timestamp per read and per batch write stays cheap.
var clockBase = time.Now()

// nanotime is monotonic nanoseconds since package start, plus one so that 0 can mean "unset".
// Every timestamp a Window compares must come from it.
func nanotime() int64 { return int64(time.Since(clockBase)) + 1 }
