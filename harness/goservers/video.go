package goservers

import (
	"sync"
	"syscall"

	"github.com/bindrace/bindrace/harness/scenario"
)

// video is the stream scenario's body, kept outside the collected heap as the binding keeps it
// in native memory. In a Go server's heap its 14 MB would be live all the time and raise the
// collector's goal from the 4 MB floor to about 29 MB: that server would then collect a seventh
// as often as the binding in every scenario that allocates (get-user, paced: one cycle where
// binding-server ran nine, GODEBUG=gctrace=1), a head start that is not the library's.
var video = sync.OnceValue(func() []byte {
	b := offHeap(scenario.VideoSize)
	scenario.FillVideo(b)
	return b
})

// offHeap returns n bytes of anonymous memory the collector neither counts nor scans, or heap
// memory if the kernel refuses the mapping. It is never freed.
func offHeap(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n)
	}
	return b
}
