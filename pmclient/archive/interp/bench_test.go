package interp

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/recordtest"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
)

// BenchmarkFetch: interpolating every logged metric (the proc PMDA's
// hundred processes among them) over a ten-second archive every 50
// milliseconds, as pmrep -a -t 0.05 fetches it.
func BenchmarkFetch(b *testing.B) {
	recs := recordtest.Archives(b)
	ctx := context.Background()
	a, err := archive.Open(recs.Mixed)
	if err != nil {
		b.Fatal(err)
	}
	pmids, errs, err := a.LookupNames(ctx, recordtest.Logged)
	if err != nil {
		b.Fatal(err)
	}
	ids := pmids[:0]
	for i, p := range pmids {
		if errs[i] == nil {
			ids = append(ids, p)
		}
	}
	fetches := 0
	for b.Loop() {
		src, err := New(ctx, a, Options{Origin: a.Start(), Interval: 50 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := src.Fetch(ctx, ids); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			fetches++
		}
		src.Close()
	}
	b.ReportMetric(float64(fetches)/b.Elapsed().Seconds(), "fetches/s")
}
