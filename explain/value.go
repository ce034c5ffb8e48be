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
	c, text, keep := compactValue(t, v)
	if !keep {
		text = formatValue(t, c)
	}
	return c.full(t, text)
}

// full is the Value of a flat value of type t whose text is text.
func (v value) full(t pmapi.Type, text string) Value {
	return Value{Inst: v.inst, word: v.word, bits: v.bits, Text: text, Number: t != pmapi.TypeString && t.Arithmetic()}
}

// compactValue is the flat form of one of the evaluator's values of type
// t, and its text when its word does not give it back (keep): a string,
// an aggregate, a type without a number. A number's text is formatted
// again from its word when asked (formatValue): Format reads only the
// field its type names, the one the word keeps.
func compactValue(t pmapi.Type, v evaluator.Value) (c value, text string, keep bool) {
	c = value{inst: v.Inst}
	switch t {
	case pmapi.TypeString:
		c.word = wordString
		return c, v.String, true
	case pmapi.Type32, pmapi.Type64:
		c.word, c.bits = wordInt, uint64(v.Int)
	case pmapi.TypeU32, pmapi.TypeU64:
		c.word, c.bits = wordUint, v.Uint
	case pmapi.TypeFloat, pmapi.TypeDouble:
		c.word, c.bits = wordFloat, math.Float64bits(v.Float)
	default:
		return c, evaluator.Format(t, v), true
	}
	return c, "", false
}

// formatValue is the text of a value whose word gives it back.
func formatValue(t pmapi.Type, v value) string {
	return evaluator.Format(t, v.word.value(v.inst, v.bits))
}
