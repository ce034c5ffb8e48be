package archive

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/hostile"
)

// fileSeeds are small real archive files checked in under testdata/.
func fileSeeds(f *testing.F, pattern string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

// metaRecordSeeds are single .meta records: the instance-domain attacks
// of issue #12 (names sharing one string, terminated or not; names that
// are suffixes of one string), help text and a descriptor.
func metaRecordSeeds() [][]byte {
	return [][]byte{
		hostile.InDomSharedName(0x07400002, 64, 256, false),
		hostile.InDomSharedName(0x07400002, 64, 256, true),
		hostile.InDomSuffixNames(0x07400002, 64),
		hostile.HelpText(hostilePMID, 100),
		hostile.DescV3(hostilePMID, 6, "sample.string.hostile"),
	}
}

// xzSeeds are .meta.xz files: small ones, one in two streams with
// padding, one whose block asks for a 4 GiB dictionary, and one expanding
// past the 16 KiB cap FuzzReadMetaXZ sets.
func xzSeeds() [][]byte {
	small := hostileMeta(hostile.InDomSharedName(0x07400002, 8, 16, true), hostile.HelpText(hostilePMID, 100))
	half := len(small) / 2
	return [][]byte{
		hostile.XZ(small),
		append(append(hostile.XZ(small[:half]), 0, 0, 0, 0), hostile.XZ(small[half:])...),
		hostile.XZHugeDictionary(40),
		hostile.XZ(helpTextMeta(10, 2<<10)),
	}
}

// dataRecordSeeds are data volumes (after small3.meta's label) whose
// records alias value blocks.
func dataRecordSeeds() [][]byte {
	vol := func(rec []byte) []byte { return append(hostile.LabelV3(0), rec...) }
	return [][]byte{
		vol(hostile.DataRecordV3(1, func(s int) []byte { return hostile.SharedBlockVsets(hostilePMID, 64, 256, s) })),
		vol(hostile.DataRecordV3(1, func(s int) []byte { return hostile.OverlappingBlockVsets(hostilePMID, 32, s) })),
	}
}

// TestWriteFuzzSeeds refreshes testdata/fuzz from the seeds when
// $PCP_DERIVE_LSP_WRITE_SEEDS is set.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_WRITE_SEEDS") == "" {
		t.Skip("set PCP_DERIVE_LSP_WRITE_SEEDS to write testdata/fuzz")
	}
	for name, seeds := range map[string][][]byte{
		"FuzzMetaRecord":  metaRecordSeeds(),
		"FuzzReadMetaXZ":  xzSeeds(),
		"FuzzReadRecords": dataRecordSeeds(),
		"FuzzReadMeta":    {hostileMeta(hostile.InDomSharedName(0x07400002, 64, 256, false)), helpTextMeta(10, 2<<10)},
	} {
		if err := hostile.WriteCorpus(".", name, seeds); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzMetaRecord: any one .meta record is added or refused without a
// panic, and every instance name it yields lies within the record.
func FuzzMetaRecord(f *testing.F) {
	for _, s := range metaRecordSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rec []byte) {
		if len(rec) < 12 {
			return
		}
		for _, version := range []int{2, 3} {
			m := newMetadata()
			if m.add(rec, version) != nil {
				continue
			}
			for indom := range m.indoms {
				for _, in := range newHistory(m.indoms[indom]).StateAt(time.Time{}) {
					if len(in.Name) >= len(rec) || strings.IndexByte(in.Name, 0) >= 0 {
						t.Fatalf("instance %d: name of %d bytes from a %d-byte record", in.ID, len(in.Name), len(rec))
					}
				}
			}
		}
	})
}

// FuzzReadMeta: any .meta bytes give metadata or an error, never a panic.
func FuzzReadMeta(f *testing.F) {
	fileSeeds(f, "*.meta")
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := openMem(Options{MaxMetadataBytes: 16 << 10}, map[string][]byte{"a.meta": b, "a.0": nil})
		if err == nil {
			for indom := range a.meta.indoms {
				a.InstancesAt(indom, a.label.Start)
			}
		}
	})
}

// FuzzReadMetaXZ: any .meta.xz bytes give metadata or an error; nothing
// expands past the 16 KiB cap or asks for a dictionary past its cap.
func FuzzReadMetaXZ(f *testing.F) {
	for _, s := range xzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		openMem(Options{MaxMetadataBytes: 16 << 10}, map[string][]byte{"a.meta.xz": b, "a.0": nil})
	})
}

// FuzzReadRecords: any volume bytes replay or fail cleanly.
func FuzzReadRecords(f *testing.F) {
	fileSeeds(f, "*.0")
	for _, s := range dataRecordSeeds() {
		f.Add(s)
	}
	meta, err := os.ReadFile("testdata/small3.meta")
	if err != nil {
		f.Fatal(err)
	}
	// The hostile seeds' metric, a STRING, joins small3's metrics.
	meta = append(meta, hostile.DescV3(hostilePMID, 6, "sample.string.hostile")...)
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := openMem(Options{}, map[string][]byte{"a.meta": meta, "a.0": b})
		if err != nil {
			return
		}
		// Fresh records, then again into reused memory: the same
		// records, or the same failure.
		fresh, reused := a.Records(), a.Records()
		defer fresh.Close()
		defer reused.Close()
		for i := 0; i < 10000; i++ {
			want, werr := fresh.Next(context.Background())
			got, err := reused.NextReused(context.Background())
			if (werr == nil) != (err == nil) {
				t.Fatalf("record %d: Next %v, NextReused %v", i, werr, err)
			}
			if err != nil {
				return
			}
			if !sameRecord(got, want) {
				t.Fatalf("record %d: NextReused %+v, Next %+v", i, got, want)
			}
		}
	})
}

// sameRecord is reflect.DeepEqual with a NaN value equal to a NaN: the
// same bytes decoded twice (a fuzzed FLOAT is NaN often enough, and NaN
// equals nothing, itself included).
func sameRecord(a, b *Record) bool {
	return reflect.DeepEqual(withoutNaN(a), withoutNaN(b))
}

// withoutNaN is a copy of r with each NaN value's Float made +Inf, marked
// apart from a real +Inf by its String.
func withoutNaN(r *Record) *Record {
	if r == nil {
		return nil
	}
	out := *r
	out.Metrics = make([]pmclient.MetricValues, len(r.Metrics))
	for i, m := range r.Metrics {
		m.Values = slices.Clone(m.Values)
		for k, v := range m.Values {
			if math.IsNaN(v.Float) {
				m.Values[k].Float, m.Values[k].String = math.Inf(1), v.String+"\x00NaN"
			}
		}
		out.Metrics[i] = m
	}
	return &out
}
