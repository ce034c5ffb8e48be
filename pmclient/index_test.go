package pmclient

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

var (
	loadID  = pmapi.NewPMID(60, 2, 0)
	cpuID   = pmapi.NewPMID(60, 0, 20)
	aliasID = pmapi.NewPMID(60, 0, 21)
	loadDom = pmapi.NewInDom(60, 2)
)

// testIndex is a small namespace built the way the sources build theirs,
// with the cases the rules are about: a PMID with two names, a name bound
// twice, a descriptor given twice, help and labels of each kind.
func testIndex() *Index {
	var b IndexBuilder
	b.AddDesc(pmapi.Desc{PMID: loadID, Type: pmapi.TypeFloat, InDom: loadDom, Sem: pmapi.SemInstant})
	b.AddName("kernel.all.load", loadID)
	b.AddDesc(pmapi.Desc{PMID: cpuID, Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant})
	b.AddDesc(pmapi.Desc{PMID: cpuID, Type: pmapi.TypeU64, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter}) // replaces
	b.AddName("kernel.all.cpu.user", cpuID)
	b.AddName("kernel.percpu.user", cpuID)  // a second name
	b.AddName("kernel.all.cpu.user", cpuID) // again: still once
	b.AddName("kernel.moved", aliasID)
	b.AddName("kernel.moved", cpuID) // bound again: moves
	b.AddName("hinv.ncpu", pmapi.NewPMID(60, 0, 32))
	b.AddInstances(loadDom, []Instance{{1, "1 minute"}, {5, "5 minute"}, {15, "15 minute"}})
	b.AddHelp(HelpTarget{PMID: loadID, InDom: pmapi.InDomNull}, false, "load average")
	b.AddHelp(HelpTarget{PMID: loadID, InDom: pmapi.InDomNull}, true, "1, 5 and 15 minute load average")
	b.AddHelp(HelpTarget{PMID: cpuID, InDom: pmapi.InDomNull}, false, "user time")
	b.AddHelp(HelpTarget{PMID: cpuID, InDom: pmapi.InDomNull}, true, "") // empty: none
	b.AddHelp(HelpTarget{InDom: loadDom}, false, "load averages")
	b.AddLabels(LabelDomain, 60, []LabelSet{{Inst: InNull, Labels: []Label{{Name: "agent", Value: `"linux"`}}}})
	b.AddLabels(LabelCluster, uint32(cpuID), []LabelSet{{Inst: InNull, Labels: []Label{{Name: "c", Value: "1"}}}})
	b.AddLabels(LabelDomain, 60, []LabelSet{{Inst: InNull, Labels: []Label{{Name: "agent", Value: `"proc"`}}}}) // replaces
	return b.Build()
}

func TestIndexNames(t *testing.T) {
	x := testIndex()
	ctx := context.Background()
	lookups := []struct {
		name string
		want pmapi.PMID
		err  error
	}{
		{"kernel.all.load", loadID, nil},
		{"kernel.all.cpu.user", cpuID, nil},
		{"kernel.percpu.user", cpuID, nil},
		{"kernel.moved", cpuID, nil}, // the later binding
		{"kernel.all", pmapi.PMIDNull, ErrUnknownName},
		{"nope", pmapi.PMIDNull, ErrUnknownName},
		{"", pmapi.PMIDNull, ErrUnknownName},
	}
	names := make([]string, len(lookups))
	for i, c := range lookups {
		names[i] = c.name
	}
	ids, errs, err := x.LookupNames(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range lookups {
		if ids[i] != c.want || errs[i] != c.err {
			t.Errorf("LookupNames(%q) = %v, %v; want %v, %v", c.name, ids[i], errs[i], c.want, c.err)
		}
	}

	namesOf := []struct {
		pmid pmapi.PMID
		want []string
		err  error
	}{
		{loadID, []string{"kernel.all.load"}, nil},
		{cpuID, []string{"kernel.all.cpu.user", "kernel.percpu.user", "kernel.moved"}, nil},
		{aliasID, []string{"kernel.moved"}, nil}, // a PMID keeps the names it was given
		{pmapi.NewPMID(1, 2, 3), nil, ErrUnknownPMID},
	}
	for _, c := range namesOf {
		got, errs, _ := x.NamesOf(ctx, []pmapi.PMID{c.pmid})
		if !reflect.DeepEqual(got[0], c.want) || errs[0] != c.err {
			t.Errorf("NamesOf(%v) = %q, %v; want %q, %v", c.pmid, got[0], errs[0], c.want, c.err)
		}
	}
	// Answers are the caller's: changing one changes no later answer.
	got, _, _ := x.NamesOf(ctx, []pmapi.PMID{cpuID})
	got[0][0] = "changed"
	if again, _, _ := x.NamesOf(ctx, []pmapi.PMID{cpuID}); again[0][0] != "kernel.all.cpu.user" {
		t.Errorf("NamesOf shares its slice: %q", again[0])
	}

	want := []string{"kernel.all.load", "kernel.all.cpu.user", "kernel.percpu.user", "kernel.moved", "hinv.ncpu"}
	if all, err := x.AllNames(ctx); err != nil || !reflect.DeepEqual(all, want) {
		t.Errorf("AllNames = %q, %v; want %q (each once, in the order added)", all, err, want)
	}
}

func TestIndexDescs(t *testing.T) {
	x := testIndex()
	cases := []struct {
		pmid pmapi.PMID
		want pmapi.Desc
		err  error
	}{
		{loadID, pmapi.Desc{PMID: loadID, Type: pmapi.TypeFloat, InDom: loadDom, Sem: pmapi.SemInstant}, nil},
		{cpuID, pmapi.Desc{PMID: cpuID, Type: pmapi.TypeU64, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter}, nil}, // the later
		{aliasID, pmapi.Desc{}, ErrUnknownPMID}, // a name but no descriptor
		{pmapi.PMIDNull, pmapi.Desc{}, ErrUnknownPMID},
	}
	for _, c := range cases {
		got, errs, err := x.Descs(context.Background(), []pmapi.PMID{c.pmid})
		if err != nil || got[0] != c.want || errs[0] != c.err {
			t.Errorf("Descs(%v) = %+v, %v, %v; want %+v, %v", c.pmid, got[0], errs[0], err, c.want, c.err)
		}
	}
}

func TestIndexChildren(t *testing.T) {
	x := testIndex()
	cases := []struct {
		node string
		want string
		err  error
	}{
		{"", "[{hinv false} {kernel false}]", nil},
		{"kernel", "[{all false} {moved true} {percpu false}]", nil}, // sorted by name
		{"kernel.all", "[{cpu false} {load true}]", nil},
		{"kernel.all.cpu", "[{user true}]", nil},
		{"kernel.all.load", "[]", nil}, // a metric: no children, no error
		{"kernel.al", "[]", ErrUnknownName},
		{"kernel.all.load.x", "[]", ErrUnknownName},
		{"nope", "[]", ErrUnknownName},
	}
	for _, c := range cases {
		got, err := x.Children(context.Background(), c.node)
		if fmt.Sprint(got) != c.want || err != c.err {
			t.Errorf("Children(%q) = %v, %v; want %s, %v", c.node, got, err, c.want, c.err)
		}
	}
	var empty IndexBuilder
	if got, err := empty.Build().Children(context.Background(), ""); got != nil || err != ErrUnknownName {
		t.Errorf("Children of the root of an empty index = %v, %v; want ErrUnknownName", got, err)
	}
}

func TestIndexInstancesHelpLabels(t *testing.T) {
	x := testIndex()
	ctx := context.Background()
	insts, err := x.Instances(ctx, loadDom)
	if err != nil || fmt.Sprint(insts) != "[{1 1 minute} {5 5 minute} {15 15 minute}]" {
		t.Errorf("Instances = %v, %v", insts, err)
	}
	insts[0].Name = "changed"
	if again, _ := x.Instances(ctx, loadDom); again[0].Name != "1 minute" {
		t.Errorf("Instances shares its slice: %v", again)
	}
	if _, err := x.Instances(ctx, pmapi.NewInDom(60, 3)); err != ErrUnknownInDom {
		t.Errorf("Instances of an unknown domain: %v, want ErrUnknownInDom", err)
	}

	help := []struct {
		target HelpTarget
		long   bool
		want   string
		err    error
	}{
		{HelpTarget{PMID: loadID, InDom: pmapi.InDomNull}, false, "load average", nil},
		{HelpTarget{PMID: loadID, InDom: pmapi.InDomNull}, true, "1, 5 and 15 minute load average", nil},
		{HelpTarget{PMID: cpuID, InDom: pmapi.InDomNull}, false, "user time", nil},
		{HelpTarget{PMID: cpuID, InDom: pmapi.InDomNull}, true, "", ErrNoHelp}, // added empty
		{HelpTarget{InDom: loadDom}, false, "load averages", nil},
		{HelpTarget{PMID: loadID, InDom: loadDom}, false, "load averages", nil}, // the PMID does not matter
		{HelpTarget{InDom: loadDom}, true, "", ErrNoHelp},
		{HelpTarget{PMID: aliasID, InDom: pmapi.InDomNull}, false, "", ErrNoHelp},
	}
	for _, c := range help {
		got, err := x.HelpText(ctx, c.target, c.long)
		if got != c.want || err != c.err {
			t.Errorf("HelpText(%+v, long %v) = %q, %v; want %q, %v", c.target, c.long, got, err, c.want, c.err)
		}
	}

	labels := []struct {
		typ   LabelType
		ident uint32
		want  string
	}{
		{LabelDomain, 60, `[{-1 [{agent "proc" 0}]}]`}, // the later sets
		{LabelCluster, uint32(cpuID), `[{-1 [{c 1 0}]}]`},
		{LabelCluster, uint32(pmapi.NewPMID(60, 0, 999)), `[{-1 [{c 1 0}]}]`}, // any item of the cluster
		{LabelCluster, uint32(pmapi.NewPMID(60, 1, 20)), `[]`},
		{LabelItem, uint32(cpuID), `[]`},
		{LabelContext, 0xffffffff, `[]`},
	}
	for _, c := range labels {
		got, err := x.Labels(ctx, c.typ, c.ident)
		if err != nil || fmt.Sprint(got) != c.want {
			t.Errorf("Labels(%d, %#x) = %v, %v; want %s", c.typ, c.ident, got, err, c.want)
		}
	}
}

func TestNameTree(t *testing.T) {
	cases := []struct {
		name  string
		names []string
		want  map[string]string // node -> children
	}{
		{"nested", []string{"a.b.c", "a.b.d", "a.e", "f"}, map[string]string{
			"": "[{a false} {f true}]", "a": "[{b false} {e true}]", "a.b": "[{c true} {d true}]",
			"a.b.c": "[]", "a.x": "[]", "x": "[]",
		}},
		{"sorted whatever the order", []string{"z.y", "a.c", "a.b", "m"}, map[string]string{
			"": "[{a false} {m true} {z false}]", "a": "[{b true} {c true}]", "z": "[{y true}]",
		}},
		{"repeated names count once", []string{"a.b", "a.b", "a.c", "a.b"}, map[string]string{
			"": "[{a false}]", "a": "[{b true} {c true}]",
		}},
		// A namespace no pmcd serves, but archives and snapshots may
		// hold: a name that is also a node. It is a leaf with children.
		{"leaf and node", []string{"a.b.c", "a.b"}, map[string]string{
			"": "[{a false}]", "a": "[{b true}]", "a.b": "[{c true}]",
		}},
		{"empty", nil, map[string]string{"": "[]"}},
	}
	for _, c := range cases {
		tree := NewNameTree(c.names)
		for node, want := range c.want {
			if got := fmt.Sprint(tree.Children(node)); got != want {
				t.Errorf("%s: Children(%q) = %s, want %s", c.name, node, got, want)
			}
		}
	}
}

// A builder gives one index per Build: what it is given afterwards goes
// into the next, never into one already built.
func TestIndexBuilderBuild(t *testing.T) {
	var b IndexBuilder
	b.AddName("a.b", 1)
	first := b.Build()
	b.AddName("c.d", 2)
	second := b.Build()
	if got := first.Names(); !reflect.DeepEqual(got, []string{"a.b"}) {
		t.Errorf("first index: %q", got)
	}
	if got := second.Names(); !reflect.DeepEqual(got, []string{"c.d"}) {
		t.Errorf("second index: %q", got)
	}
}

// Many readers may share an index, including its first Children, which
// makes the tree.
func TestIndexConcurrentChildren(t *testing.T) {
	x := testIndex()
	done := make(chan string)
	for range 8 {
		go func() {
			kids, _ := x.Children(context.Background(), "kernel.all")
			done <- fmt.Sprint(kids)
		}()
	}
	for range 8 {
		if got := <-done; got != "[{cpu false} {load true}]" {
			t.Errorf("Children = %s", got)
		}
	}
}
