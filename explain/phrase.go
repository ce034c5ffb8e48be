package explain

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// maxQuoted bounds the text of a subexpression quoted inside a phrase.
const maxQuoted = 40

// quote is a node's source text in backquotes, shortened to maxQuoted.
func quote(n *Node) string { return "`" + abbreviate(n.Text(), maxQuoted) + "`" }

// abbreviate keeps at most max bytes of s: its start and end around "…",
// cut on UTF-8 boundaries.
func abbreviate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head, tail := max*2/3, max/3-1
	for head > 0 && !isRuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !isRuneStart(s[start]) {
		start++
	}
	return s[:head] + "…" + s[start:]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// phrasing is what wording a node reads beyond the node: the report (is
// a metric name a derived one) and the check's entries for the nodes
// metadata.special keeps (a ternary decided at bind, a scaled operand).
type phrasing struct {
	rep   *checker.Report
	nodes checker.Nodes
}

// phrase says in plain words what a node computes, then why it has no
// values when it points at a node below, or why it is not evaluated.
func (a *phrasing) phrase(n *Node) string {
	p := a.what(n)
	switch {
	case n.NotEvaluated() != "":
		p += "; " + n.NotEvaluated()
	case n.EmptyAt() != nil && n.Err() != nil:
		p += "; fails because " + quote(n.EmptyAt()) + " fails"
	case n.EmptyAt() != nil:
		p += "; no values because " + quote(n.EmptyAt()) + " has none"
	}
	if note := a.emptyOperandNote(n); note != "" {
		p += "; " + note
	}
	return p
}

// emptyOperandNote tells what the aggregates make of an operand without
// values: they still give one value.
func (a *phrasing) emptyOperandNote(n *Node) string {
	c, ok := n.Syntax().(*grammar.Call)
	if !ok || len(n.Children()) != 1 || !n.Evaluated() || n.numValues() == 0 {
		return ""
	}
	arg := n.Children()[0]
	if !arg.Empty() {
		return ""
	}
	switch c.Func {
	case "count":
		return quote(arg) + " has no values, so the count is 0"
	case "sum", "avg":
		return quote(arg) + " has no values, so the result is 0"
	case "min", "max":
		return quote(arg) + " has no values: libpcp repeats its last result (0 at first)"
	}
	return ""
}

// what is the node's own phrase.
func (a *phrasing) what(n *Node) string {
	kid := func(i int) string { return quote(n.Children()[i]) }
	switch syn := n.Syntax().(type) {
	case *grammar.Metric:
		what := "values of the metric `" + syn.Name + "`"
		if n.Desc() != nil && n.Desc().Sem == pmapi.SemCounter {
			what = "counts of the counter `" + syn.Name + "` (as fetched, not a rate)"
		}
		if syn.Inst != nil {
			return fmt.Sprintf("instance `%s` of the metric `%s`", syn.Inst.Name, syn.Name)
		}
		if _, derived := a.rep.ByName.Lookup(syn.Name); derived {
			return what + ", a derived metric of this config"
		}
		return what
	case *grammar.Number:
		return "the constant " + syn.Text
	case *grammar.Mkconst:
		return "the constant " + syn.Value.Text + " with the metadata given"
	case *grammar.Novalue:
		return "no value, by design"
	case *grammar.Call:
		return a.callPhrase(n, syn)
	case *grammar.Rescale:
		return fmt.Sprintf("%s converted to %q", kid(0), syn.Units)
	case *grammar.Matchinst:
		if syn.Invert {
			return fmt.Sprintf("the instances of %s whose names do not match `/%s/`", kid(0), syn.Pattern)
		}
		return fmt.Sprintf("the instances of %s whose names match `/%s/`", kid(0), syn.Pattern)
	case *grammar.Filter:
		return fmt.Sprintf("instance `%s` of %s", syn.Inst.Name, kid(0))
	case *grammar.Unary:
		if syn.Op == "!" {
			return "logical not of " + kid(0) + ": 1 where it is zero, else 0"
		}
		return "negation of " + kid(0)
	case *grammar.Binary:
		return a.binaryPhrase(n, syn)
	case *grammar.Ternary:
		if ni := a.nodes[syn]; ni != nil && ni.Bind != checker.BindBoth {
			branch := kid(1)
			if ni.Bind == checker.BindElse {
				branch = kid(2)
			}
			return fmt.Sprintf("always %s: the guard %s is decided when libpcp binds the metric", branch, kid(0))
		}
		return fmt.Sprintf("%s where %s is non-zero, else %s, instance by instance", kid(1), kid(0), kid(2))
	}
	return "a subexpression"
}

func (a *phrasing) callPhrase(n *Node, c *grammar.Call) string {
	var arg string
	if len(n.Children()) == 1 {
		arg = quote(n.Children()[0])
	}
	switch c.Func {
	case "sum":
		return "sum over the instances of " + arg
	case "avg":
		return "average over the instances of " + arg
	case "count":
		return "number of instances of " + arg + " that have a value"
	case "min":
		return "smallest value over the instances of " + arg
	case "max":
		return "largest value over the instances of " + arg
	case "delta":
		return "difference of " + arg + " since the previous sample"
	case "rate":
		if d := n.Children()[0].Desc(); d != nil && d.Sem == pmapi.SemCounter {
			if d.Units.DimTime == 1 && d.Units.DimSpace == 0 && d.Units.DimCount == 0 {
				return "rate per second of the time counter " + arg + " (time per second: a utilisation)"
			}
			return "rate per second of the counter " + arg
		}
		return "change per second of " + arg + " since the previous sample"
	case "instant":
		return "the current value of " + arg + ", as an instantaneous value"
	case "scalar":
		return "the first value of " + arg + " as a single value without instances"
	case "defined":
		name := ""
		if mt, ok := c.Arg.(*grammar.Metric); ok {
			name = mt.Name
		}
		return "1 if `" + name + "` is a metric when libpcp binds this one, else 0"
	case "anon":
		return "an anonymous metric: the type's placeholder, never a value"
	}
	return c.Func + "() of " + arg
}

var opWords = map[string]string{
	"+": "addition", "-": "subtraction", "*": "multiplication", "/": "division",
	"<": "comparison <", "<=": "comparison <=", "==": "comparison ==", ">=": "comparison >=",
	">": "comparison >", "!=": "comparison !=", "&&": "logical and", "||": "logical or",
}

// opVerbs join a single value with every instance of the other operand.
var opVerbs = map[string]string{"+": "plus", "-": "minus", "*": "times", "/": "divided by", "&&": "and", "||": "or"}

func (a *phrasing) binaryPhrase(n *Node, b *grammar.Binary) string {
	word := opWords[b.Op]
	l, r := n.Children()[0], n.Children()[1]
	lInst := l.Desc() != nil && l.Desc().InDom != pmapi.InDomNull
	rInst := r.Desc() != nil && r.Desc().InDom != pmapi.InDomNull
	verb, ok := opVerbs[b.Op]
	if !ok {
		verb = b.Op
	}
	var p string
	switch {
	case lInst && rInst:
		p = "instance-by-instance " + word
	case lInst:
		p = "every instance of " + quote(l) + " " + verb + " " + quote(r)
	case rInst:
		p = quote(l) + " " + verb + " every instance of " + quote(r)
	default:
		p = word
	}
	switch {
	case strings.HasPrefix(word, "comparison"):
		p += ": 1 where true, else 0"
	case word == "logical and":
		p += ": 1 where both are non-zero, else 0"
	case word == "logical or":
		p += ": 1 where either is non-zero, else 0"
	}
	for _, c := range n.Children() {
		if f := a.scaleFactor(c); f != "" {
			p += fmt.Sprintf(" (%s scaled by %s to match the other operand's units)", quote(c), f)
		}
	}
	return p
}

// scaleFactor is the factor libpcp applies to an operand to reconcile
// unit scales with its sibling ("" for none).
func (a *phrasing) scaleFactor(n *Node) string {
	ni := a.nodes[n.Syntax()]
	if ni == nil || ni.MulScale == 0 || ni.DivScale == 0 || ni.MulScale == ni.DivScale {
		return ""
	}
	if ni.DivScale == 1 {
		return strconv.FormatFloat(ni.MulScale, 'g', -1, 64)
	}
	if ni.MulScale == 1 {
		return "1/" + strconv.FormatFloat(ni.DivScale, 'g', -1, 64)
	}
	return strconv.FormatFloat(ni.MulScale/ni.DivScale, 'g', 6, 64)
}
