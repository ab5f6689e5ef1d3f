package engine

// headCache remembers the last few header blocks parsed and what they meant. A server answers
// a benchmark with byte-identical header blocks except when its Date header ticks, once a
// second, so comparing the next block with a remembered one (one memequal) replaces parsing
// its lines nearly every time. Only the meaning of identical bytes is reused, so framing
// stays exact: any difference at all takes the full parse. A few entries keep a round-robin
// of different requests (a scenario mix) from evicting each other.
type headCache struct {
	e    [headCacheEntries]headEntry
	next int // entry to replace on a miss
}

type headEntry struct {
	block  []byte // status line through the empty line; empty = unused
	status int
	close  bool
	state  framerState
	remain int64
}

const (
	headCacheEntries = 4
	// maxCachedHead bounds what is cached: benchmark responses have small header blocks.
	maxCachedHead = 1024
)

func newHeadCache() *headCache {
	hc := &headCache{}
	for i := range hc.e {
		hc.e[i].block = make([]byte, 0, maxCachedHead)
	}
	return hc
}

// lookup finds the entry whose block b starts with.
func (hc *headCache) lookup(b []byte) *headEntry {
	for i := range hc.e {
		e := &hc.e[i]
		if len(e.block) == 0 {
			return nil // entries fill in order
		}
		if len(b) >= len(e.block) && string(b[:len(e.block)]) == string(e.block) {
			return e
		}
	}
	return nil
}

func (hc *headCache) store(block []byte, f *framer) {
	e := &hc.e[hc.next]
	hc.next = (hc.next + 1) % headCacheEntries
	e.block = append(e.block[:0], block...)
	e.status, e.close, e.state, e.remain = f.status, f.close, f.state, f.remain
}
