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
	// reused decodes every input into the buffers of the inputs before
	// it, and must decode each as fresh does into new memory: both have
	// seen the same inputs (what a Decoder learns, the strings interned,
	// changes what copying costs).
	var reused, fresh Decoder
	f.Fuzz(func(t *testing.T, p []byte) {
		if len(p) < 24 {
			return
		}
		n := int(int32(binary.BigEndian.Uint32(p[20:])))
		ms, err := DecodeVsets(p, 24, n, types)
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
