package checker

import (
	"context"
	"runtime"
	"sync"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// treeWindow is how many metrics' trees a FindingsOnly check builds
// ahead at a time: enough for the CPUs to share, few enough that the
// trees held at once are a small part of a big config. The first window
// is of firstTreeWindow, and each next one twice the one before up to
// treeWindow: the check starts on the first, small window while the next
// are built, rather than wait for a whole window.
//
// The builder runs at most windowsAhead windows ahead of the check:
// enough to keep the CPUs busy while the check waits for its metadata
// round trips, few enough that a big config's trees held at once stay a
// few windows' worth.
const (
	treeWindow      = 4096
	firstTreeWindow = 256
	windowsAhead    = 4
)

// buildAhead builds the metrics' trees a window at a time (treeWindow),
// in the background, at most windowsAhead windows ahead of the reader of
// the channel, which receives the end of each window in metrics when it
// is built. A tree asked for before its window is built is simply built
// by the asker (Tree is safe for concurrent use).
func buildAhead(ctx context.Context, metrics []*Metric, trees *grammar.TreeCache) <-chan int {
	built := make(chan int, windowsAhead-1)
	go func() {
		defer close(built)
		for start, size := 0, firstTreeWindow; start < len(metrics); start, size = start+size, min(2*size, treeWindow) {
			end := min(start+size, len(metrics))
			window := metrics[start:end]
			defs := make([]*grammar.Definition, len(window))
			for k, m := range window {
				defs[k] = m.Def
			}
			// A CPU fewer than there are: the check runs beside the
			// builder, and is the slower of the two when they share
			// all the CPUs (with both of two, a check of 10,000
			// definitions waited on the builder, and the names' round
			// trips waited on pmcd).
			buildTrees(ctx, defs, trees, nil, max(1, runtime.NumCPU()-1))
			if ctx.Err() != nil {
				return
			}
			select {
			case built <- end:
			case <-ctx.Done():
				return
			}
		}
	}()
	return built
}

// definitionCount is the number of definitions of the files, registered
// or not: room enough for the metrics' names.
func definitionCount(files []*grammar.File) int {
	n := 0
	for _, f := range files {
		n += f.Definitions.Len()
	}
	return n
}

// registered lists the files' registered definitions.
func registered(files []*grammar.File) []*grammar.Definition {
	var defs []*grammar.Definition
	for _, f := range files {
		for _, d := range f.Definitions.All() {
			if d.Registered {
				defs = append(defs, d)
			}
		}
	}
	return defs
}

// buildTrees parses the definitions' syntax trees on cpus CPUs (the
// participle parse is the costliest step of a check); through trees, if
// not nil, a repeated short text once, else through shapes.
func buildTrees(ctx context.Context, defs []*grammar.Definition, trees *grammar.TreeCache, shapes *grammar.Shapes, cpus int) {
	workers := min(cpus, len(defs)/64+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n, i := 0, w; i < len(defs); n, i = n+1, i+workers {
				if n%cancelEvery == 0 && ctx.Err() != nil {
					return // the caller sees ctx's error
				}
				if trees != nil {
					trees.Tree(defs[i])
				} else {
					defs[i].TreeWith(shapes)
				}
			}
		}()
	}
	wg.Wait()
}
