package web

import (
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/explain"
)

// TestKeepBounds: what a trace keeps as samples come, archive (thinned
// to every stride-th record) and live (the oldest dropped), under each
// limit.
func TestKeepBounds(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	for _, c := range []struct {
		name        string
		live        bool
		limits      Limits
		samples     int
		valuesEach  int
		wantKept    int
		wantStride  int
		wantFirstAt int // the index of the first sample kept
	}{
		{"archive under the limit", false, Limits{MaxSamples: 10}, 10, 1, 10, 1, 0},
		{"archive thinned once", false, Limits{MaxSamples: 10}, 11, 1, 6, 2, 0},
		{"archive thinned twice", false, Limits{MaxSamples: 10}, 21, 1, 6, 4, 0},
		{"archive thinned by values", false, Limits{MaxValues: 100}, 10, 20, 5, 2, 0},
		{"live under the limit", true, Limits{Window: time.Hour, MaxSamples: 10}, 10, 1, 10, 1, 0},
		{"live past the samples", true, Limits{Window: time.Hour, MaxSamples: 10}, 25, 1, 10, 1, 15},
		{"live past the window", true, Limits{Window: 5 * time.Second}, 20, 1, 6, 1, 14},
		{"live past the values", true, Limits{Window: time.Hour, MaxValues: 100}, 20, 30, 3, 1, 17},
	} {
		tr := newTrace(nil, explain.Target{}, c.limits, c.live)
		for i := range c.samples {
			tr.keep(frame{at: t0.Add(time.Duration(i) * time.Second), values: c.valuesEach}, nil, c.live)
		}
		w := tr.Window()
		frames, _ := tr.snapshot()
		if w.Samples != c.wantKept || w.Stride != c.wantStride || w.Taken != c.samples {
			t.Errorf("%s: kept %d (stride %d) of %d, want %d (stride %d)", c.name, w.Samples, w.Stride, w.Taken, c.wantKept, c.wantStride)
			continue
		}
		if got := int(frames[0].at.Sub(t0) / time.Second); got != c.wantFirstAt {
			t.Errorf("%s: the first kept is sample %d, want %d", c.name, got, c.wantFirstAt)
		}
		if tr.values != c.wantKept*c.valuesEach {
			t.Errorf("%s: %d values counted, %d kept", c.name, tr.values, c.wantKept*c.valuesEach)
		}
	}
}
