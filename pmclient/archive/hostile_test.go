package archive

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/hostile"
)

// openMem opens an archive held in memory: files maps names ("a.meta",
// "a.0", "a.meta.xz") to contents. Everything after the directory scan
// is Open's own code.
func openMem(opts Options, files map[string][]byte) (*Archive, error) {
	if opts.MaxMetadataBytes <= 0 {
		opts.MaxMetadataBytes = DefaultMaxMetadataBytes
	}
	a := &Archive{base: "a", opts: opts, open: func(path string) (io.ReadCloser, int64, error) {
		b, ok := files[path]
		if !ok {
			return nil, 0, fs.ErrNotExist
		}
		return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
	}}
	meta := ""
	for name := range files {
		base := strings.TrimSuffix(name, ".xz")
		if base == "a.meta" {
			meta = name
		}
		if n, err := strconv.Atoi(strings.TrimPrefix(base, "a.")); err == nil {
			a.volumes = append(a.volumes, volumeFile{n, name})
		}
	}
	sort.Slice(a.volumes, func(i, j int) bool { return a.volumes[i].n < a.volumes[j].n })
	return a, a.loadMeta(meta)
}

// replayAll reads every data record, returning how many values they held.
func replayAll(a *Archive) (int, error) {
	rd := a.Records()
	defer rd.Close()
	values := 0
	for {
		rec, err := rd.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return values, nil
		}
		if err != nil {
			return values, err
		}
		for _, m := range rec.Metrics {
			values += len(m.Values)
		}
	}
}

const hostilePMID = 0x07400001

// hostileMeta is a .meta with one STRING metric and extra records.
func hostileMeta(records ...[]byte) []byte {
	b := append(hostile.LabelV3(-1), hostile.DescV3(hostilePMID, 6, "sample.string.hostile")...)
	for _, r := range records {
		b = append(b, r...)
	}
	return b
}

// TestAliasedArchiveRecords: data records pointing many values at one
// value block, and instance-domain records pointing many names at one
// string, cost a small multiple of their size, or are refused (issue #12:
// a 1 MB data record cost 1 GB, a 2 MB .meta 2 GB).
func TestAliasedArchiveRecords(t *testing.T) {
	volume := func(rec []byte) []byte { return append(hostile.LabelV3(0), rec...) }
	tests := []struct {
		name    string
		meta    []byte
		vol     []byte
		values  int    // expected when wantErr is ""
		wantErr string // in Open's or replay's error
	}{
		{"data record: 8192 values share one 32 KiB block", hostileMeta(), volume(hostile.DataRecordV3(1, func(start int) []byte {
			return hostile.SharedBlockVsets(hostilePMID, 8192, 32<<10, start)
		})), 8192, ""},
		{"data record: 2048 overlapping blocks", hostileMeta(), volume(hostile.DataRecordV3(1, func(start int) []byte {
			return hostile.OverlappingBlockVsets(hostilePMID, 2048, start)
		})), 0, "value blocks overlap"},
		{"indom: 16384 names at one unterminated 64 KiB string", hostileMeta(hostile.InDomSharedName(0x07400002, 16384, 64<<10, false)),
			volume(nil), 0, "no NUL"},
		{"indom: 16384 names at one terminated 64 KiB string", hostileMeta(hostile.InDomSharedName(0x07400002, 16384, 64<<10, true)),
			volume(nil), 0, ""},
		{"indom: 8192 names are the suffixes of one string", hostileMeta(hostile.InDomSuffixNames(0x07400002, 8192)),
			volume(nil), 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			var values int
			got := hostile.Allocated(func() {
				var a *Archive
				if a, err = openMem(Options{}, map[string][]byte{"a.meta": tc.meta, "a.0": tc.vol}); err == nil {
					for indom := range a.meta.indoms {
						a.InstancesAt(indom, a.label.Start)
					}
					values, err = replayAll(a)
				}
			})
			size := len(tc.meta) + len(tc.vol)
			if limit := uint64(32*size + hostile.Slack); got > limit {
				t.Errorf("reading %d bytes allocated %d bytes, over %d", size, got, limit)
			}
			if tc.wantErr == "" && (err != nil || values != tc.values) {
				t.Fatalf("%d values, error %v; want %d values", values, err, tc.values)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
			}
		})
	}
}

// TestEmptyDataVolume: a volume with no label is an error naming the
// file, not an archive without records (issue #12).
func TestEmptyDataVolume(t *testing.T) {
	meta, err := os.ReadFile("testdata/small3.meta")
	if err != nil {
		t.Fatal(err)
	}
	vol, err := os.ReadFile("testdata/small3.0")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		files   map[string][]byte
		bad     string // the file the error must name
		wantErr string
	}{
		{"0-byte first volume", map[string][]byte{"a.0": nil}, "a.0", "empty data volume"},
		{"0-byte second volume", map[string][]byte{"a.0": vol, "a.1": nil}, "a.1", "empty data volume"},
		{"truncated label", map[string][]byte{"a.0": vol[:100]}, "a.0", "truncated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			os.WriteFile(filepath.Join(d, "a.meta"), meta, 0o644)
			for name, b := range tc.files {
				os.WriteFile(filepath.Join(d, name), b, 0o644)
			}
			a, err := Open(filepath.Join(d, "a"))
			if err == nil {
				_, err = replayAll(a)
			}
			if err == nil || !strings.Contains(err.Error(), filepath.Join(d, tc.bad)) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one naming %s and saying %q", err, tc.bad, tc.wantErr)
			}
		})
	}
}

// helpTextMeta is a .meta of n one-line help texts of size bytes each,
// for n different metrics: about n*size bytes that all stay in memory.
func helpTextMeta(n, size int) []byte {
	var recs [][]byte
	for i := 0; i < n; i++ {
		recs = append(recs, hostile.HelpText(hostilePMID+uint32(i), size))
	}
	return hostileMeta(recs...)
}

// TestCompressedMetadata: an .xz file is checked as it is decompressed:
// metadata that expands past the cap, or a block asking for a dictionary
// past its cap, is an error naming the file and the cap, costing memory
// bounded by the cap, not the expansion (issue #12: a 394 KB .meta.xz
// expanding to 2 GB of help text cost 3 GB).
func TestCompressedMetadata(t *testing.T) {
	bomb := helpTextMeta(1024, 8<<10) // 8 MiB of help text
	small := helpTextMeta(4, 100)
	padding := []byte{0, 0, 0, 0}
	tests := []struct {
		name     string
		files    map[string][]byte
		maxMeta  int64
		maxAlloc uint64
		wantErr  string // "" for success
	}{
		{".meta.xz of 8 MiB of help text, 1 MiB cap", map[string][]byte{"a.meta.xz": hostile.XZ(bomb), "a.0": hostile.LabelV3(0)},
			1 << 20, 12 << 20, "a.meta.xz: decompresses to more than 1048576 bytes, the cap"},
		{".meta of 8 MiB of help text, 1 MiB cap", map[string][]byte{"a.meta": bomb, "a.0": hostile.LabelV3(0)},
			1 << 20, 6 << 20, "a.meta: metadata exceeds 1048576 bytes, the cap"},
		{"4 GiB dictionary", map[string][]byte{"a.meta.xz": hostile.XZHugeDictionary(40), "a.0": hostile.LabelV3(0)},
			0, 1 << 20, "needs a 4095 MiB dictionary, over the 64 MiB cap"},
		{"128 MiB dictionary in a data volume", map[string][]byte{"a.meta": small, "a.0.xz": hostile.XZHugeDictionary(30)},
			0, 1 << 20, "a.0.xz: xz block at compressed byte 12 needs a 128 MiB dictionary"},
		{"two streams and padding, under the cap", map[string][]byte{
			"a.meta.xz": append(append(hostile.XZ(small[:len(small)/2]), padding...), hostile.XZ(small[len(small)/2:])...),
			"a.0.xz":    hostile.XZ(hostile.LabelV3(0))}, 0, 40 << 20, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			got := hostile.Allocated(func() {
				var a *Archive
				if a, err = openMem(Options{MaxMetadataBytes: tc.maxMeta}, tc.files); err == nil {
					_, err = replayAll(a)
				}
			})
			if got > tc.maxAlloc {
				t.Errorf("allocated %d bytes, over %d", got, tc.maxAlloc)
			}
			if tc.wantErr == "" && err != nil {
				t.Fatalf("error %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrLimit)) {
				t.Fatalf("error %v, want a limit error saying %q", err, tc.wantErr)
			}
		})
	}
}
