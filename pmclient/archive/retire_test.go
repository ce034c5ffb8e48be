package archive

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/hostile"
)

// retiringMeta is a v3 .meta whose instance domain holds n instances in
// its first (full) record, then loses one a second in n delta records
// (issue #41's archive: 6,000 instances, about 750 KB).
func retiringMeta(indom uint32, n int) []byte {
	record := func(typ uint32, sec int, ids []int32, names []string) []byte {
		var body []byte
		body = binary.BigEndian.AppendUint32(body, typ)
		body = binary.BigEndian.AppendUint32(body, uint32(sec)) // seconds, low word
		body = binary.BigEndian.AppendUint32(body, 0)
		body = binary.BigEndian.AppendUint32(body, 0) // nanoseconds
		body = binary.BigEndian.AppendUint32(body, indom)
		body = binary.BigEndian.AppendUint32(body, uint32(len(ids)))
		for _, id := range ids {
			body = binary.BigEndian.AppendUint32(body, uint32(id))
		}
		var table []byte
		for _, name := range names {
			if name == "" {
				body = binary.BigEndian.AppendUint32(body, 0xffffffff) // deleted
				continue
			}
			body = binary.BigEndian.AppendUint32(body, uint32(len(table)))
			table = append(append(table, name...), 0)
		}
		return hostile.Record(append(body, table...))
	}
	ids := make([]int32, n)
	names := make([]string, n)
	for i := range ids {
		ids[i], names[i] = int32(i), fmt.Sprintf("instance %d", i)
	}
	b := hostileMeta(record(5, 1, ids, names))
	for i := 0; i < n; i++ {
		b = append(b, record(6, 2+i, []int32{int32(i)}, []string{""})...)
	}
	return b
}

// TestRetiringInstances: an instance domain whose 6,000 instances retire
// one a record is read in time and memory linear in its records. Its
// history (every state, each instance's birth, death and name, the
// enumeration interp makes) costs within 20 times the .meta + 40 MB of
// allocations, and each lookup of a state allocates about what it
// answers. Each state was rebuilt whole (18 million instances, 1 GB) and
// each lookup replayed every record up to it (14 s of eval -a).
func TestRetiringInstances(t *testing.T) {
	const n = 6000
	const indom = 0x07400002
	meta := retiringMeta(indom, n)
	a, err := openMem(Options{}, map[string][]byte{"a.meta": meta, "a.0": hostile.LabelV3(0)})
	if err != nil {
		t.Fatal(err)
	}
	var h *InDomHistory
	allocated := hostile.Allocated(func() {
		h = a.InDomHistory(indom)
		for _, id := range h.Newest() {
			h.Lifetime(id)
			h.Name(id)
		}
	})
	bound := uint64(20*len(meta) + 40<<20)
	t.Logf("a %d-byte .meta: the history allocated %.1f MB (bound %.1f MB)", len(meta), float64(allocated)/(1<<20), float64(bound)/(1<<20))
	if allocated > bound {
		t.Errorf("the history allocated %d MB, over 20 times the .meta + 40 MB (%d MB)", allocated>>20, bound>>20)
	}
	if h.Len() != n+1 || h.MaxSize() != n || len(h.Newest()) != n || h.Newest()[0] != n-1 {
		t.Fatalf("%d states, at most %d instances, %d enumerated", h.Len(), h.MaxSize(), len(h.Newest()))
	}
	born, died, ok, gone := h.Lifetime(10)
	if !ok || !gone || born.Unix() != 1 || died.Unix() != 2+10 || h.Name(10) != "instance 10" {
		t.Errorf("instance 10: born %v, died %v (%v %v), named %q", born, died, ok, gone, h.Name(10))
	}
	for _, i := range []int{0, 1, n / 2, n - 1, n} {
		at := time.Unix(int64(1+i), 0)
		var got []pmclient.Instance
		alloc := hostile.Allocated(func() { got = a.InstancesAt(indom, at) })
		if want := replayTo(a.meta.indoms[indom], at); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
			t.Errorf("state %d: %d instances, replaying says %d", i, len(got), len(want))
		}
		if limit := uint64(2*24*len(got) + hostile.Slack); alloc > limit {
			t.Errorf("state %d of %d instances: a lookup allocated %d bytes, over %d", i, len(got), alloc, limit)
		}
	}
}
