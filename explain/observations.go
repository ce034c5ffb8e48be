package explain

import (
	"math"
	"slices"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// observation is what the evaluator reported for one node in one sample,
// made compact as it arrives: the evaluator's values (72 bytes each, a
// slice of its own per node: 17.5 MB of a 262,143-node tree's live heap
// while it was sampled) are not held. A value whose number fits a word
// (every numeric value the operators make) is kept as that word; a node's
// only value inline, more behind a pointer; a value that does not fit
// (a string, an aggregate, a source that fills several fields) keeps the
// node's values whole. Each value comes back exactly as it came (value),
// so what is made of them is what was made of the evaluator's. An error,
// rare, is behind the pointer too.
type observation struct {
	one  word        // the only value (kind wordAbsent when there is none, or more has them)
	more *moreValues // nil: no error, and no value or one word alone
}

// moreValues are a node's error and its values other than one word
// alone: words, or, when one of them does not fit a word, full (both
// nil: the values are the observation's one).
type moreValues struct {
	err   error
	words []word
	full  []evaluator.Value
}

// word is one of the evaluator's values with at most one of Int, Uint and
// Float set, and no string or blob.
type word struct {
	inst int32
	kind wordKind // wordInt, wordUint or wordFloat; wordAbsent for no value
	bits uint64
}

// wordAbsent marks an observation's one word unused.
const wordAbsent = wordNone

// newObservation keeps a node's values and error.
func newObservation(vals []evaluator.Value, err error) observation {
	var o observation
	if err != nil {
		o.more = &moreValues{err: err}
	}
	switch {
	case len(vals) == 0:
		return o
	case len(vals) == 1:
		if w, ok := wordOfValue(vals[0]); ok {
			o.one = w
			return o
		}
	}
	if o.more == nil {
		o.more = &moreValues{}
	}
	words := make([]word, 0, len(vals))
	for _, v := range vals {
		w, ok := wordOfValue(v)
		if !ok {
			o.more.full = slices.Clone(vals)
			return o
		}
		words = append(words, w)
	}
	o.more.words = words
	return o
}

// wordOfValue is v as a word, if it fits one.
func wordOfValue(v evaluator.Value) (word, bool) {
	if v.String != "" || v.Blob != nil {
		return word{}, false
	}
	fl := math.Float64bits(v.Float) // -0 is not 0 here
	switch {
	case v.Uint == 0 && fl == 0:
		return word{inst: v.Inst, kind: wordInt, bits: uint64(v.Int)}, true
	case v.Int == 0 && fl == 0:
		return word{inst: v.Inst, kind: wordUint, bits: v.Uint}, true
	case v.Int == 0 && v.Uint == 0:
		return word{inst: v.Inst, kind: wordFloat, bits: fl}, true
	}
	return word{}, false // several fields set
}

// err is the node's error.
func (o observation) err() error {
	if o.more == nil {
		return nil
	}
	return o.more.err
}

// len is how many values the node had.
func (o observation) len() int {
	switch {
	case o.more != nil && o.more.full != nil:
		return len(o.more.full)
	case o.more != nil && o.more.words != nil:
		return len(o.more.words)
	case o.one.kind != wordAbsent:
		return 1
	}
	return 0
}

// value is the node's i-th value, as the evaluator gave it.
func (o observation) value(i int) evaluator.Value {
	w := o.one
	switch {
	case o.more != nil && o.more.full != nil:
		return o.more.full[i]
	case o.more != nil && o.more.words != nil:
		w = o.more.words[i]
	}
	return w.kind.value(w.inst, w.bits)
}

// observed is an observation with its node.
type observed struct {
	syn grammar.Node
	observation
}

// observations are one metric's observations in one sample, in the order
// the evaluator made them: it reports a node after its operands, left to
// right, which is the explanation tree's post-order, so the tree takes them
// in one merge. A list, not a map keyed by node: at 40 bytes an
// observation with its node (its value inside, when it has one), where a
// map's entry cost about 130 (a power-of-two table of 56-byte slots), a
// third of a big tree's live heap while it was explained.
// It is kept in blocks of observationBlock, so that it never copies itself
// as it grows and a merge that consumes it lets each block go once taken.
type observations [][]observed

// observationBlock is the observations a block holds: a block of a big
// tree's list is 40 KB; a small expression's, growing by append, is its
// size.
const observationBlock = 1024

// add appends an observation.
func (o observations) add(ob observed) observations {
	if len(o) == 0 || len(o[len(o)-1]) == observationBlock {
		o = append(o, nil)
	}
	o[len(o)-1] = append(o[len(o)-1], ob)
	return o
}

// values counts the values of every observation.
func (o observations) values() int {
	n := 0
	for _, block := range o {
		for _, ob := range block {
			n += ob.len()
		}
	}
	return n
}

// index maps each node to its observation (the last, if one was observed
// twice), for the few lookups the diagnosis makes of the sample before.
func (o observations) index() map[grammar.Node]observation {
	m := map[grammar.Node]observation{}
	for _, block := range o {
		for _, ob := range block {
			m[ob.syn] = ob.observation
		}
	}
	return m
}

// merge gives the nodes of a tree their observations as the tree is
// built, in post-order: set is called with each observed node. With
// consume, an observation is dropped from the list once its node has it
// (Explain's own recorder, used once), so the evaluator's values go as the
// explanation's come, while the nodes are made.
type merge struct {
	o        observations
	blk, obs int // the next observation: o[blk][obs]
	consume  bool
	set      func(*Node, observation)
}

// visit takes the next observation if it is the node's. Nodes come in
// post-order; one libpcp did not evaluate has none and is passed.
func (m *merge) visit(n *Node) {
	if m.blk == len(m.o) || m.o[m.blk][m.obs].syn != n.Syntax() {
		return
	}
	block := m.o[m.blk]
	m.set(n, block[m.obs].observation)
	if m.consume {
		block[m.obs] = observed{}
	}
	if m.obs++; m.obs == len(block) {
		if m.consume {
			m.o[m.blk] = nil
		}
		m.blk, m.obs = m.blk+1, 0
	}
}

// finish matches any observations the merge did not take (an evaluator
// that reported in another order, or a node twice) through an index, the
// later observation winning as a map's would. It reports whether the
// merge took them all.
func (m *merge) finish(root *Node) (inOrder bool) {
	if m.blk == len(m.o) {
		return true
	}
	rest := append(observations{m.o[m.blk][m.obs:]}, m.o[m.blk+1:]...).index()
	walk(root, func(n *Node) {
		if ob, ok := rest[n.Syntax()]; ok {
			m.set(n, ob)
		}
	})
	return false
}
