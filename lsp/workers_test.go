package lsp

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestWorkersReuse: functions run one after another reuse one worker
// (the goroutine whose stack has grown), concurrent ones each get one,
// none waits for another, and stop ends them all.
func TestWorkersReuse(t *testing.T) {
	before := runtime.NumGoroutine()
	w := newWorkers()
	ids := make(chan uint64, 1)
	var buf [64]byte
	goid := func() uint64 { // the running goroutine's id, from its trace header
		n := runtime.Stack(buf[:], false)
		var id uint64
		for _, c := range buf[len("goroutine "):n] {
			if c < '0' || c > '9' {
				break
			}
			id = id*10 + uint64(c-'0')
		}
		return id
	}
	var first uint64
	for i := range 50 {
		w.run(func() { ids <- goid() })
		id := <-ids
		if i == 0 {
			first = id
		} else if id != first {
			// The worker may not yet be back at its receive: allow it
			// time, then it must be the same one.
			time.Sleep(time.Millisecond)
			w.run(func() { ids <- goid() })
			if id = <-ids; id != first {
				t.Fatalf("run %d on goroutine %d, the first on %d: not reused", i, id, first)
			}
		}
		time.Sleep(100 * time.Microsecond) // back at its receive
	}
	// Three at once: none waits for the others.
	var wg sync.WaitGroup
	release := make(chan struct{})
	started := make(chan struct{}, 3)
	for range 3 {
		wg.Add(1)
		w.run(func() { started <- struct{}{}; <-release; wg.Done() })
	}
	for range 3 {
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatal("a function waited for a busy worker")
		}
	}
	close(release)
	wg.Wait()
	w.stop()
	w.stop() // twice is fine
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after stop, %d before", n, before)
	}
}
