package wire

import (
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/hostile"
)

// TestAliasedValueBlocks: value sets pointing many values at one value
// block, or at overlapping blocks, decode within a small multiple of the
// input's size (issue #12: a 4 MB reply cost 4.1 GB).
func TestAliasedValueBlocks(t *testing.T) {
	const pmid = 0x07400001
	types := map[pmapi.PMID]pmapi.Type{pmid: pmapi.TypeString}
	tests := []struct {
		name    string
		pdu     []byte
		wantErr string // "" for a successful decode
		values  int
	}{
		{"one value, one block", hostile.ResultPDU(1, func(start int) []byte {
			return hostile.SharedBlockVsets(pmid, 1, 100, start)
		}), "", 1},
		{"4096 values share one 16 KiB block", hostile.ResultPDU(1, func(start int) []byte {
			return hostile.SharedBlockVsets(pmid, 4096, 16<<10, start)
		}), "", 4096},
		{"2048 overlapping blocks", hostile.ResultPDU(1, func(start int) []byte {
			return hostile.OverlappingBlockVsets(pmid, 2048, start)
		}), "value blocks overlap", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			var values int
			got := hostile.Allocated(func() {
				var ms []pmclient.MetricValues
				ms, err = DecodeVsets(tc.pdu, 24, 1, types)
				for _, m := range ms {
					values += len(m.Values)
				}
			})
			if limit := uint64(32*len(tc.pdu) + hostile.Slack); got > limit {
				t.Errorf("decoding %d bytes allocated %d bytes, over %d", len(tc.pdu), got, limit)
			}
			if tc.wantErr == "" && (err != nil || values != tc.values) {
				t.Fatalf("got %d values, error %v; want %d values", values, err, tc.values)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
			}
		})
	}
}
