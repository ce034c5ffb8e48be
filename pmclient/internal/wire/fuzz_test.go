package wire

import (
	"encoding/binary"
	"os"
	"reflect"
	"testing"
	"unsafe"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/hostile"
)

const fuzzPMID = 0x07400001

// vsetSeeds are RESULT PDUs whose value sets alias their value blocks.
func vsetSeeds() [][]byte {
	result := func(vsets func(start int) []byte) []byte { return hostile.ResultPDU(1, vsets) }
	return [][]byte{
		result(func(s int) []byte { return hostile.SharedBlockVsets(fuzzPMID, 1, 16, s) }),
		result(func(s int) []byte { return hostile.SharedBlockVsets(fuzzPMID, 64, 256, s) }),
		result(func(s int) []byte { return hostile.OverlappingBlockVsets(fuzzPMID, 32, s) }),
	}
}

// TestWriteFuzzSeeds refreshes testdata/fuzz from the seeds when
// $PCP_DERIVE_LSP_WRITE_SEEDS is set.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_WRITE_SEEDS") == "" {
		t.Skip("set PCP_DERIVE_LSP_WRITE_SEEDS to write testdata/fuzz")
	}
	if err := hostile.WriteCorpus(".", "FuzzDecodeVsets", vsetSeeds()); err != nil {
		t.Fatal(err)
	}
}

// FuzzDecodeVsets: value sets decode or fail without panicking, and the
// distinct value blocks copied out never total more than the input, however
// the values share or overlap them.
func FuzzDecodeVsets(f *testing.F) {
	for _, s := range vsetSeeds() {
		f.Add(s)
	}
	types := map[pmapi.PMID]pmapi.Type{fuzzPMID: pmapi.TypeString, fuzzPMID + 1: pmapi.TypeAggregate, fuzzPMID + 2: pmapi.TypeU64}
	// dirty fills a decoder's buffers with a value of every kind the
	// types give, and an error, before it decodes the input.
	var sets []testVset
	for i, pmid := range []pmapi.PMID{fuzzPMID, fuzzPMID + 1, fuzzPMID + 2} {
		set := testVset{pmid: pmid, numval: 24}
		for j := range 24 {
			v := testValue{inst: int32(j), block: []byte("dirty\x00")}
			if i == 2 {
				v.block = u64Block(^uint64(j))
			}
			set.values = append(set.values, v)
		}
		sets = append(sets, set, testVset{pmid: pmid, numval: int32(pmclient.ErrIPC)})
	}
	dirty := encodeVsets(sets)
	f.Fuzz(func(t *testing.T, p []byte) {
		if len(p) < 24 {
			return
		}
		n := int(int32(binary.BigEndian.Uint32(p[20:])))
		ms, err := DecodeVsets(p, 24, n, types)
		// Into buffers a record of every kind of value used before, and
		// into new memory after the same record: the same values.
		var reused, fresh Decoder
		if _, err := reused.Decode(dirty, 8, len(sets), types); err != nil {
			t.Fatal(err)
		}
		if _, err := fresh.DecodeFresh(dirty, 8, len(sets), types); err != nil {
			t.Fatal(err)
		}
		inNew, errNew := fresh.DecodeFresh(p, 24, n, types)
		inReused, errReused := reused.Decode(p, 24, n, types)
		if (errNew == nil) != (errReused == nil) {
			t.Fatalf("into new memory: error %v; into reused buffers: error %v", errNew, errReused)
		}
		if errNew == nil && !reflect.DeepEqual(inNew, inReused) {
			t.Fatalf("into reused buffers:\n%+v\ninto new memory:\n%+v", inReused, inNew)
		}
		if err != nil {
			return
		}
		if copied := distinctPayloads(ms); copied > len(p) {
			t.Fatalf("%d bytes of value blocks copied out of %d bytes", copied, len(p))
		}
	})
}

// distinctPayloads totals the bytes of the distinct strings and blobs the
// values hold (shared ones once).
func distinctPayloads(ms []pmclient.MetricValues) int {
	seen := map[uintptr]bool{}
	total := 0
	for _, m := range ms {
		for _, v := range m.Values {
			for _, b := range [][]byte{unsafe.Slice(unsafe.StringData(v.String), len(v.String)), v.Blob} {
				if len(b) == 0 {
					continue
				}
				if p := uintptr(unsafe.Pointer(&b[0])); !seen[p] {
					seen[p] = true
					total += len(b)
				}
			}
		}
	}
	return total
}
