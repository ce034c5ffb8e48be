package pmcd

import (
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/hostile"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/wire"
)

// TestAliasedReplies: replies whose offsets point many values or label
// sets at one block of bytes decode within a small multiple of the reply's
// size (issue #12: a 4 MB RESULT cost 4.1 GB of memory).
func TestAliasedReplies(t *testing.T) {
	const pmid = 0x07400001
	types := map[pmapi.PMID]pmapi.Type{pmid: pmapi.TypeString}
	tests := []struct {
		name   string
		pdu    []byte
		decode func(p []byte) (int, error) // how many values or labels
		want   int
	}{
		{"RESULT: 8192 values share one 32 KiB block", hostile.ResultPDU(1, func(start int) []byte {
			return hostile.SharedBlockVsets(pmid, 8192, 32<<10, start)
		}), func(p []byte) (int, error) {
			res, err := decodeResult(p, types, new(wire.Decoder))
			if err != nil {
				return 0, err
			}
			return len(res.Metrics[0].Values), nil
		}, 8192},
		{"LABEL: 4096 sets share one 64 KiB JSON text", hostile.LabelPDU(pmid, uint32(pmclient.LabelItem), 4096, 64<<10),
			func(p []byte) (int, error) {
				sets, err := decodeLabels(p, pmid, pmclient.LabelItem)
				return len(sets), err
			}, 4096},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var n int
			var err error
			got := hostile.Allocated(func() { n, err = tc.decode(tc.pdu) })
			if err != nil || n != tc.want {
				t.Fatalf("decoded %d, error %v; want %d", n, err, tc.want)
			}
			if limit := uint64(32*len(tc.pdu) + hostile.Slack); got > limit {
				t.Errorf("decoding %d bytes allocated %d bytes, over %d", len(tc.pdu), got, limit)
			}
		})
	}
}
