package goservers

import (
	"runtime"
	"testing"

	"github.com/bindrace/bindrace/harness/scenario"
)

// The video does not count toward the collector's heap: holding offHeap's 14 MB leaves the live
// heap where it was, while the same bytes from make raise it by 14 MB (the case the check must
// fail on, measured beside it).
func TestVideoOffTheHeap(t *testing.T) {
	grows := func(alloc func(int) []byte) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b := alloc(scenario.VideoSize)
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(b)
		return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
	}
	if g := grows(func(n int) []byte { return make([]byte, n) }); g < scenario.VideoSize/2 {
		t.Fatalf("make: the heap grew %d bytes, want at least %d (the measure cannot see the video)", g, scenario.VideoSize/2)
	}
	if g := grows(offHeap); g > 1<<20 {
		t.Errorf("offHeap: the heap grew %d bytes holding the video", g)
	}
	v := video()
	for _, i := range []int{0, 1, 4093, scenario.VideoSize - 1} {
		if v[i] != scenario.VideoByte(i) {
			t.Fatalf("video byte %d is %d, want %d", i, v[i], scenario.VideoByte(i))
		}
	}
}
