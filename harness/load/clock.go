package load

import "time"

// clockBase anchors Nanotime. time.Since on a monotonic Time reads the runtime's vDSO clock
// directly (no wall-clock work), so taking a timestamp per read and per batch write stays cheap.
var clockBase = time.Now()

// Nanotime is monotonic nanoseconds since package start, plus one so that 0 can mean "unset".
// Every timestamp a Window compares must come from it.
func Nanotime() int64 { return int64(time.Since(clockBase)) + 1 }
