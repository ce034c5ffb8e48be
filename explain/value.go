package explain

import (
	"math"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Value is one instance's value of a node.
//
// A big expression has a Value per node, so it is 48 bytes: the
// evaluator's value (72 bytes, a field per kind of number, a string and
// a blob) is not kept beside its text, only its one number as a word
// (Raw gives the evaluator's value back).
type Value struct {
	// Inst is the instance identifier (pmclient.InNull for a singular
	// value); Instance its name ("" for a singular value, or when the
	// instance domain does not name it).
	Inst int32
	// Number reports a numeric value (Text is then a JSON number, unless
	// it is nan or inf).
	Number bool
	word   wordKind // what bits holds
	// Instance is the instance's name.
	Instance string
	// Text is the value as pminfo prints it (strings unquoted).
	Text string
	bits uint64
}

// wordKind is which of the evaluator's fields a Value's word is.
type wordKind uint8

const (
	wordNone   wordKind = iota // an aggregate (its bytes are not kept)
	wordString                 // a string: Text is it
	wordInt                    // evaluator.Value.Int
	wordUint                   // evaluator.Value.Uint
	wordFloat                  // evaluator.Value.Float, as its IEEE 754 bits
)

// value is the evaluator's value of instance inst whose numeric field
// of kind k holds bits (an observation's word, or a Value's); other
// kinds leave every field zero.
func (k wordKind) value(inst int32, bits uint64) evaluator.Value {
	v := evaluator.Value{Inst: inst}
	switch k {
	case wordInt:
		v.Int = int64(bits)
	case wordUint:
		v.Uint = bits
	case wordFloat:
		v.Float = math.Float64frombits(bits)
	}
	return v
}

// Singular reports a value with no instance.
func (v Value) Singular() bool { return v.Inst == pmclient.InNull }

// Raw is the value as the evaluator computed it: its number, or its
// string. An aggregate's bytes are not kept (Text shows them).
func (v Value) Raw() evaluator.Value {
	out := v.word.value(v.Inst, v.bits)
	if v.word == wordString {
		out.String = v.Text
	}
	return out
}

// makeValue is the Value of one of the evaluator's values of type t.
func makeValue(t pmapi.Type, v evaluator.Value) Value {
	out := Value{Inst: v.Inst}
	switch t {
	case pmapi.TypeString:
		out.word, out.Text = wordString, v.String
		return out
	case pmapi.Type32, pmapi.Type64:
		out.word, out.bits = wordInt, uint64(v.Int)
	case pmapi.TypeU32, pmapi.TypeU64:
		out.word, out.bits = wordUint, v.Uint
	case pmapi.TypeFloat, pmapi.TypeDouble:
		out.word, out.bits = wordFloat, math.Float64bits(v.Float)
	}
	out.Text = evaluator.Format(t, v)
	out.Number = t.Arithmetic()
	return out
}

// values are a node's Values from the evaluator's.
func (o observation) values(n *Node) []Value {
	t := pmapi.TypeDouble
	if n.Desc != nil {
		t = n.Desc.Type
	}
	out := make([]Value, o.len())
	for i := range out {
		out[i] = makeValue(t, o.value(i))
	}
	return out
}
