package lsp

import (
	"sync"
	"time"
)

// workers runs the analyses on goroutines kept from earlier ones. An
// analysis started on a fresh goroutine grows its stack from the
// smallest again, copying it at each doubling: profiled at 100,000
// lines, that was about a tenth of a keystroke's CPU. A worker that has
// run one waits idleWorker for the next, then ends, so no more are kept
// than ran at once lately; stop ends the idle ones at once (the session
// is over).
type workers struct {
	jobs     chan func()
	done     chan struct{}
	stopOnce sync.Once
}

// idleWorker is how long a worker waits for its next analysis: a pause
// in typing of a few seconds keeps it.
const idleWorker = 30 * time.Second

func newWorkers() *workers {
	return &workers{jobs: make(chan func()), done: make(chan struct{})}
}

// run runs f on an idle worker, or on a new one when none is idle (or
// the workers are stopped), never waiting for one.
func (w *workers) run(f func()) {
	select {
	case w.jobs <- f:
	default:
		go w.work(f)
	}
}

func (w *workers) work(f func()) {
	idle := time.NewTimer(idleWorker)
	defer idle.Stop()
	for {
		f()
		f = nil // what it holds is not kept while idle
		idle.Reset(idleWorker)
		select {
		case f = <-w.jobs:
		case <-idle.C:
			return
		case <-w.done:
			return
		}
	}
}

// stop ends the idle workers, and each busy one when its function
// returns.
func (w *workers) stop() { w.stopOnce.Do(func() { close(w.done) }) }
