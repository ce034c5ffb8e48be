package archive

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// TestRecordsFrom: a reader started at the Position of any record reads
// from that record on, exactly as a reader from the zero Position does: in plain,
// multi-volume, compressed and merged archives, and at the end.
func TestRecordsFrom(t *testing.T) {
	dir := recorded(t)
	ctx := context.Background()
	for _, name := range []string{"v2", "multi", "xzd", "merged"} {
		t.Run(name, func(t *testing.T) {
			a, err := Open(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			// The reference reads every record from the zero Position:
			// Records() is libpcp's forward replay, which passes over a
			// record stamped before the one it follows (a merged archive
			// recorded live can hold one), and RecordsFrom does not.
			var all []*Record
			var at []Position
			rd, err := a.RecordsFrom(Position{})
			if err != nil {
				t.Fatal(err)
			}
			for {
				at = append(at, rd.Position())
				rec, err := rd.Next(ctx)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, rec)
			}
			rd.Close()
			for i, pos := range at {
				from, err := a.RecordsFrom(pos)
				if err != nil {
					t.Fatal(err)
				}
				for j := i; ; j++ {
					rec, err := from.Next(ctx)
					if errors.Is(err, io.EOF) {
						if j != len(all) {
							t.Fatalf("from record %d: the end after %d records, want %d", i, j-i, len(all)-i)
						}
						break
					}
					if err != nil {
						t.Fatalf("from record %d: %v", i, err)
					}
					if j >= len(all) || !reflect.DeepEqual(rec, all[j]) {
						t.Fatalf("from record %d: record %d differs", i, j)
					}
				}
				from.Close()
			}
			if _, err := a.RecordsFrom(Position{volume: len(a.volumes) + 1}); err == nil {
				t.Error("a position past the last volume is accepted")
			}
		})
	}
}

// TestInDomHistory: the instance domain's states rebuild what
// InstancesAt answers at each of their times (v3 deltas applied), in
// time order.
func TestInDomHistory(t *testing.T) {
	a, err := Open(filepath.Join(recorded(t), "v3"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for indom := range a.meta.indoms {
		h := a.InDomHistory(indom)
		for i := 0; i < h.Len(); i++ {
			if i > 0 && h.At(i).Before(h.At(i-1)) {
				t.Errorf("%s: state %d is before state %d", indom, i, i-1)
			}
			if i+1 < h.Len() && h.At(i+1).Equal(h.At(i)) {
				continue // InstancesAt answers with the last at one time
			}
			if got, want := h.State(i), replayTo(a.meta.indoms[indom], h.At(i)); !reflect.DeepEqual(got, want) {
				t.Errorf("%s at %v: %v, replaying the records says %v", indom, h.At(i), got, want)
			}
			if got := a.InstancesAt(indom, h.At(i)); !reflect.DeepEqual(got, h.State(i)) && len(got)+len(h.State(i)) > 0 {
				t.Errorf("%s at %v: InstancesAt %v, the history's state %v", indom, h.At(i), got, h.State(i))
			}
			checked++
		}
	}
	if checked == 0 {
		t.Error("no instance domain in the archive")
	}
	if a.InDomHistory(pmapi.InDom(0x7fffffff)) != nil {
		t.Error("history of an instance domain never recorded")
	}
}

// replayTo is an instance domain at time t the plain way: every record
// up to t applied in turn, deltas to the state before them.
func replayTo(obs []observation, t time.Time) []pmclient.Instance {
	cur := map[int32]string{}
	for _, o := range obs {
		if o.at.After(t) {
			continue
		}
		if !o.delta {
			cur = map[int32]string{}
		}
		for id := range o.deleted {
			delete(cur, id)
		}
		for _, in := range o.instances {
			cur[in.ID] = in.Name
		}
	}
	var out []pmclient.Instance
	for id, name := range cur {
		out = append(out, pmclient.Instance{ID: id, Name: name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
