package main

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// run never waits for a busy worker (it is called on the event loop): with every worker held,
// the next piece of work starts at once on a new one. Released workers then take later work:
// a thousand sequential runs start at most a few more (one whose worker has finished but not
// yet gone back to wait counts as busy), and the workers stay for the next.
func TestWorkersNeverBlockAndStay(t *testing.T) {
	w := newWorkers(func(f func(), buf []byte) []byte { f(); return buf })
	hold := make(chan struct{})
	var started sync.WaitGroup
	for range 3 {
		started.Add(1)
		w.run(func() { started.Done(); <-hold })
	}
	started.Wait()
	ran := make(chan struct{})
	w.run(func() { close(ran) }) // the three are held: a fourth worker must take it
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("work waited for a busy worker")
	}
	close(hold)
	// Let the four go idle, then count goroutines around sequential work.
	waitIdle(t, w, 4)
	before := runtime.NumGoroutine()
	for range 1000 {
		done := make(chan struct{})
		w.run(func() { close(done) })
		<-done
	}
	waitIdle(t, w, 4)
	if after := runtime.NumGoroutine(); after > before+3 {
		t.Errorf("%d goroutines after 1000 sequential runs, %d before: idle workers were not reused", after, before)
	}
}

// waitIdle waits until n workers wait for work: n runs in a row find an idle worker.
func waitIdle(t *testing.T, w *workers[func()], n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if idleWorkers(w, n) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d workers went idle", n)
		}
	}
}

// idleWorkers counts up to n workers waiting for work by parking each on a channel, then
// releases them all.
func idleWorkers(w *workers[func()], n int) int {
	release := make(chan struct{})
	var parked sync.WaitGroup
	got := 0
	for range n {
		parked.Add(1)
		select {
		case w.idle <- func() { parked.Done(); <-release }:
			got++
		default:
			parked.Done()
		}
	}
	parked.Wait()
	close(release)
	return got
}
