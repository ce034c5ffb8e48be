package snapshot

import (
	"runtime"
	"strings"
	"testing"
)

// TestEmptyMetricsStopAtFirst: a 10 MB snapshot of 3.5 million empty
// metric objects (issue #41: 1.4 GB before its error, the whole file
// decoded first) is an error naming the first of them, read within 20
// times its size + 40 MB of allocations (all of them, garbage included).
func TestEmptyMetricsStopAtFirst(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"format":"pcp-derive-lsp-snapshot","version":1,"source":"x","pcpVersion":"6.0.3","metrics":[`)
	for i := 0; i < 3_500_000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("{}")
	}
	b.WriteString(`],"indoms":[]}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Read(strings.NewReader(b.String()), "snapshot big")
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	bound := uint64(20*b.Len() + 40<<20)
	t.Logf("%d bytes: %v; %.1f MB allocated (bound %.1f MB)", b.Len(), err, float64(allocated)/(1<<20), float64(bound)/(1<<20))
	if err == nil || !strings.Contains(err.Error(), "snapshot big: metric 0 ") {
		t.Errorf("error %v, want one naming metric 0", err)
	}
	if allocated > bound {
		t.Errorf("allocated %d MB, over 20 times the input + 40 MB (%d MB)", allocated>>20, bound>>20)
	}
}

// TestConflictingDescriptors: two names of one PMID must describe it
// alike (libpcp has one descriptor a PMID); the same descriptor twice is
// an alias, and fine.
func TestConflictingDescriptors(t *testing.T) {
	const head = `{"format":"pcp-derive-lsp-snapshot","version":1,"source":"x","pcpVersion":"6.0.3","metrics":[`
	alias := head + `{"name":"a.x","pmid":"1.2.3","type":"U32","indom":"","sem":"counter","units":""},
		{"name":"a.y","pmid":"1.2.3","type":"U32","indom":"","sem":"counter","units":""}]}`
	if _, err := Read(strings.NewReader(alias), "alias"); err != nil {
		t.Errorf("two names of one descriptor: %v", err)
	}
	conflict := head + `{"name":"a.x","pmid":"1.2.3","type":"U32","indom":"","sem":"counter","units":""},
		{"name":"a.y","pmid":"1.2.3","type":"DOUBLE","indom":"","sem":"instant","units":""}]}`
	_, err := Read(strings.NewReader(conflict), "conflict")
	if err == nil || !strings.Contains(err.Error(), `conflict: metric 1`) || !strings.Contains(err.Error(), `PMID 1.2.3 is described otherwise by metric "a.x"`) {
		t.Errorf("conflicting descriptors: %v", err)
	}
}
