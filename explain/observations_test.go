package explain

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// TestEvaluatorObservesInPostOrder: the evaluator reports a tree's nodes
// in the order the explanation's merge takes them (operands before their
// operator, left to right), so explaining a big tree needs no index of its
// observations. Guards, filters, functions and skipped branches included.
func TestEvaluatorObservesInPostOrder(t *testing.T) {
	exprs := []string{
		"sample.bin + 2 * (sample.bin - 3) / 4",
		"defined(no.such.metric) ? no.such.metric : sample.long.one + 1",
		"sample.long.one > 5 ? sample.long.one : novalue()",
		"-max(sample.bin) + 1",
		"matchinst(/100/, sample.bin) * 2 + sample.bin[bin-100]",
		"rate(sample.seconds) * 100",
		"delta(sample.long.bin_ctr) * sample.part_bin[bin-200]",
		"sample.ulong.count.kilo + sample.ulong.count.base",
	}
	for i, expr := range exprs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			a := openArchive(t, "testdata/golden")
			rep := check(t, a, "x.y = "+expr+"\n", pcpver.V7_2_2)
			m, ok := rep.ByName.Lookup("x.y")
			if !ok || m.Status != checker.Valid {
				t.Fatalf("%s: not valid", expr)
			}
			rec := NewRecorder(nil)
			if err := sample(context.Background(), a, Target{Report: rep, Metric: m}, rec, Options{}); err != nil {
				t.Fatal(err)
			}
			cur, _, _, _ := rec.latest(m)
			syntax, _ := m.Def.Tree()
			set := 0
			mg := &merge{o: cur, set: func(*Node, observation) { set++ }}
			root := build(syntax, newMetadata(syntax, rep.NodesOf(m)), &tree{expr: m.Def.Expr}, 0, mg.visit)
			if !mg.finish(root) {
				t.Errorf("the observations of %s are not in the tree's post-order", expr)
			}
			if n := len(cur.index()); set == 0 || set != n {
				t.Errorf("%d of %d observations set", set, n)
			}
		})
	}
}

// TestMergeFallsBack: every observation reaches its node whatever
// their order, the later of two for one node winning; consume lets each
// block of the list go once taken. The tree's 5,999 nodes fill several
// blocks.
func TestMergeFallsBack(t *testing.T) {
	a := openArchive(t, "testdata/golden")
	var expr strings.Builder
	expr.WriteString("sample.long.one")
	for i := 1; i < 3000; i++ {
		fmt.Fprintf(&expr, " + %d", i)
	}
	rep := check(t, a, "x.y = "+expr.String()+"\n", pcpver.V7_2_2)
	m, ok := rep.ByName.Lookup("x.y")
	if !ok {
		t.Fatal("x.y: not checked")
	}
	syntax, _ := m.Def.Tree()
	root := build(syntax, newMetadata(syntax, rep.NodesOf(m)), &tree{expr: m.Def.Expr}, 0, nil)
	var post []*Node
	postOrder(root, func(n *Node) { post = append(post, n) })
	if len(post) != 5999 {
		t.Fatalf("%d nodes, want 5999", len(post))
	}
	obs := func(nodes []*Node) observations {
		var o observations
		for _, n := range nodes {
			o = o.add(observed{n.Syntax(), newObservation(nil, errors.New(n.Text()))})
		}
		return o
	}
	reversed := slices.Clone(post)
	slices.Reverse(reversed)
	skipped := slices.Delete(slices.Clone(post), 1, 2)
	twice := obs(post).add(observed{post[0].Syntax(), newObservation(nil, errors.New("again"))})
	for _, tc := range []struct {
		name    string
		o       observations
		inOrder bool
		want    map[*Node]string // the observation a node gets, if not its own
	}{
		{"post-order", obs(post), true, nil},
		{"one skipped", obs(skipped), true, map[*Node]string{post[1]: ""}},
		{"reversed", obs(reversed), false, nil},
		{"twice", twice, false, map[*Node]string{post[0]: "again"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[*Node]string{}
			mg := &merge{o: tc.o, consume: true, set: func(n *Node, o observation) { got[n] = o.err().Error() }}
			postOrder(root, mg.visit)
			inOrder := mg.finish(root)
			if inOrder != tc.inOrder {
				t.Errorf("in order %v, want %v", inOrder, tc.inOrder)
			}
			for _, n := range post {
				want, ok := tc.want[n]
				if !ok {
					want = n.Text()
				}
				if got[n] != want {
					t.Errorf("%.40s got %.40q, want %.40q", n.Text(), got[n], want)
				}
			}
			for i, block := range tc.o {
				if inOrder && block != nil {
					t.Errorf("block %d kept after it was taken", i)
				}
			}
		})
	}
}

// TestObservationKeepsValues: every value comes back from an observation
// exactly as the evaluator gave it, kept as a word or whole, and so does
// the error beside them.
func TestObservationKeepsValues(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, vals := range [][]evaluator.Value{
		nil,
		{},
		{{Inst: pmapi.InNull}},
		{{Inst: pmapi.InNull, Float: 2.002}},
		{{Inst: 3, Float: negZero}},
		{{Inst: 1, Int: math.MinInt64}},
		{{Inst: 1, Uint: math.MaxUint64}},
		{{Inst: 1, Int: -1}, {Inst: 2, Uint: 7}, {Inst: 3, Float: math.NaN()}},
		{{Inst: pmapi.InNull, Uint: 5, Float: negZero}},           // several fields: kept whole
		{{Inst: 1, Int: 4, Uint: 4, Float: 4}, {Inst: 2, Int: 1}}, // a source that fills them all
		{{Inst: pmapi.InNull, String: "text"}},
		{{Inst: pmapi.InNull, Blob: []byte{1, 2}}},
	} {
		for _, err := range []error{nil, errors.New("failed")} {
			o := newObservation(vals, err)
			if o.err() != err {
				t.Errorf("%+v, error %v: error %v came back", vals, err, o.err())
			}
			if o.len() != len(vals) {
				t.Errorf("%+v, error %v: %d values came back", vals, err, o.len())
				continue
			}
			for i, want := range vals {
				got := o.value(i)
				if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) || math.Float64bits(got.Float) != math.Float64bits(want.Float) {
					t.Errorf("value %d, error %v: %#v came back as %#v", i, err, want, got)
				}
			}
		}
	}
}

// TestObservationSize holds an observation to 24 bytes: a big tree has
// one per node, its only value inside (it was 40 with its error inline).
func TestObservationSize(t *testing.T) {
	if size := unsafe.Sizeof(observation{}); size > 24 {
		t.Errorf("an observation is %d bytes, want at most 24", size)
	}
}
