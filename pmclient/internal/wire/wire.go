// Package wire decodes the value sets shared by pmcd's RESULT PDUs and
// archive data records: per metric a value count (or error code), a value
// format, and in-situ values or value blocks at word offsets.
package wire

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// DecodeVsets decodes n value sets starting at p[off:]. Value block
// offsets count 32-bit words from the start of p.
//
// Nothing stops a sender from pointing many values at one value block, or
// at overlapping blocks. Decoding each reference into its own copy would
// let a few megabytes of input cost gigabytes, so a block referenced again
// shares the value decoded the first time, and the payload bytes copied
// out of distinct blocks may total at most len(p): what well-formed input,
// whose blocks are disjoint, never exceeds.
func DecodeVsets(p []byte, off, n int, types map[pmapi.PMID]pmapi.Type) ([]pmclient.MetricValues, error) {
	d := blockDecoder{p: p, budget: int64(len(p))}
	u32 := func() (uint32, error) {
		if off+4 > len(p) {
			return 0, fmt.Errorf("value set truncated at byte %d of %d", off, len(p))
		}
		v := binary.BigEndian.Uint32(p[off:])
		off += 4
		return v, nil
	}
	if n < 0 || n*8 > len(p) {
		return nil, fmt.Errorf("%d value sets do not fit %d bytes", n, len(p))
	}
	out := make([]pmclient.MetricValues, 0, n)
	for i := 0; i < n; i++ {
		pmid, err := u32()
		if err != nil {
			return nil, err
		}
		nv, err := u32()
		if err != nil {
			return nil, err
		}
		mv := pmclient.MetricValues{PMID: pmapi.PMID(pmid)}
		numval := int32(nv)
		if numval < 0 {
			mv.Err = pmclient.Error(numval)
			out = append(out, mv)
			continue
		}
		if numval > 0 {
			if int64(numval)*8 > int64(len(p)-off) {
				return nil, fmt.Errorf("%d values do not fit %d bytes", numval, len(p))
			}
			valfmt, err := u32()
			if err != nil {
				return nil, err
			}
			mv.Values = make([]pmapi.Value, 0, numval)
			for j := int32(0); j < numval; j++ {
				inst, err := u32()
				if err != nil {
					return nil, err
				}
				raw, err := u32()
				if err != nil {
					return nil, err
				}
				v, err := d.value(valfmt, raw, types[mv.PMID])
				if err != nil {
					return nil, fmt.Errorf("metric %s: %w", mv.PMID, err)
				}
				v.Inst = int32(inst)
				mv.Values = append(mv.Values, v)
			}
		}
		out = append(out, mv)
	}
	return out, nil
}

// blockKey names a decoded value block: where it is and the type it was
// decoded as (the same bytes decode differently for different types).
type blockKey struct {
	off uint32
	typ pmapi.Type
}

// blockDecoder decodes the values of one PDU or record, sharing the value
// decoded from a block among every reference to it and charging the bytes
// copied out of blocks against budget.
type blockDecoder struct {
	p      []byte
	budget int64
	seen   map[blockKey]pmapi.Value
}

// value decodes one value: in situ, or a value block at a word offset
// from the start of p.
func (d *blockDecoder) value(valfmt, raw uint32, t pmapi.Type) (pmapi.Value, error) {
	if valfmt == 0 {
		return decodeValue(d.p, valfmt, raw, t)
	}
	key := blockKey{raw, t}
	if v, ok := d.seen[key]; ok {
		return v, nil
	}
	v, err := decodeValue(d.p, valfmt, raw, t)
	if err != nil {
		return v, err
	}
	if copied := int64(len(v.String) + len(v.Blob)); copied > 0 {
		d.budget -= copied
		if d.budget < 0 {
			return v, fmt.Errorf("value blocks overlap: their payloads exceed the %d bytes they came in", len(d.p))
		}
	}
	if d.seen == nil {
		d.seen = map[blockKey]pmapi.Value{}
	}
	d.seen[key] = v
	return v, nil
}

// decodeValue decodes one value: in situ, or a value block at a word
// offset from the start of p.
func decodeValue(p []byte, valfmt, raw uint32, t pmapi.Type) (pmapi.Value, error) {
	var v pmapi.Value
	if valfmt == 0 {
		switch t {
		case pmapi.Type32:
			v.Int = int64(int32(raw))
		case pmapi.TypeFloat:
			v.Float = float64(math.Float32frombits(raw))
		default:
			v.Uint, v.Int = uint64(raw), int64(raw)
		}
		return v, nil
	}
	off := int64(raw) * 4
	if off < 8 || off+4 > int64(len(p)) {
		return v, fmt.Errorf("value block offset %d outside %d bytes", off, len(p))
	}
	hdr := binary.BigEndian.Uint32(p[off:])
	vlen := int64(hdr & 0xffffff)
	if vlen < 4 || off+vlen > int64(len(p)) {
		return v, fmt.Errorf("value block of %d bytes at %d overruns %d bytes", vlen, off, len(p))
	}
	payload := p[off+4 : off+vlen]
	need := func(n int) error {
		if len(payload) < n {
			return fmt.Errorf("value block of %d bytes for a %s value", len(payload), t)
		}
		return nil
	}
	switch t {
	case pmapi.Type64:
		if err := need(8); err != nil {
			return v, err
		}
		v.Int = int64(binary.BigEndian.Uint64(payload))
	case pmapi.TypeU64:
		if err := need(8); err != nil {
			return v, err
		}
		v.Uint = binary.BigEndian.Uint64(payload)
	case pmapi.TypeFloat:
		if err := need(4); err != nil {
			return v, err
		}
		v.Float = float64(math.Float32frombits(binary.BigEndian.Uint32(payload)))
	case pmapi.TypeDouble:
		if err := need(8); err != nil {
			return v, err
		}
		v.Float = math.Float64frombits(binary.BigEndian.Uint64(payload))
	case pmapi.TypeString:
		s := payload
		if n := len(s); n > 0 && s[n-1] == 0 {
			s = s[:n-1]
		}
		v.String = string(s)
	default:
		v.Blob = append([]byte(nil), payload...)
	}
	return v, nil
}
