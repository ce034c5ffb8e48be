// Package wire decodes the value sets shared by pmcd's RESULT PDUs and
// archive data records: per metric a value count (or error code), a value
// format, and in-situ values or value blocks at word offsets.
package wire

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// DecodeVsets decodes n value sets starting at p[off:] into fresh memory
// the caller may keep. Value block offsets count 32-bit words from the
// start of p. See Decoder for the bounds on what decoding may cost.
func DecodeVsets(p []byte, off, n int, types map[pmapi.PMID]pmapi.Type) ([]pmclient.MetricValues, error) {
	var d Decoder
	return d.decode(p, off, n, types, false)
}

// Decoder decodes value sets, keeping what one decode learns for the
// next: the value type of the metric at each position (records of one
// logger, and fetches of one client, repeat their layout), the strings
// seen (interned, within a bound), the error codes met (boxed once), and
// the buffers themselves when the caller asks for reuse. The zero Decoder
// is ready; it is not safe for concurrent use.
//
// Nothing stops a sender from pointing many values at one value block, or
// at overlapping blocks. Decoding each reference into its own copy would
// let a few megabytes of input cost gigabytes, so a block referenced again
// shares the value decoded the first time, and the payload bytes copied
// out of distinct blocks may total at most len(p): what well-formed input,
// whose blocks are disjoint, never exceeds. Every other allocation is
// proportional to the value sets' own bytes (a value costs one pmapi.Value
// for its 8 bytes of input).
type Decoder struct {
	metrics []pmclient.MetricValues // reused by Decode
	values  []pmapi.Value           // reused by Decode: every metric's values, one after another

	// The value types of the metrics seen lately, in a small table
	// indexed by a hash of the PMID, so that most metrics cost no map
	// lookup.
	typeCache []cachedType // a power of two long
	typeShift uint8        // 32 - log2(len(typeCache))

	// Value blocks decoded in this call that hold copied bytes (strings,
	// blobs): blocks in increasing order of offset, disjoint, as
	// well-formed input lays them out (searched by offset), and the rest.
	blocks   []decodedBlock
	blockEnd int64 // where the last block in blocks ends
	others   map[blockKey]pmapi.Value
	budget   int64

	strings interner
	errs    []boxedError // see errorOf
}

// decodedBlock is a value block decoded already in this call.
type decodedBlock struct {
	key blockKey
	v   pmapi.Value
}

// blockKey names a decoded value block: where it is and the type it was
// decoded as (the same bytes decode differently for different types).
type blockKey struct {
	off uint32
	typ pmapi.Type
}

// Decode decodes n value sets starting at p[off:] into buffers the Decoder
// reuses: what it returns, every Values slice in it included, is valid
// only until the next Decode. Strings are never overwritten.
func (d *Decoder) Decode(p []byte, off, n int, types map[pmapi.PMID]pmapi.Type) ([]pmclient.MetricValues, error) {
	return d.decode(p, off, n, types, true)
}

// DecodeFresh is Decode into fresh memory, which the caller may keep; only
// the Decoder's knowledge of layouts and strings is reused.
func (d *Decoder) DecodeFresh(p []byte, off, n int, types map[pmapi.PMID]pmapi.Type) ([]pmclient.MetricValues, error) {
	return d.decode(p, off, n, types, false)
}

func (d *Decoder) decode(p []byte, off, n int, types map[pmapi.PMID]pmapi.Type, reuse bool) ([]pmclient.MetricValues, error) {
	if n < 0 || n*8 > len(p) {
		return nil, fmt.Errorf("%d value sets do not fit %d bytes", n, len(p))
	}
	total, err := countValues(p, off, n)
	if err != nil {
		return nil, err
	}
	var metrics []pmclient.MetricValues
	var values []pmapi.Value
	if reuse {
		// Cleared, so that the loop below, like a fresh decode, writes
		// only the fields a value has.
		metrics = grow(d.metrics, n)
		values = grow(d.values, total)
		clear(metrics)
		clear(values)
		d.metrics, d.values = metrics, values
	} else {
		metrics = make([]pmclient.MetricValues, n)
		if total > 0 {
			values = make([]pmapi.Value, total)
		}
	}
	d.blocks, d.blockEnd, d.budget = d.blocks[:0], 0, int64(len(p))
	clear(d.others)
	if len(d.typeCache) == 0 || len(d.typeCache) < min(2*len(types), maxTypeCache) {
		d.sizeTypeCache(len(types))
	}
	// The loop writes each field a value has into zeroed memory, rather
	// than whole 72-byte values: copying values out of calls and through
	// write barriers would be half the cost of a fetch's decode.
	next := 0
	for i := range metrics {
		// countValues checked every offset read here.
		pmid := pmapi.PMID(binary.BigEndian.Uint32(p[off:]))
		numval := int32(binary.BigEndian.Uint32(p[off+4:]))
		off += 8
		mv := &metrics[i]
		mv.PMID = pmid
		if numval < 0 {
			mv.Err = d.errorOf(numval)
			continue
		}
		if numval == 0 {
			continue
		}
		t := d.typeOf(pmid, types)
		valfmt := binary.BigEndian.Uint32(p[off:])
		off += 4
		vals := values[next : next+int(numval) : next+int(numval)]
		next += int(numval)
		for j := range vals {
			v := &vals[j]
			v.Inst = int32(binary.BigEndian.Uint32(p[off:]))
			raw := binary.BigEndian.Uint32(p[off+4:])
			off += 8
			if valfmt == 0 {
				// In situ, the common case: no call.
				setInSitu(v, raw, t)
				continue
			}
			if x, ok := block64(p, raw, t); ok {
				// A 64-bit counter or a double, the next most common.
				set64(v, x, t)
				continue
			}
			dv, err := d.value(p, valfmt, raw, t)
			if err != nil {
				return nil, fmt.Errorf("metric %s: %w", pmid, err)
			}
			dv.Inst = v.Inst
			*v = dv
		}
		mv.Values = vals
	}
	return metrics, nil
}

// maxTypeCache bounds a Decoder's type cache (slots of 12 bytes).
const maxTypeCache = 1 << 13

// cachedType is one slot of the type cache; ok tells a filled slot.
type cachedType struct {
	pmid pmapi.PMID
	typ  pmapi.Type
	ok   bool
}

// sizeTypeCache makes the type cache twice as big as the type map (a
// power of two, at least 64 slots, at most maxTypeCache), empty.
func (d *Decoder) sizeTypeCache(types int) {
	shift := uint8(32 - 6)
	for n := 64; n < min(2*types, maxTypeCache); n *= 2 {
		shift--
	}
	d.typeCache, d.typeShift = make([]cachedType, 1<<(32-shift)), shift
}

// typeOf is types[pmid], through the cache.
func (d *Decoder) typeOf(pmid pmapi.PMID, types map[pmapi.PMID]pmapi.Type) pmapi.Type {
	slot := &d.typeCache[uint32(pmid)*0x9e3779b1>>d.typeShift]
	if slot.ok && slot.pmid == pmid {
		return slot.typ
	}
	t, ok := types[pmid]
	if ok {
		*slot = cachedType{pmid, t, true}
	}
	return t
}

// ForgetTypes empties the type cache: for a caller whose type map changed
// a metric's type (a PMDA restarted with new metadata).
func (d *Decoder) ForgetTypes() { d.typeCache = nil }

// countValues walks the value sets' headers, checking that each fits the
// bytes left, and returns how many values they hold in all.
func countValues(p []byte, off, n int) (int, error) {
	total := 0
	for i := 0; i < n; i++ {
		if off+8 > len(p) {
			return 0, fmt.Errorf("value set truncated at byte %d of %d", off, len(p))
		}
		numval := int32(binary.BigEndian.Uint32(p[off+4:]))
		off += 8
		if numval <= 0 {
			continue
		}
		if off+4 > len(p) {
			return 0, fmt.Errorf("value set truncated at byte %d of %d", off, len(p))
		}
		off += 4
		if int64(numval)*8 > int64(len(p)-off) {
			return 0, fmt.Errorf("%d values do not fit %d bytes", numval, len(p))
		}
		off += int(numval) * 8
		total += int(numval)
	}
	return total, nil
}

// grow returns s resized to n elements, reallocated only when too small.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// value decodes one value: in situ, or a value block at a word offset
// from the start of p. Numeric blocks are decoded at every reference
// (they copy nothing); a string or blob block is decoded once per call
// and its value shared by every reference to it.
func (d *Decoder) value(p []byte, valfmt, raw uint32, t pmapi.Type) (pmapi.Value, error) {
	if t.Arithmetic() {
		// A 64-bit or floating-point block: nothing to copy or share.
		if x, ok := block64(p, raw, t); ok {
			var v pmapi.Value
			set64(&v, x, t)
			return v, nil
		}
		// A 32-bit value in a block is copied out as its bytes, at every
		// reference: charged like any copy, so that many references to
		// one block cannot cost more than the input (the fuzzer found 64
		// references to a 256-byte block copying 16 KB out of 808 bytes).
		v, err := decodeValue(p, valfmt, raw, t, d)
		if err == nil && d.budget < 0 {
			err = fmt.Errorf("value blocks overlap: their payloads exceed the %d bytes they came in", len(p))
		}
		return v, err
	}
	key := blockKey{raw, t}
	start := int64(raw) * 4
	if start < d.blockEnd {
		// Behind the blocks decoded in order: a reference again, or an
		// overlapping or out-of-order block.
		i := sort.Search(len(d.blocks), func(i int) bool { return d.blocks[i].key.off >= raw })
		if i < len(d.blocks) && d.blocks[i].key == key {
			return d.blocks[i].v, nil
		}
		if v, ok := d.others[key]; ok {
			return v, nil
		}
	}
	v, err := decodeValue(p, valfmt, raw, t, d)
	if err != nil {
		return v, err
	}
	if d.budget < 0 {
		return v, fmt.Errorf("value blocks overlap: their payloads exceed the %d bytes they came in", len(p))
	}
	if end := start + int64(binary.BigEndian.Uint32(p[start:])&0xffffff); start >= d.blockEnd {
		d.blocks = append(d.blocks, decodedBlock{key, v})
		d.blockEnd = end
	} else {
		if d.others == nil {
			d.others = map[blockKey]pmapi.Value{}
		}
		d.others[key] = v
	}
	return v, nil
}

// setInSitu sets the fields of a zero value that an in-situ value of
// type t has: a signed 32-bit integer, a float, or an unsigned one (as
// both Uint and Int).
func setInSitu(v *pmapi.Value, raw uint32, t pmapi.Type) {
	switch t {
	case pmapi.Type32:
		v.Int = int64(int32(raw))
	case pmapi.TypeFloat:
		v.Float = float64(math.Float32frombits(raw))
	default:
		v.Uint, v.Int = uint64(raw), int64(raw)
	}
}

// set64 sets the field of a zero value that a 64-bit block's payload x
// fills for t, one of the types block64 reads.
func set64(v *pmapi.Value, x uint64, t pmapi.Type) {
	switch t {
	case pmapi.Type64:
		v.Int = int64(x)
	case pmapi.TypeU64:
		v.Uint = x
	default:
		v.Float = math.Float64frombits(x)
	}
}

// block64 reads the 8 bytes of a 64-bit integer or double value block at
// word offset raw, when t is such a type and the block is well formed;
// anything else is decodeValue's to decode or refuse.
func block64(p []byte, raw uint32, t pmapi.Type) (uint64, bool) {
	if t != pmapi.Type64 && t != pmapi.TypeU64 && t != pmapi.TypeDouble {
		return 0, false
	}
	off := int64(raw) * 4
	if off < 8 || off+12 > int64(len(p)) {
		return 0, false
	}
	if vlen := int64(binary.BigEndian.Uint32(p[off:]) & 0xffffff); vlen < 12 || off+vlen > int64(len(p)) {
		return 0, false
	}
	return binary.BigEndian.Uint64(p[off+4:]), true
}

// charge counts n bytes copied out of value blocks against the budget.
func (d *Decoder) charge(n int) { d.budget -= int64(n) }

// decodeValue decodes one value: in situ, or a value block at a word
// offset from the start of p. Strings and blobs are copied through d
// (charged, and strings interned) when d is not nil.
func decodeValue(p []byte, valfmt, raw uint32, t pmapi.Type, d *Decoder) (pmapi.Value, error) {
	var v pmapi.Value
	if valfmt == 0 {
		setInSitu(&v, raw, t)
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
		v.String = d.string(s)
	default:
		if d != nil {
			d.charge(len(payload))
		}
		v.Blob = append([]byte(nil), payload...)
	}
	return v, nil
}
