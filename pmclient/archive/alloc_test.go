package archive

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"runtime"
	"testing"
)

// repeatedVolume is testdata/small3.0 with its data records repeated n
// times after its label: a long replay of real records.
func repeatedVolume(t *testing.T, n int) []byte {
	t.Helper()
	vol, err := os.ReadFile("testdata/small3.0")
	if err != nil {
		t.Fatal(err)
	}
	labelLen := int(binary.BigEndian.Uint32(vol))
	out := append([]byte(nil), vol[:labelLen]...)
	for range n {
		out = append(out, vol[labelLen:]...)
	}
	return out
}

// TestNextReusedAllocation: replaying an archive into reused memory
// allocates nothing per record once the reader is warm, and FetchReused
// nothing either (issue #18: the scan of a 102 MB archive allocated
// 614 MB; it now allocates its metadata).
func TestNextReusedAllocation(t *testing.T) {
	ctx := context.Background()
	meta, err := os.ReadFile("testdata/small3.meta")
	if err != nil {
		t.Fatal(err)
	}
	vol := repeatedVolume(t, 200)
	a, err := openMem(Options{}, map[string][]byte{"a.meta": meta, "a.0": vol})
	if err != nil {
		t.Fatal(err)
	}
	rd := a.Records()
	defer rd.Close()
	// The first records open the volume and size the buffers.
	for range 20 {
		if _, err := rd.NextReused(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	records, values := 0, 0
	for {
		rec, err := rd.NextReused(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		records++
		for _, m := range rec.Metrics {
			values += len(m.Values)
		}
	}
	runtime.ReadMemStats(&after)
	if records < 100 || values == 0 {
		t.Fatalf("%d records, %d values: the test volume should have more", records, values)
	}
	// A handful for the runtime's own bookkeeping, none per record.
	if n := after.Mallocs - before.Mallocs; n > 10 {
		t.Errorf("%d records (%d values) cost %d allocations, want none a record", records, values, n)
	}

	all, _ := a.AllNames(ctx)
	pmids, _, _ := a.LookupNames(ctx, all)
	for range 20 { // opens the volume, sizes the buffers
		if _, err := a.FetchReused(ctx, pmids); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&before)
	fetches := 0
	for ; ; fetches++ {
		if _, err := a.FetchReused(ctx, pmids); err != nil {
			break
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; fetches < 100 || n > 10 {
		t.Errorf("%d fetches cost %d allocations, want none a fetch", fetches, n)
	}
}
