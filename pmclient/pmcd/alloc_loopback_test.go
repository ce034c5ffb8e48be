package pmcd

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/hostile"
)

// TestFetchAllocationsLoopback is TestFetchAllocations without the test
// pmcd: a pmcd played here on loopback answers a fetch of 50 metrics of
// every kind of value a RESULT carries (in situ and in value blocks,
// strings among them, instance domains, an error, no values). A fetch
// on a warm connection allocates the Result, its metrics and one slab of
// values (issue #18), and no more bytes than they take: nothing per
// metric, per value or per request (the request, the reply's buffer and
// the decoder's tables are reused), strings seen before shared.
func TestFetchAllocationsLoopback(t *testing.T) {
	// A context that can be cancelled costs nothing per request either:
	// the connection's watch serves every request made with it.
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
	}{
		{"background", context.Background()},
		{"cancellable", cancellable},
		{"value of cancellable", context.WithValue(cancellable, t, 1)}, // its Done channel
	} {
		t.Run(tc.name, func(t *testing.T) { testFetchAllocations(t, tc.ctx) })
	}
}

func testFetchAllocations(t *testing.T, ctx context.Context) {
	descs, want := fetchFixture()
	reply := resultPDU(time.Unix(1e9, 0), want, descs, make([]error, len(descs)))
	addr := fakePmcd(t, func(c net.Conn) { serveFetches(c, descs, reply) })
	c, err := New(addr, Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pmids := make([]pmapi.PMID, len(descs))
	for i, d := range descs {
		pmids[i] = d.PMID
	}
	fetch := func() *pmclient.Result {
		res, err := c.Fetch(ctx, pmids)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// The first fetch looks the descriptors up and learns the strings.
	if res := fetch(); !reflect.DeepEqual(res.Metrics, want) {
		t.Fatalf("fetched\n%+v\nwant\n%+v", res.Metrics, want)
	}
	values := 0
	for _, m := range want {
		values += len(m.Values)
	}
	allocs := testing.AllocsPerRun(100, func() { fetch() })
	const runs = 200
	bytes := hostile.Allocated(func() {
		for range runs {
			fetch()
		}
	}) / runs
	// What the result holds, and the allocator's rounding up to its size
	// classes (up to a seventh): a reply's buffer allocated per fetch
	// would exceed it.
	need := unsafe.Sizeof(pmclient.Result{}) + uintptr(len(want))*unsafe.Sizeof(pmclient.MetricValues{}) + uintptr(values)*unsafe.Sizeof(pmapi.Value{})
	limit := uint64(need)*5/4 + 256
	t.Logf("a fetch: %.1f allocations, %d bytes (limit %d)", allocs, bytes, limit)
	if allocs > 3 || bytes > limit {
		t.Errorf("a fetch of %d metrics (%d values) cost %.1f allocations and %d bytes, want at most 3 and %d", len(want), values, allocs, bytes, limit)
	}
}

// fetchFixture is 50 metrics, their descriptors and the values a RESULT
// of them decodes to, cycling through the kinds of value (the value
// types encoded in situ and in value blocks, singular and with instances,
// as the linux and sample agents answer bench/testdata/fetch50.names),
// the last two with no values and with an error.
func fetchFixture() ([]pmapi.Desc, []pmclient.MetricValues) {
	kinds := []struct {
		typ   pmapi.Type
		insts int // 0: singular
	}{
		{pmapi.TypeU64, 0}, {pmapi.TypeU64, 2}, {pmapi.TypeU32, 0}, {pmapi.TypeDouble, 0},
		{pmapi.Type32, 0}, {pmapi.TypeU32, 3}, {pmapi.TypeString, 0}, {pmapi.TypeFloat, 0},
		{pmapi.Type64, 0}, {pmapi.TypeU64, 4},
	}
	var descs []pmapi.Desc
	var metrics []pmclient.MetricValues
	for i := range 50 {
		k := kinds[i%len(kinds)]
		d := pmapi.Desc{PMID: pmapi.PMID(60<<22 | i), Type: k.typ, InDom: pmapi.InDomNull}
		m := pmclient.MetricValues{PMID: d.PMID}
		insts := []int32{pmclient.InNull}
		if k.insts > 0 {
			d.InDom = pmapi.InDom(60<<22 | i)
			insts = insts[:0]
			for j := range k.insts {
				insts = append(insts, int32(j))
			}
		}
		for _, inst := range insts {
			x := uint64(i*1000 + int(inst) + 1)
			v := pmapi.Value{Inst: inst}
			switch k.typ {
			case pmapi.Type32, pmapi.Type64:
				v.Int = int64(x)
			case pmapi.TypeU32:
				v.Uint, v.Int = x, int64(x) // as a U32 decodes
			case pmapi.TypeU64:
				v.Uint = x
			case pmapi.TypeFloat, pmapi.TypeDouble:
				v.Float = float64(x) / 4
			case pmapi.TypeString:
				v.String = "6.0.3"
			}
			m.Values = append(m.Values, v)
		}
		switch i {
		case 48:
			m.Values = nil
		case 49:
			m.Values, m.Err = nil, pmclient.Error(-12351) // PM_ERR_VALUE
		}
		descs = append(descs, d)
		metrics = append(metrics, m)
	}
	return descs, metrics
}

// serveFetches plays pmcd for TestFetchAllocationsLoopback: descs for
// every descriptor request, reply for every fetch. It allocates nothing
// per request, since the allocations counted are the whole process's.
func serveFetches(c net.Conn, descs []pmapi.Desc, reply []byte) {
	greeting(c)
	var w builder
	w.u32(uint32(len(descs)))
	for _, d := range descs {
		w.desc(d)
	}
	descsPDU := w.pdu(pduDescs)
	buf := make([]byte, maxClientPDU)
	for {
		if _, err := io.ReadFull(c, buf[:headerLen]); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(buf))
		if n < headerLen || n > len(buf) {
			return
		}
		if _, err := io.ReadFull(c, buf[headerLen:n]); err != nil {
			return
		}
		var out []byte
		switch pduType(buf) {
		case pduProfile:
			continue
		case pduDescIDs:
			out = descsPDU
		case pduFetch, pduHighresFetch:
			out = reply
		default:
			return
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}
