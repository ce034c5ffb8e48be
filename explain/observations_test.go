package explain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
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
			tree, _ := m.Def.Tree()
			set := 0
			mg := &merge{o: cur, set: func(*Node, observation) { set++ }}
			root := build(tree, rep.NodesOf(m), m.Def.Expr, mg.visit)
			if !mg.finish(root) {
				t.Errorf("the observations of %s are not in the tree's post-order", expr)
			}
			if set == 0 || set != len(cur) {
				t.Errorf("%d of %d observations set", set, len(cur))
			}
		})
	}
}

// TestMergeFallsBack: every observation reaches its node whatever
// their order, the later of two for one node winning; consume drops each
// once taken.
func TestMergeFallsBack(t *testing.T) {
	a := openArchive(t, "testdata/golden")
	rep := check(t, a, "x.y = (sample.long.one + 2) * -sample.long.ten\n", pcpver.V7_2_2)
	m, ok := rep.ByName.Lookup("x.y")
	if !ok {
		t.Fatal("x.y: not checked")
	}
	tree, _ := m.Def.Tree()
	root := build(tree, rep.NodesOf(m), m.Def.Expr, nil)
	var post []*Node
	postOrder(root, func(n *Node) { post = append(post, n) })
	obs := func(nodes []*Node) observations {
		var o observations
		for _, n := range nodes {
			o = append(o, observed{n.Syntax, observation{err: errors.New(n.Text())}})
		}
		return o
	}
	reversed := slices.Clone(post)
	slices.Reverse(reversed)
	skipped := slices.Delete(slices.Clone(post), 1, 2)
	twice := append(obs(post), observed{post[0].Syntax, observation{err: errors.New("again")}})
	for _, tc := range []struct {
		name    string
		o       observations
		inOrder bool
		want    map[string]string // node text: the observation it gets
	}{
		{"post-order", obs(post), true, nil},
		{"one skipped", obs(skipped), true, map[string]string{post[1].Text(): ""}},
		{"reversed", obs(reversed), false, nil},
		{"twice", twice, false, map[string]string{post[0].Text(): "again"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]string{}
			mg := &merge{o: tc.o, consume: true, set: func(n *Node, o observation) { got[n.Text()] = o.err.Error() }}
			postOrder(root, mg.visit)
			inOrder := mg.finish(root)
			if inOrder != tc.inOrder {
				t.Errorf("in order %v, want %v", inOrder, tc.inOrder)
			}
			for _, n := range post {
				want, ok := tc.want[n.Text()]
				if !ok {
					want = n.Text()
				}
				if got[n.Text()] != want {
					t.Errorf("%s got %q, want %q", n.Text(), got[n.Text()], want)
				}
			}
			for i, ob := range tc.o {
				if inOrder && ob.syn != nil {
					t.Errorf("observation %d kept after it was taken", i)
				}
			}
		})
	}
}
