// Package pmcd is a native client for pmcd's PDU protocol over TCP or a
// unix socket: the plain handshake, PMNS, descriptor, instance, help text
// and fetch requests, batched, with libpcp's timeouts and back-off.
package pmcd

import (
	"encoding/binary"
	"fmt"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/wire"
)

// PDU types.
const (
	pduError         = 0x7000
	pduResult        = 0x7001
	pduProfile       = 0x7002
	pduFetch         = 0x7003
	pduDescReq       = 0x7004
	pduDesc          = 0x7005
	pduInstanceReq   = 0x7006
	pduInstance      = 0x7007
	pduTextReq       = 0x7008
	pduText          = 0x7009
	pduCreds         = 0x700c
	pduPMNSIDs       = 0x700d
	pduPMNSNames     = 0x700e
	pduPMNSChild     = 0x700f
	pduPMNSTraverse  = 0x7010
	pduLabelReq      = 0x7012
	pduLabel         = 0x7013
	pduHighresFetch  = 0x7014
	pduHighresResult = 0x7015
	pduDescIDs       = 0x7016
	pduDescs         = 0x7017
)

// pmcd feature bits from the connection challenge.
const (
	featureSecure    = 0x0001
	featureCredsReqd = 0x0008
	featureCertReqd  = 0x0080
	featureLabels    = 0x0200
	featureHighres   = 0x0400
	featureDescs     = 0x0800
)

// headerLen is the size of every PDU's header: length, type, sender.
const headerLen = 12

// builder encodes a PDU body; bytes() prefixes the header.
type builder struct{ b []byte }

func (w *builder) u32(v uint32) { w.b = binary.BigEndian.AppendUint32(w.b, v) }
func (w *builder) i32(v int32)  { w.u32(uint32(v)) }

// str writes a length-prefixed string padded to 4 bytes.
func (w *builder) str(s string) {
	w.u32(uint32(len(s)))
	w.b = append(w.b, s...)
	for len(w.b)%4 != 0 {
		w.b = append(w.b, '~')
	}
}

func (w *builder) pdu(typ uint32) []byte {
	out := make([]byte, headerLen, headerLen+len(w.b))
	binary.BigEndian.PutUint32(out[0:], uint32(headerLen+len(w.b)))
	binary.BigEndian.PutUint32(out[4:], typ)
	return append(out, w.b...)
}

// reader decodes a PDU with bounds checks: every read past the end sets
// an error instead of panicking.
type reader struct {
	b   []byte
	off int
	err error
}

func newReader(pdu []byte) *reader { return &reader{b: pdu, off: headerLen} }

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format, append([]any{pmclient.ErrIPC}, args...)...)
	}
}

func (r *reader) u32() uint32 {
	if r.err != nil || r.off+4 > len(r.b) {
		r.fail("PDU of %d bytes truncated at offset %d", len(r.b), r.off)
		return 0
	}
	v := binary.BigEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

func (r *reader) i32() int32 { return int32(r.u32()) }

func (r *reader) u64() uint64 {
	hi := r.u32()
	lo := r.u32()
	return uint64(hi)<<32 | uint64(lo)
}

// count reads a count and checks it against what the PDU can hold.
func (r *reader) count(what string, unit int) int {
	n := r.i32()
	if n < 0 || int64(n)*int64(unit) > int64(len(r.b)-r.off) {
		r.fail("%s count %d does not fit a %d-byte PDU", what, n, len(r.b))
		return 0
	}
	return int(n)
}

// bytes reads n bytes and skips the padding to a 4-byte boundary.
func (r *reader) bytes(n int, pad bool) []byte {
	if r.err != nil || n < 0 || r.off+n > len(r.b) {
		r.fail("%d bytes at offset %d overrun a %d-byte PDU", n, r.off, len(r.b))
		return nil
	}
	out := r.b[r.off : r.off+n]
	r.off += n
	if pad {
		r.off = min((r.off+3)&^3, len(r.b))
	}
	return out
}

// header fields of a whole PDU.
func pduType(p []byte) uint32 { return binary.BigEndian.Uint32(p[4:]) }

// decodeError decodes an ERROR PDU's code.
func decodeError(p []byte) (int32, error) {
	r := newReader(p)
	code := r.i32()
	return code, r.err
}

func (r *reader) desc() pmapi.Desc {
	return pmapi.Desc{
		PMID:  pmapi.PMID(r.u32()),
		Type:  pmapi.Type(r.i32()),
		InDom: pmapi.InDom(r.u32()),
		Sem:   pmapi.Sem(r.i32()),
		Units: pmapi.UnitsFromWire(r.u32()),
	}
}

// encodeNames is a PMNS_NAMES request for a name lookup.
func encodeNames(names []string) []byte {
	var w builder
	total := 0
	for _, n := range names {
		total += len(n) + 1
	}
	w.u32(uint32(total))
	w.u32(0)
	w.u32(uint32(len(names)))
	for _, n := range names {
		w.str(n)
	}
	return w.pdu(pduPMNSNames)
}

// decodeNames decodes a PMNS_NAMES reply: names and, when present, leaf
// status (0 leaf, 1 non-leaf).
func decodeNames(p []byte) ([]string, []int32, error) {
	r := newReader(p)
	r.u32() // nstrbytes
	numstatus := r.count("status", 0)
	numnames := r.count("name", 4)
	if numstatus != 0 && numstatus != numnames {
		r.fail("%d statuses for %d names", numstatus, numnames)
	}
	names := make([]string, 0, numnames)
	var status []int32
	for i := 0; i < numnames && r.err == nil; i++ {
		if numstatus > 0 {
			status = append(status, r.i32())
		}
		n := r.count("name length", 1)
		names = append(names, string(r.bytes(n, true)))
	}
	return names, status, r.err
}

// decodeIDs decodes a PMNS_IDS reply.
func decodeIDs(p []byte, want int) ([]pmapi.PMID, error) {
	r := newReader(p)
	r.u32() // number resolved
	n := r.count("pmid", 4)
	if r.err == nil && n != want {
		r.fail("%d PMIDs for %d names", n, want)
	}
	ids := make([]pmapi.PMID, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		ids = append(ids, pmapi.PMID(r.u32()))
	}
	return ids, r.err
}

func encodeChild(name string, subtype uint32, typ uint32) []byte {
	var w builder
	w.u32(subtype)
	if name == "" {
		w.u32(0)
	} else {
		w.str(name)
	}
	return w.pdu(typ)
}

func encodeDescReq(pmid pmapi.PMID) []byte {
	var w builder
	w.u32(uint32(pmid))
	return w.pdu(pduDescReq)
}

func decodeDesc(p []byte) (pmapi.Desc, error) {
	r := newReader(p)
	d := r.desc()
	return d, r.err
}

func encodeDescIDs(pmids []pmapi.PMID) []byte {
	var w builder
	w.i32(-1)
	w.u32(uint32(len(pmids)))
	for _, p := range pmids {
		w.u32(uint32(p))
	}
	return w.pdu(pduDescIDs)
}

func decodeDescs(p []byte, want int) ([]pmapi.Desc, error) {
	r := newReader(p)
	n := r.count("descriptor", 20)
	if r.err == nil && n != want {
		r.fail("%d descriptors for %d PMIDs", n, want)
	}
	out := make([]pmapi.Desc, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.desc())
	}
	return out, r.err
}

func encodeInstanceReq(indom pmapi.InDom, inst int32, name string) []byte {
	var w builder
	w.u32(uint32(indom))
	w.u32(0)
	w.u32(0)
	w.i32(inst)
	if name == "" {
		w.u32(0)
	} else {
		w.str(name)
	}
	return w.pdu(pduInstanceReq)
}

func decodeInstances(p []byte) ([]pmclient.Instance, error) {
	r := newReader(p)
	r.u32() // indom
	n := r.count("instance", 8)
	out := make([]pmclient.Instance, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		id := r.i32()
		l := r.count("instance name length", 1)
		out = append(out, pmclient.Instance{ID: id, Name: string(r.bytes(l, true))})
	}
	return out, r.err
}

func encodeTextReq(ident uint32, typ uint32) []byte {
	var w builder
	w.u32(ident)
	w.u32(typ)
	return w.pdu(pduTextReq)
}

func decodeText(p []byte) (string, error) {
	r := newReader(p)
	r.u32() // ident, in pmcd's byte order: ignored
	n := r.count("text length", 1)
	return string(r.bytes(n, true)), r.err
}

func encodeLabelReq(ident uint32, typ pmclient.LabelType) []byte {
	var w builder
	w.u32(ident)
	w.u32(uint32(typ))
	return w.pdu(pduLabelReq)
}

// decodeLabels reads a LABEL reply: set headers with their label entries,
// then the JSON texts, addressed by offsets from the start of the PDU.
func decodeLabels(p []byte, ident uint32, typ pmclient.LabelType) ([]pmclient.LabelSet, error) {
	if pduType(p) != pduLabel {
		return nil, fmt.Errorf("%w: a PDU of type %#x answered a label request", pmclient.ErrIPC, pduType(p))
	}
	r := newReader(p)
	if gotIdent, gotType := r.u32(), r.u32(); r.err == nil && (gotIdent != ident || gotType != uint32(typ)) {
		return nil, fmt.Errorf("%w: label reply for ident %#x type %d, asked for %#x type %d", pmclient.ErrIPC, gotIdent, gotType, ident, typ)
	}
	r.u32() // padding
	n := r.count("label set", 16)
	sets := make([]pmclient.LabelSet, 0, n)
	// Every set's JSON is addressed by offset, and sets may share or
	// overlap their texts: convert the PDU once and let each set take
	// substrings of it, so memory stays bounded by the PDU's size.
	var text string
	if n > 0 {
		text = string(p)
	}
	for i := 0; i < n && r.err == nil; i++ {
		inst := r.i32()
		nlabels := r.i32()
		jsonOff, jsonLen := int(r.u32()), int(r.u32())
		if r.err != nil {
			break
		}
		if nlabels < 0 {
			return nil, pmclient.Error(nlabels)
		}
		entries := r.bytes(int(nlabels)*8, false)
		if r.err != nil {
			break
		}
		if jsonOff < 0 || jsonLen < 0 || jsonOff+jsonLen > len(p) || jsonOff < headerLen {
			return nil, fmt.Errorf("%w: label JSON at %d+%d outside a %d-byte PDU", pmclient.ErrIPC, jsonOff, jsonLen, len(p))
		}
		set, err := pmclient.ParseLabelSet(inst, text[jsonOff:jsonOff+jsonLen], entries)
		if err != nil {
			return nil, fmt.Errorf("%w: label set %d: %v", pmclient.ErrIPC, i, err)
		}
		sets = append(sets, set)
	}
	if r.err != nil {
		return nil, r.err
	}
	return sets, nil
}

// encodeProfile is the "all instances" profile for a context slot.
func encodeProfile(ctxid uint32) []byte {
	var w builder
	w.u32(ctxid)
	w.u32(0) // include everything by default
	w.u32(0)
	w.u32(0)
	return w.pdu(pduProfile)
}

// appendFetch appends a FETCH (or HIGHRES_FETCH) request to dst.
func appendFetch(dst []byte, ctxid uint32, pmids []pmapi.PMID, highres bool) []byte {
	typ := uint32(pduFetch)
	if highres {
		typ = pduHighresFetch
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(headerLen+16+4*len(pmids)))
	dst = binary.BigEndian.AppendUint32(dst, typ)
	dst = binary.BigEndian.AppendUint32(dst, 0) // from
	dst = binary.BigEndian.AppendUint32(dst, ctxid)
	dst = binary.BigEndian.AppendUint32(dst, 0) // timestamp, unused
	dst = binary.BigEndian.AppendUint32(dst, 0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(pmids)))
	for _, p := range pmids {
		dst = binary.BigEndian.AppendUint32(dst, uint32(p))
	}
	return dst
}

// decodeResult decodes a RESULT or HIGHRES_RESULT. types gives each
// requested metric's value type (needed to decode in-situ values); dec
// decodes the values into fresh memory.
func decodeResult(p []byte, types map[pmapi.PMID]pmapi.Type, dec *wire.Decoder) (*pmclient.Result, error) {
	r := newReader(p)
	res := &pmclient.Result{}
	var n int
	if pduType(p) == pduHighresResult {
		n = r.count("pmid", 8)
		sec := int64(r.u64())
		nsec := int64(r.u64())
		res.Timestamp = timeFrom(sec, nsec)
	} else {
		sec := int64(r.i32())
		usec := int64(r.i32())
		n = r.count("pmid", 8)
		res.Timestamp = timeFrom(sec, usec*1000)
	}
	if r.err != nil {
		return nil, r.err
	}
	metrics, err := dec.DecodeFresh(p, r.off, n, types)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", pmclient.ErrIPC, err)
	}
	res.Metrics = metrics
	return res, nil
}
