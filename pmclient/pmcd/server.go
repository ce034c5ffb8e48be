package pmcd

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Server answers pmcd's PDU protocol from a pmclient.Source: a pmcd for
// tests and simulations (the fleet benchmark runs hundreds on loopback,
// each serving a metadata snapshot), not one to deploy. It has no access
// control, no authentication and no store; it answers name, descriptor,
// namespace, instance, help text and fetch requests, one at a time per
// connection, as this package's Client asks them.
type Server struct {
	Source pmclient.Source
	// Version is pmcd.version's value; "" takes the source's Version.
	// pmcd.version is served even when the source does not have it.
	Version string
	// Delay holds every answer back, as a slow host or network does.
	Delay time.Duration
	// Conns, when set, counts connections; servers may share one.
	Conns *ConnCounter

	mu      sync.Mutex
	ln      net.Listener
	version *pmapi.Desc // pmcd.version, once known
}

// ConnCounter counts a server's connections: open now, the most open
// at once, and all accepted. Safe for concurrent use.
type ConnCounter struct {
	open, peak, total atomic.Int64
}

func (c *ConnCounter) add() {
	n := c.open.Add(1)
	c.total.Add(1)
	for p := c.peak.Load(); n > p && !c.peak.CompareAndSwap(p, n); p = c.peak.Load() {
	}
}

func (c *ConnCounter) done() { c.open.Add(-1) }

// Open, Peak and Total read the counts.
func (c *ConnCounter) Open() int64  { return c.open.Load() }
func (c *ConnCounter) Peak() int64  { return c.peak.Load() }
func (c *ConnCounter) Total() int64 { return c.total.Load() }

// versionPMID is pmcd.version's PMID on every pmcd.
var versionPMID = pmapi.NewPMID(2, 0, 7)

// Serve accepts connections on ln until it is closed (by Close).
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	if s.Conns == nil {
		s.Conns = &ConnCounter{}
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		s.Conns.add()
		go func() {
			defer s.Conns.done()
			defer c.Close()
			s.serveConn(c)
		}()
	}
}

// Close stops accepting connections; open ones end when their clients
// close them.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return nil
	}
	return s.ln.Close()
}

// serveConn greets a client and answers its requests until it leaves.
func (s *Server) serveConn(c net.Conn) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var greet builder
	greet.u32(0)                            // status
	greet.u32(2<<24 | 1<<16 | featureDescs) // version 2, "licensed" (libpcp insists), batched descriptors
	if !s.send(c, greet.pdu(pduError)) {
		return
	}
	for {
		req, err := readPDU(c)
		if err != nil {
			return
		}
		var reply []byte
		switch pduType(req) {
		case pduCreds, pduProfile:
			continue // no answer
		case pduPMNSNames:
			reply = s.lookupNames(ctx, req)
		case pduDescIDs, pduDescReq:
			reply = s.descs(ctx, req)
		case pduPMNSChild, pduPMNSTraverse:
			reply = s.children(ctx, req)
		case pduPMNSIDs:
			reply = s.namesOf(ctx, req)
		case pduInstanceReq:
			reply = s.instances(ctx, req)
		case pduTextReq:
			reply = s.text(ctx, req)
		case pduFetch:
			reply = s.fetch(ctx, req)
		default:
			reply = errorPDU(-21344) // PM_ERR_NYI
		}
		if !s.send(c, reply) {
			return
		}
	}
}

func (s *Server) send(c net.Conn, pdu []byte) bool {
	if s.Delay > 0 {
		time.Sleep(s.Delay)
	}
	_, err := c.Write(pdu)
	return err == nil
}

// readPDU reads one request, refusing any larger than pmcd accepts.
func readPDU(c net.Conn) ([]byte, error) {
	var hdr [headerLen]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint32(hdr[:]))
	if n < headerLen || n > maxClientPDU {
		return nil, errors.New("bad request length")
	}
	p := make([]byte, n)
	copy(p, hdr[:])
	_, err := io.ReadFull(c, p[headerLen:])
	return p, err
}

func errorPDU(code int32) []byte {
	var w builder
	w.i32(code)
	return w.pdu(pduError)
}

// codeOf is the PCP error code to send for err.
func codeOf(err error) int32 {
	var pe pmclient.Error
	if errors.As(err, &pe) {
		return int32(pe)
	}
	return int32(pmclient.ErrIPC)
}

// versionDesc is pmcd.version's descriptor: the source's, or a STRING.
func (s *Server) versionDesc(ctx context.Context) pmapi.Desc {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version == nil {
		d := pmapi.Desc{PMID: versionPMID, Type: pmapi.TypeString, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}
		if ids, errs, err := s.Source.LookupNames(ctx, []string{"pmcd.version"}); err == nil && errs[0] == nil {
			if ds, derrs, err := s.Source.Descs(ctx, ids); err == nil && derrs[0] == nil {
				d = ds[0]
			}
		}
		s.version = &d
	}
	return *s.version
}

func (s *Server) versionValue(ctx context.Context) string {
	if s.Version != "" {
		return s.Version
	}
	v, _ := s.Source.Version(ctx)
	return v
}

func (s *Server) lookupNames(ctx context.Context, req []byte) []byte {
	r := newReader(req)
	r.u32() // string bytes
	r.u32() // no status
	n := r.count("name", 4)
	names := make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		names = append(names, string(r.bytes(r.count("name length", 1), true)))
	}
	if r.err != nil {
		return errorPDU(int32(pmclient.ErrIPC))
	}
	ids, errs, err := s.Source.LookupNames(ctx, names)
	if err != nil {
		return errorPDU(codeOf(err))
	}
	var w builder
	resolved := 0
	for i, name := range names {
		if name == "pmcd.version" {
			ids[i], errs[i] = s.versionDesc(ctx).PMID, nil
		}
		if errs[i] != nil {
			ids[i] = pmapi.PMIDNull
		} else {
			resolved++
		}
	}
	if len(names) == 1 && resolved == 0 {
		return errorPDU(codeOf(errs[0]))
	}
	w.u32(uint32(resolved))
	w.u32(uint32(len(ids)))
	for _, id := range ids {
		w.u32(uint32(id))
	}
	return w.pdu(pduPMNSIDs)
}

func (w *builder) desc(d pmapi.Desc) {
	w.u32(uint32(d.PMID))
	w.i32(int32(d.Type))
	w.u32(uint32(d.InDom))
	w.i32(int32(d.Sem))
	w.u32(d.Units.Wire())
}

// lookupDescs answers descriptors, pmcd.version's included.
func (s *Server) lookupDescs(ctx context.Context, ids []pmapi.PMID) ([]pmapi.Desc, []error, error) {
	descs, errs, err := s.Source.Descs(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	for i, id := range ids {
		if v := s.versionDesc(ctx); id == v.PMID {
			descs[i], errs[i] = v, nil
		}
	}
	return descs, errs, nil
}

func (s *Server) descs(ctx context.Context, req []byte) []byte {
	r := newReader(req)
	var ids []pmapi.PMID
	if pduType(req) == pduDescReq {
		ids = []pmapi.PMID{pmapi.PMID(r.u32())}
	} else {
		r.u32() // context
		n := r.count("pmid", 4)
		for i := 0; i < n && r.err == nil; i++ {
			ids = append(ids, pmapi.PMID(r.u32()))
		}
	}
	if r.err != nil {
		return errorPDU(int32(pmclient.ErrIPC))
	}
	descs, errs, err := s.lookupDescs(ctx, ids)
	if err != nil {
		return errorPDU(codeOf(err))
	}
	var w builder
	if pduType(req) == pduDescReq {
		if errs[0] != nil {
			return errorPDU(codeOf(errs[0]))
		}
		w.desc(descs[0])
		return w.pdu(pduDesc)
	}
	w.u32(uint32(len(ids)))
	for i, d := range descs {
		if errs[i] != nil {
			d = pmapi.Desc{PMID: pmapi.PMIDNull, InDom: pmapi.InDomNull}
		}
		w.desc(d)
	}
	return w.pdu(pduDescs)
}

// namesPDU is a PMNS_NAMES answer, with leaf (0) / non-leaf (1) statuses
// when status is not nil.
func namesPDU(names []string, status []int32) []byte {
	var w builder
	total := 0
	for _, n := range names {
		total += len(n) + 1
	}
	w.u32(uint32(total))
	w.u32(uint32(len(status)))
	w.u32(uint32(len(names)))
	for i, n := range names {
		if status != nil {
			w.i32(status[i])
		}
		w.str(n)
	}
	return w.pdu(pduPMNSNames)
}

func (s *Server) children(ctx context.Context, req []byte) []byte {
	r := newReader(req)
	r.u32() // subtype
	var name string
	if n := r.count("name length", 1); n > 0 {
		name = string(r.bytes(n, true))
	}
	if r.err != nil {
		return errorPDU(int32(pmclient.ErrIPC))
	}
	if pduType(req) == pduPMNSTraverse {
		names, err := s.traverse(ctx, name)
		if err != nil {
			return errorPDU(codeOf(err))
		}
		return namesPDU(names, nil)
	}
	kids, err := s.Source.Children(ctx, name)
	if err != nil {
		return errorPDU(codeOf(err))
	}
	names := make([]string, len(kids))
	status := make([]int32, len(kids))
	for i, k := range kids {
		names[i] = k.Name
		if !k.Leaf {
			status[i] = 1
		}
	}
	return namesPDU(names, status)
}

// maxTraverse bounds the names one traversal answers.
const maxTraverse = 1 << 20

// traverse lists the leaves at or below name (pmTraversePMNS): the name
// itself when it is a leaf.
func (s *Server) traverse(ctx context.Context, name string) ([]string, error) {
	if lister, ok := s.Source.(pmclient.NameLister); ok && name == "" {
		return lister.AllNames(ctx)
	}
	if name != "" {
		if _, errs, err := s.Source.LookupNames(ctx, []string{name}); err == nil && errs[0] == nil {
			return []string{name}, nil
		}
	}
	var out []string
	var walk func(node string, depth int) error
	walk = func(node string, depth int) error {
		kids, err := s.Source.Children(ctx, node)
		if err != nil {
			return err
		}
		for _, k := range kids {
			full := k.Name
			if node != "" {
				full = node + "." + k.Name
			}
			switch {
			case len(out) >= maxTraverse || depth > 64:
				return pmclient.ErrIPC
			case k.Leaf:
				out = append(out, full)
			default:
				if err := walk(full, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(name, 0); err != nil {
		return nil, err
	}
	if len(out) == 0 && name != "" {
		return nil, pmclient.ErrUnknownName
	}
	return out, nil
}

func (s *Server) namesOf(ctx context.Context, req []byte) []byte {
	r := newReader(req)
	r.u32()
	r.u32()
	id := pmapi.PMID(r.u32())
	if r.err != nil {
		return errorPDU(int32(pmclient.ErrIPC))
	}
	names, errs, err := s.Source.NamesOf(ctx, []pmapi.PMID{id})
	if err != nil {
		return errorPDU(codeOf(err))
	}
	if errs[0] != nil {
		return errorPDU(codeOf(errs[0]))
	}
	return namesPDU(names[0], nil)
}

func (s *Server) instances(ctx context.Context, req []byte) []byte {
	r := newReader(req)
	indom := pmapi.InDom(r.u32())
	r.u32()
	r.u32()
	inst := r.i32()
	var name string
	if n := r.count("name length", 1); n > 0 {
		name = string(r.bytes(n, true))
	}
	if r.err != nil {
		return errorPDU(int32(pmclient.ErrIPC))
	}
	all, err := s.Source.Instances(ctx, indom)
	if err != nil {
		return errorPDU(codeOf(err))
	}
	var w builder
	var out []pmclient.Instance
	for _, in := range all {
		if (inst == -1 || in.ID == inst) && (name == "" || in.Name == name) {
			out = append(out, in)
		}
	}
	if (inst != -1 || name != "") && len(out) == 0 {
		return errorPDU(int32(pmclient.ErrUnknownInst))
	}
	w.u32(uint32(indom))
	w.u32(uint32(len(out)))
	for _, in := range out {
		w.i32(in.ID)
		w.str(in.Name)
	}
	return w.pdu(pduInstance)
}

func (s *Server) text(ctx context.Context, req []byte) []byte {
	r := newReader(req)
	ident, typ := r.u32(), r.u32()
	if r.err != nil {
		return errorPDU(int32(pmclient.ErrIPC))
	}
	target := pmclient.HelpTarget{PMID: pmapi.PMID(ident), InDom: pmapi.InDomNull}
	if typ&8 != 0 {
		target = pmclient.HelpTarget{InDom: pmapi.InDom(ident)}
	}
	text, err := s.Source.HelpText(ctx, target, typ&2 != 0)
	if err != nil && !errors.Is(err, pmclient.ErrNoHelp) {
		return errorPDU(codeOf(err))
	}
	var w builder
	w.u32(ident)
	w.str(text)
	return w.pdu(pduText)
}

// fetch answers with the source's values, pmcd.version's included; a
// source with no values (a snapshot) answers PM_ERR_VALUE per metric.
func (s *Server) fetch(ctx context.Context, req []byte) []byte {
	r := newReader(req)
	r.u32()
	r.u32()
	r.u32()
	n := r.count("pmid", 4)
	ids := make([]pmapi.PMID, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		ids = append(ids, pmapi.PMID(r.u32()))
	}
	if r.err != nil {
		return errorPDU(int32(pmclient.ErrIPC))
	}
	vdesc := s.versionDesc(ctx)
	metrics := make([]pmclient.MetricValues, len(ids))
	res, err := s.Source.Fetch(ctx, ids)
	for i, id := range ids {
		switch {
		case id == vdesc.PMID:
			metrics[i] = pmclient.MetricValues{PMID: id, Values: []pmapi.Value{{Inst: pmclient.InNull, String: s.versionValue(ctx)}}}
		case err != nil || res == nil || i >= len(res.Metrics):
			metrics[i] = pmclient.MetricValues{PMID: id, Err: pmclient.Error(-12351)} // PM_ERR_VALUE
		default:
			metrics[i] = res.Metrics[i]
		}
	}
	descs, derrs, err := s.lookupDescs(ctx, ids)
	if err != nil {
		return errorPDU(codeOf(err))
	}
	return resultPDU(time.Now(), metrics, descs, derrs)
}

// resultPDU is a RESULT of metrics, whose values are encoded by the types
// in descs (a metric with an error in its MetricValues or in derrs gets
// the error's code).
func resultPDU(now time.Time, metrics []pmclient.MetricValues, descs []pmapi.Desc, derrs []error) []byte {
	var head, blocks builder
	head.i32(int32(now.Unix()))
	head.i32(int32(now.Nanosecond() / 1000))
	head.u32(uint32(len(metrics)))
	// Value blocks follow the value sets; their offsets count words from
	// the start of the PDU, so the sets' size comes first.
	size := headerLen + len(head.b)
	for _, m := range metrics {
		size += 8
		if m.Err == nil && len(m.Values) > 0 {
			size += 4 + 8*len(m.Values)
		}
	}
	for i, m := range metrics {
		head.u32(uint32(m.PMID))
		if m.Err != nil || derrs[i] != nil {
			code := codeOf(m.Err)
			if m.Err == nil {
				code = codeOf(derrs[i])
			}
			head.i32(code)
			continue
		}
		head.u32(uint32(len(m.Values)))
		if len(m.Values) == 0 {
			continue
		}
		t := descs[i].Type
		inSitu := t == pmapi.Type32 || t == pmapi.TypeU32 || t == pmapi.TypeFloat
		if inSitu {
			head.u32(0)
		} else {
			head.u32(1) // PM_VAL_DPTR
		}
		for _, v := range m.Values {
			head.i32(v.Inst)
			if inSitu {
				head.u32(inSituValue(t, v))
				continue
			}
			head.u32(uint32((size + len(blocks.b)) / 4))
			blocks.valueBlock(t, v)
		}
	}
	head.b = append(head.b, blocks.b...)
	return head.pdu(pduResult)
}

func inSituValue(t pmapi.Type, v pmapi.Value) uint32 {
	switch t {
	case pmapi.Type32:
		return uint32(int32(v.Int))
	case pmapi.TypeFloat:
		return math.Float32bits(float32(v.Float))
	}
	return uint32(v.Uint)
}

// valueBlock appends a pmValueBlock: type and length, payload, padding.
func (w *builder) valueBlock(t pmapi.Type, v pmapi.Value) {
	var payload []byte
	switch t {
	case pmapi.Type64:
		payload = binary.BigEndian.AppendUint64(nil, uint64(v.Int))
	case pmapi.TypeU64:
		payload = binary.BigEndian.AppendUint64(nil, v.Uint)
	case pmapi.TypeDouble:
		payload = binary.BigEndian.AppendUint64(nil, math.Float64bits(v.Float))
	case pmapi.TypeString:
		payload = append([]byte(v.String), 0)
	default:
		payload = v.Blob
	}
	w.u32(uint32(t)<<24 | uint32(4+len(payload)))
	w.b = append(w.b, payload...)
	for len(w.b)%4 != 0 {
		w.b = append(w.b, 0)
	}
}
