package pmcd

import (
	"bufio"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/hostile"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/wire"
)

// transcriptPDUs extracts the PDUs pmcd sent in the annotated captures of
// real sessions under testdata/.
func transcriptPDUs(t testing.TB) [][]byte {
	paths, _ := filepath.Glob("testdata/*.transcript.txt")
	var out [][]byte
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		var cur []byte
		recv := false
		flush := func() {
			if recv && len(cur) >= headerLen {
				out = append(out, cur)
			}
			cur, recv = nil, false
		}
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "<<< recv"):
				flush()
				recv = true
			case strings.HasPrefix(line, ">>>") || strings.HasPrefix(line, "==="):
				flush()
			case recv && len(line) > 8 && line[6] == ':':
				hexPart := line[8:]
				if i := strings.Index(hexPart, "|"); i >= 0 {
					hexPart = hexPart[:i]
				}
				b, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(hexPart), " ", ""))
				if err == nil {
					cur = append(cur, b...)
				}
			}
		}
		flush()
		f.Close()
	}
	return out
}

func TestTranscriptsDecode(t *testing.T) {
	pdus := transcriptPDUs(t)
	if len(pdus) < 20 {
		t.Fatalf("only %d PDUs in the transcripts", len(pdus))
	}
	kinds := map[uint32]int{}
	for _, p := range pdus {
		kinds[pduType(p)]++
		if err := decodeAny(p); err != nil {
			t.Errorf("PDU type %#x of %d bytes: %v", pduType(p), len(p), err)
		}
	}
	t.Logf("%d PDUs decoded: %v", len(pdus), kinds)
}

// decodeAny runs the decoder for a PDU's type.
func decodeAny(p []byte) error {
	var err error
	switch pduType(p) {
	case pduError:
		_, err = decodeError(p)
	case pduPMNSNames:
		_, _, err = decodeNames(p)
	case pduPMNSIDs:
		r := newReader(p)
		r.u32()
		_, err = decodeIDs(p, int(int32(r.u32())))
	case pduDesc:
		_, err = decodeDesc(p)
	case pduDescs:
		r := newReader(p)
		_, err = decodeDescs(p, int(int32(r.u32())))
	case pduInstance:
		_, err = decodeInstances(p)
	case pduText:
		_, err = decodeText(p)
	case pduResult, pduHighresResult:
		_, err = decodeResult(p, map[pmapi.PMID]pmapi.Type{}, new(wire.Decoder))
	case pduLabel:
		r := newReader(p)
		ident, typ := r.u32(), r.u32()
		_, err = decodeLabels(p, ident, pmclient.LabelType(typ))
	}
	return err
}

// hostilePDUs are replies whose offsets alias one block of bytes: a
// RESULT with values sharing a value block or overlapping blocks, a
// LABEL whose sets share one JSON text.
func hostilePDUs() [][]byte {
	return [][]byte{
		hostile.ResultPDU(1, func(s int) []byte { return hostile.SharedBlockVsets(0x07400006, 64, 256, s) }),
		hostile.ResultPDU(1, func(s int) []byte { return hostile.OverlappingBlockVsets(0x07400006, 32, s) }),
		hostile.LabelPDU(0xffffffff, uint32(pmclient.LabelContext), 32, 1024),
	}
}

// TestWriteFuzzSeeds refreshes testdata/fuzz from the seeds when
// $PCP_DERIVE_LSP_WRITE_SEEDS is set.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_WRITE_SEEDS") == "" {
		t.Skip("set PCP_DERIVE_LSP_WRITE_SEEDS to write testdata/fuzz")
	}
	if err := hostile.WriteCorpus(".", "FuzzDecodePDU", hostilePDUs()); err != nil {
		t.Fatal(err)
	}
}

// FuzzDecodePDU: no input makes a decoder panic or allocate without bound.
func FuzzDecodePDU(f *testing.F) {
	for _, p := range append(transcriptPDUs(f), hostilePDUs()...) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		if len(p) < headerLen {
			return
		}
		decodeAny(p)
		decodeResult(p, map[pmapi.PMID]pmapi.Type{pmapi.PMID(0x07400006): pmapi.TypeDouble}, new(wire.Decoder))
		decodeNames(p)
		decodeInstances(p)
		decodeLabels(p, 0xffffffff, pmclient.LabelContext)
	})
}
