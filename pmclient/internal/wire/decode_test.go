package wire

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// testValue is one value of a testVset: in situ (raw) or, when block is
// not nil, a value block holding block's bytes.
type testValue struct {
	inst  int32
	raw   uint32
	block []byte
}

// testVset is one metric's value set; numval < 0 is an error code.
type testVset struct {
	pmid   pmapi.PMID
	numval int32
	values []testValue
}

// encodeVsets lays the value sets out from byte 8 (after a stand-in for a
// PDU header), their value blocks after them, as pmcd and pmlogger do.
func encodeVsets(sets []testVset) []byte {
	size := 8
	for _, s := range sets {
		size += 8
		if s.numval > 0 {
			size += 4 + 8*len(s.values)
		}
	}
	p := make([]byte, size)
	off := 8
	for _, s := range sets {
		binary.BigEndian.PutUint32(p[off:], uint32(s.pmid))
		binary.BigEndian.PutUint32(p[off+4:], uint32(s.numval))
		off += 8
		if s.numval <= 0 {
			continue
		}
		valfmt := uint32(0) // PM_VAL_INSITU
		for _, v := range s.values {
			if v.block != nil {
				valfmt = 2 // PM_VAL_SPTR
			}
		}
		binary.BigEndian.PutUint32(p[off:], valfmt)
		off += 4
		for _, v := range s.values {
			binary.BigEndian.PutUint32(p[off:], uint32(v.inst))
			raw := v.raw
			if v.block != nil {
				for len(p)%4 != 0 {
					p = append(p, 0)
				}
				raw = uint32(len(p) / 4)
				p = binary.BigEndian.AppendUint32(p, uint32(4+len(v.block)))
				p = append(p, v.block...)
			}
			binary.BigEndian.PutUint32(p[off+4:], raw)
			off += 8
		}
	}
	return p
}

func u64Block(x uint64) []byte { return binary.BigEndian.AppendUint64(nil, x) }

// TestDecodeFieldByField: each kind of value decodes into exactly the
// fields it has, fresh and into reused buffers, and a reused buffer
// keeps nothing of the value that was at its place before (the decoder
// writes fields one by one into cleared memory, issue #18).
func TestDecodeFieldByField(t *testing.T) {
	const (
		p32 pmapi.PMID = 0x0f000001 + iota
		pU32
		pFloat
		p64
		pU64
		pDouble
		pString
		pMissing
	)
	types := map[pmapi.PMID]pmapi.Type{
		p32: pmapi.Type32, pU32: pmapi.TypeU32, pFloat: pmapi.TypeFloat,
		p64: pmapi.Type64, pU64: pmapi.TypeU64, pDouble: pmapi.TypeDouble,
		pString: pmapi.TypeString, pMissing: pmapi.TypeU32,
	}
	// Two records of one layout with different values, then one that puts
	// other kinds of values where the first had strings and doubles.
	first := []testVset{
		{p32, 2, []testValue{{inst: 1, raw: uint32(0xfffffffe)}, {inst: 2, raw: 7}}},
		{pU32, 1, []testValue{{inst: pmapi.InNull, raw: 0xfffffffe}}},
		{pFloat, 1, []testValue{{inst: pmapi.InNull, raw: math.Float32bits(2.5)}}},
		{p64, 1, []testValue{{inst: 3, block: u64Block(uint64(1<<63 | 5))}}},
		{pU64, 1, []testValue{{inst: 4, block: u64Block(1 << 40)}}},
		{pDouble, 1, []testValue{{inst: 5, block: u64Block(math.Float64bits(-0.25))}}},
		{pString, 2, []testValue{{inst: 6, block: []byte("eth0\x00")}, {inst: 7, block: []byte("lo\x00")}}},
		{pMissing, int32(pmclient.ErrTimeout), nil},
	}
	firstWant := []pmclient.MetricValues{
		{PMID: p32, Values: []pmapi.Value{{Inst: 1, Int: -2}, {Inst: 2, Int: 7}}},
		{PMID: pU32, Values: []pmapi.Value{{Inst: pmapi.InNull, Uint: 0xfffffffe, Int: 0xfffffffe}}},
		{PMID: pFloat, Values: []pmapi.Value{{Inst: pmapi.InNull, Float: 2.5}}},
		{PMID: p64, Values: []pmapi.Value{{Inst: 3, Int: -1<<63 | 5}}},
		{PMID: pU64, Values: []pmapi.Value{{Inst: 4, Uint: 1 << 40}}},
		{PMID: pDouble, Values: []pmapi.Value{{Inst: 5, Float: -0.25}}},
		{PMID: pString, Values: []pmapi.Value{{Inst: 6, String: "eth0"}, {Inst: 7, String: "lo"}}},
		{PMID: pMissing, Err: pmclient.ErrTimeout},
	}
	second := []testVset{
		{pString, 0, nil},
		{pMissing, 3, []testValue{{inst: 1, raw: 1}, {inst: 2, raw: 2}, {inst: 3, raw: 3}}},
		{pDouble, int32(pmclient.ErrIPC), nil},
		{p32, 1, []testValue{{inst: 9, raw: 9}}},
	}
	secondWant := []pmclient.MetricValues{
		{PMID: pString},
		{PMID: pMissing, Values: []pmapi.Value{{Inst: 1, Uint: 1, Int: 1}, {Inst: 2, Uint: 2, Int: 2}, {Inst: 3, Uint: 3, Int: 3}}},
		{PMID: pDouble, Err: pmclient.ErrIPC},
		{PMID: p32, Values: []pmapi.Value{{Inst: 9, Int: 9}}},
	}
	var d Decoder
	for i, tc := range []struct {
		sets []testVset
		want []pmclient.MetricValues
	}{{first, firstWant}, {second, secondWant}, {first, firstWant}, {second, secondWant}} {
		p := encodeVsets(tc.sets)
		fresh, err := DecodeVsets(p, 8, len(tc.sets), types)
		if err != nil {
			t.Fatalf("record %d, fresh: %v", i, err)
		}
		if !reflect.DeepEqual(fresh, tc.want) {
			t.Errorf("record %d, fresh:\n got %+v\nwant %+v", i, fresh, tc.want)
		}
		reused, err := d.Decode(p, 8, len(tc.sets), types)
		if err != nil {
			t.Fatalf("record %d, reused: %v", i, err)
		}
		if !reflect.DeepEqual(reused, tc.want) {
			t.Errorf("record %d, reused:\n got %+v\nwant %+v", i, reused, tc.want)
		}
	}
}
