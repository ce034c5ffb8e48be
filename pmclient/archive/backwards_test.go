package archive

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// backwardsVolume is testdata/small3.0 (five records within one second)
// made into what pmlogextract wrote when merging two archives recorded at
// the same time: after the second record, a <mark> 2 ns later, then a
// record 1 ns after the second (earlier than the mark), then one at the
// mark's very time, then the last record as it was.
func backwardsVolume(t *testing.T) []byte { return backwardsVolumeEnding(t, true) }

// backwardsVolumeEnding is backwardsVolume, ending with the record
// earlier than the mark (a forward replay skips it, though it is the
// file's last) unless whole.
func backwardsVolumeEnding(t *testing.T, whole bool) []byte {
	t.Helper()
	vol, err := os.ReadFile("testdata/small3.0")
	if err != nil {
		t.Fatal(err)
	}
	var records [][]byte
	for off := int(binary.BigEndian.Uint32(vol)); off < len(vol); {
		n := int(binary.BigEndian.Uint32(vol[off:]))
		records = append(records, vol[off:off+n])
		off += n
	}
	if len(records) != 5 {
		t.Fatalf("testdata/small3.0 has %d records, want 5", len(records))
	}
	// A v3 record: its length, the seconds (8 bytes), the nanoseconds
	// (4), the metrics; all five records are of the same second.
	nsec := func(rec []byte) uint32 { return binary.BigEndian.Uint32(rec[12:]) }
	at := func(rec []byte, ns uint32) []byte {
		out := append([]byte(nil), rec...)
		copy(out[4:12], records[1][4:12])
		binary.BigEndian.PutUint32(out[12:], ns)
		return out
	}
	second := nsec(records[1])
	mark := make([]byte, 24)
	binary.BigEndian.PutUint32(mark, 24)
	binary.BigEndian.PutUint32(mark[20:], 24)
	mark = at(mark, second+2) // numpmid 0: a mark
	out := append([]byte(nil), vol[:binary.BigEndian.Uint32(vol)]...)
	sequence := [][]byte{records[0], records[1], mark, at(records[2], second+1), at(records[3], second+2), records[4]}
	if !whole {
		sequence = sequence[:4]
	}
	for _, rec := range sequence {
		out = append(out, rec...)
	}
	return out
}

// TestReplaySkipsRecordsBeforeTheLast: libpcp's forward replay returns no
// record earlier than the one it returned last, a <mark> included, and
// keeps one at the same time; ours replays such a volume record for
// record and value for value as libpcp does (pmFetchArchive), and Fetch
// (pmFetch) never returns the skipped record either.
func TestReplaySkipsRecordsBeforeTheLast(t *testing.T) {
	requireLibpcp(t)
	base := writeSmall3(t, backwardsVolume(t))
	a, err := Open(base)
	if err != nil {
		t.Fatal(err)
	}
	want, got := libpcpDump(t, base), ourDump(t, a)
	if got != want {
		t.Fatalf("ours:\n%s\nlibpcp:\n%s", got, want)
	}
	// Six records in the file: libpcp returns five, the mark among them.
	if records, marks := strings.Count(got, "T "), strings.Count(got, "MARK "); records != 4 || marks != 1 {
		t.Fatalf("%d records and %d marks replayed, want 4 and 1 (the record before the mark skipped):\n%s", records, marks, got)
	}

	ctx := context.Background()
	all, err := a.AllNames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pmids, _, err := a.LookupNames(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	var stamps []string
	for {
		res, err := a.Fetch(ctx, pmids)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		stamps = append(stamps, fmt.Sprintf("%d.%09d", res.Timestamp.Unix(), res.Timestamp.Nanosecond()))
	}
	var wantStamps []string
	for _, line := range strings.Split(got, "\n") {
		if ts, ok := strings.CutPrefix(line, "T "); ok {
			wantStamps = append(wantStamps, ts)
		}
	}
	if !slices.Equal(stamps, wantStamps) {
		t.Fatalf("Fetch returned the records at %v, want those libpcp replays: %v", stamps, wantStamps)
	}
}

// TestEndIsTheFileLastRecord: the archive's end is the time of the last
// record in the file, as pmGetArchiveEnd reports it, even when that
// record is earlier than a mark before it and a forward replay skips it.
func TestEndIsTheFileLastRecord(t *testing.T) {
	requireLibpcp(t)
	base := writeSmall3(t, backwardsVolumeEnding(t, false))
	const script = `import sys
from pcp import pmapi
import cpmapi as c
end = pmapi.pmContext(c.PM_CONTEXT_ARCHIVE, sys.argv[1]).pmGetHighResArchiveEnd()
print("%d.%09d" % (end.tv_sec, end.tv_nsec))`
	out, err := exec.Command("/usr/bin/python3", "-c", script, base).Output()
	if err != nil {
		t.Fatalf("libpcp's pmGetHighResArchiveEnd: %v", err)
	}
	a, err := Open(base)
	if err != nil {
		t.Fatal(err)
	}
	end, err := a.End(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprintf("%d.%09d", end.Unix(), end.Nanosecond()), strings.TrimSpace(string(out)); got != want {
		t.Fatalf("End is %s, libpcp's end %s", got, want)
	}
	if replay := ourDump(t, a); strings.Count(replay, "T ") != 2 {
		t.Fatalf("the forward replay should skip the last record:\n%s", replay)
	}
}

// writeSmall3 writes an archive of testdata/small3.meta and the data
// volume vol into a test directory, for libpcp to read too, and returns
// its base name.
func writeSmall3(t *testing.T, vol []byte) string {
	t.Helper()
	meta, err := os.ReadFile("testdata/small3.meta")
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "crafted")
	if err := os.WriteFile(base+".meta", meta, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+".0", vol, 0o644); err != nil {
		t.Fatal(err)
	}
	return base
}
