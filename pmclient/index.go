package pmclient

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// Index is a source's metadata held in memory: the namespace (names to
// PMIDs and back, and its tree of nodes), descriptors, instance domains,
// help text and labels. Sources that read all their metadata at once
// (archives, snapshots) build one with an IndexBuilder and answer
// Source's metadata requests from it; embedding *Index gives a source
// LookupNames, NamesOf, Children, Descs, Instances, HelpText, Labels,
// AllNames and Names, and it overrides those it answers otherwise (an
// archive's instance domains change over time).
//
// An Index never changes once built, and is safe for concurrent use.
type Index struct {
	byName map[string]pmapi.PMID
	names  map[pmapi.PMID][]string // each PMID's names, in the order added
	order  []string                // every name once, in the order added
	descs  map[pmapi.PMID]pmapi.Desc
	indoms map[pmapi.InDom][]Instance
	help   map[helpKey]string
	labels map[labelKey][]LabelSet

	treeOnce sync.Once
	tree     *NameTree // made on the first Children
}

// IndexBuilder collects metadata into an Index. Later additions for the
// same key replace earlier ones, as a later record in an archive does.
// The zero value is ready to use; Build ends its use.
type IndexBuilder struct {
	x *Index
}

func (b *IndexBuilder) index() *Index {
	if b.x == nil {
		b.x = &Index{byName: map[string]pmapi.PMID{}, names: map[pmapi.PMID][]string{},
			descs: map[pmapi.PMID]pmapi.Desc{}, indoms: map[pmapi.InDom][]Instance{},
			help: map[helpKey]string{}, labels: map[labelKey][]LabelSet{}}
	}
	return b.x
}

// AddDesc records a metric's descriptor.
func (b *IndexBuilder) AddDesc(d pmapi.Desc) { b.index().descs[d.PMID] = d }

// AddName binds a name to a PMID: a name bound again moves to the later
// PMID, and a PMID keeps each of its names once.
func (b *IndexBuilder) AddName(name string, pmid pmapi.PMID) {
	x := b.index()
	old, seen := x.byName[name]
	if seen && old == pmid {
		return
	}
	if !seen {
		x.order = append(x.order, name)
	}
	x.byName[name] = pmid
	if !slices.Contains(x.names[pmid], name) {
		x.names[pmid] = append(x.names[pmid], name)
	}
}

// AddInstances records an instance domain's members, in the order given.
func (b *IndexBuilder) AddInstances(indom pmapi.InDom, insts []Instance) {
	b.index().indoms[indom] = insts
}

// AddHelp records one-line (long false) or long help text; empty text is
// no text, and adds nothing.
func (b *IndexBuilder) AddHelp(target HelpTarget, long bool, text string) {
	if text != "" {
		b.index().help[helpKey{target.key(), long}] = text
	}
}

// AddLabels records the label sets of one level of the hierarchy (ident
// as LabelIdent gives it; a cluster's item bits are ignored).
func (b *IndexBuilder) AddLabels(typ LabelType, ident uint32, sets []LabelSet) {
	b.index().labels[newLabelKey(typ, ident)] = sets
}

// Build returns the Index; the builder is empty again afterwards.
func (b *IndexBuilder) Build() *Index {
	x := b.index()
	b.x = nil
	return x
}

// key is the target as the index files it: an instance domain's help
// ignores the PMID.
func (t HelpTarget) key() HelpTarget {
	if t.InDom != pmapi.InDomNull {
		return HelpTarget{PMID: pmapi.PMIDNull, InDom: t.InDom}
	}
	return t
}

func newLabelKey(typ LabelType, ident uint32) labelKey {
	if typ == LabelCluster {
		ident &^= 0x3ff // the cluster level names a PMID without its item
	}
	return labelKey{typ, ident}
}

// LookupNames implements Source.
func (x *Index) LookupNames(_ context.Context, names []string) ([]pmapi.PMID, []error, error) {
	pmids, errs := lookupEach(x.byName, names, pmapi.PMIDNull, ErrUnknownName)
	return pmids, errs, nil
}

// NamesOf implements Source: a PMID's names in the order they were added.
func (x *Index) NamesOf(_ context.Context, pmids []pmapi.PMID) ([][]string, []error, error) {
	names := make([][]string, len(pmids))
	errs := make([]error, len(pmids))
	for i, p := range pmids {
		if ns := x.names[p]; len(ns) > 0 {
			names[i] = slices.Clone(ns)
		} else {
			errs[i] = ErrUnknownPMID
		}
	}
	return names, errs, nil
}

// Descs implements Source.
func (x *Index) Descs(_ context.Context, pmids []pmapi.PMID) ([]pmapi.Desc, []error, error) {
	descs, errs := lookupEach(x.descs, pmids, pmapi.Desc{}, ErrUnknownPMID)
	return descs, errs, nil
}

// lookupEach answers a batch of keys from m: each key's value, or absent
// and errAbsent for a key m lacks.
func lookupEach[K comparable, V any](m map[K]V, keys []K, absent V, errAbsent error) ([]V, []error) {
	vals := make([]V, len(keys))
	errs := make([]error, len(keys))
	for i, k := range keys {
		if v, ok := m[k]; ok {
			vals[i] = v
		} else {
			vals[i], errs[i] = absent, errAbsent
		}
	}
	return vals, errs
}

// Children implements Source: a node's children sorted by name, none for
// a metric, ErrUnknownName for a name that is neither.
func (x *Index) Children(_ context.Context, name string) ([]Child, error) {
	x.treeOnce.Do(func() { x.tree = NewNameTree(x.order) })
	if kids := x.tree.Children(name); len(kids) > 0 {
		return kids, nil
	}
	if _, leaf := x.byName[name]; leaf {
		return nil, nil
	}
	return nil, ErrUnknownName
}

// Instances implements Source with the members recorded for the domain.
func (x *Index) Instances(_ context.Context, indom pmapi.InDom) ([]Instance, error) {
	insts, ok := x.indoms[indom]
	if !ok {
		return nil, ErrUnknownInDom
	}
	return slices.Clone(insts), nil
}

// HelpText implements Source: ErrNoHelp when there is no such text.
func (x *Index) HelpText(_ context.Context, target HelpTarget, long bool) (string, error) {
	if text, ok := x.help[helpKey{target.key(), long}]; ok {
		return text, nil
	}
	return "", ErrNoHelp
}

// Labels implements Labeler: no sets and no error for a level without
// labels.
func (x *Index) Labels(_ context.Context, typ LabelType, ident uint32) ([]LabelSet, error) {
	return x.labels[newLabelKey(typ, ident)], nil
}

// Names lists every name once, in the order added.
func (x *Index) Names() []string { return slices.Clone(x.order) }

// AllNames implements NameLister with Names.
func (x *Index) AllNames(context.Context) ([]string, error) { return x.Names(), nil }

// NameTree is a metric namespace as a tree: each node's children, from
// the full names of its metrics. It never changes once made.
type NameTree struct {
	children map[string][]Child // node ("" is the root) -> children sorted by name
}

// NewNameTree makes the tree of a list of metric names. A node is a leaf
// (Child.Leaf) when a name ends there; in a namespace whose names are
// consistent, none go on below a leaf.
func NewNameTree(names []string) *NameTree {
	leaf := map[string]map[string]bool{} // node -> child -> a name ends there
	for _, n := range names {
		parent := ""
		for rest := n; ; {
			comp, more, deeper := strings.Cut(rest, ".")
			kids := leaf[parent]
			if kids == nil {
				kids = map[string]bool{}
				leaf[parent] = kids
			}
			kids[comp] = kids[comp] || !deeper
			if !deeper {
				break
			}
			// The node's full name is a prefix of n: slicing shares n.
			parent = n[:len(n)-len(more)-1]
			rest = more
		}
	}
	t := &NameTree{children: make(map[string][]Child, len(leaf))}
	for node, kids := range leaf {
		list := make([]Child, 0, len(kids))
		for name, isLeaf := range kids {
			list = append(list, Child{Name: name, Leaf: isLeaf})
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		t.children[node] = list
	}
	return t
}

// Children lists a node's children ("" is the root), sorted by name; none
// for a leaf or a name not in the tree. The list is shared: callers must
// not change it.
func (t *NameTree) Children(node string) []Child { return t.children[node] }
