package archive

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// benchArchive is the archive bench/archive.sh records and gives to
// pmdumplog too: $PCP_DERIVE_LSP_BENCH_ARCHIVE (a base name).
func benchArchive(b *testing.B) (base string, size int64) {
	b.Helper()
	base = os.Getenv("PCP_DERIVE_LSP_BENCH_ARCHIVE")
	if base == "" {
		b.Skip("set PCP_DERIVE_LSP_BENCH_ARCHIVE to an archive (bench/archive.sh does)")
	}
	files, _ := filepath.Glob(base + ".*")
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			size += st.Size()
		}
	}
	return base, size
}

// BenchmarkArchiveScan opens an archive and replays every data record,
// decoding every value into reused memory: pmdumplog -a's work without
// the printing.
func BenchmarkArchiveScan(b *testing.B) {
	base, size := benchArchive(b)
	ctx := context.Background()
	b.SetBytes(size)
	b.ReportAllocs()
	records, values := 0, 0
	for b.Loop() {
		records, values = 0, 0
		a, err := Open(base)
		if err != nil {
			b.Fatal(err)
		}
		rd := a.Records()
		for {
			rec, err := rd.NextReused(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			records++
			for _, m := range rec.Metrics {
				values += len(m.Values)
			}
		}
		rd.Close()
	}
	b.ReportMetric(float64(records), "records")
	b.ReportMetric(float64(values), "values")
}
