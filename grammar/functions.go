package grammar

import "github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"

// Function is one function of the derived-metric language: what the lexer
// reserves, and what hover, completion and signature help say about it.
// How each is evaluated and what metadata it gives belong to the checker
// and the evaluator; this is the one list of the language's functions.
type Function struct {
	Name string
	// Signature is the short form shown on hover and in completion.
	Signature string
	// Params are the parameters signature help lists, one by one.
	Params []string
	// Doc is one or two sentences in plain words.
	Doc string
	// Requires are the features a release needs for the word to be this
	// function (none: every release we model); elsewhere it is an
	// ordinary name.
	Requires []pcpver.Feature
	// Internal functions are libpcp's own (anon): never completed.
	Internal bool
	// History functions compare a value with the previous sample's, so
	// they have no value until a second sample.
	History bool
	// Arg is what the parentheses hold, as the syntax tree reads them.
	Arg ArgKind
}

// ArgKind is what a function's parentheses hold.
type ArgKind int

const (
	// ArgSyntax: a syntax of its own (rescale, matchinst, mkconst,
	// novalue).
	ArgSyntax ArgKind = iota
	// ArgName: one metric name (the aggregates, defined, anon).
	ArgName
	// ArgExpr: an expression (delta, rate, instant, scalar; before PCP
	// 6.3.0 libpcp takes a metric name only for the first three, which
	// the checker reports).
	ArgExpr
)

var functions = []Function{
	{Name: "avg", Signature: "avg(metric)", Params: []string{"metric"}, Arg: ArgName,
		Doc: "Average of the metric's values over its instances (float)."},
	{Name: "count", Signature: "count(metric)", Params: []string{"metric"}, Arg: ArgName,
		Doc: "Number of instances with a value (unsigned 32-bit, units count)."},
	{Name: "max", Signature: "max(metric)", Params: []string{"metric"}, Arg: ArgName,
		Doc: "Largest value over the metric's instances."},
	{Name: "min", Signature: "min(metric)", Params: []string{"metric"}, Arg: ArgName,
		Doc: "Smallest value over the metric's instances."},
	{Name: "sum", Signature: "sum(metric)", Params: []string{"metric"}, Arg: ArgName,
		Doc: "Sum over the metric's instances (a counter stays a counter)."},
	{Name: "delta", Signature: "delta(expr)", Params: []string{"expr"}, Arg: ArgExpr, History: true,
		Doc: "Difference from the previous sample, per instance; no value on the first sample. Before PCP 6.3.0, a metric name only."},
	{Name: "rate", Signature: "rate(expr)", Params: []string{"expr"}, Arg: ArgExpr, History: true,
		Doc: "Change per second from the previous sample, per instance (double); a time counter gives a utilisation. Before PCP 6.3.0, a metric name only."},
	{Name: "instant", Signature: "instant(expr)", Params: []string{"expr"}, Arg: ArgExpr,
		Doc: "The current value, with counter semantics turned into instantaneous. Before PCP 6.3.0, a metric name only."},
	{Name: "defined", Signature: "defined(metric)", Params: []string{"metric"}, Arg: ArgName,
		Doc: "1 when the metric exists where the expression is evaluated, else 0."},
	{Name: "scalar", Signature: "scalar(expr)", Params: []string{"expr"}, Arg: ArgExpr,
		Doc: "The first value, without an instance domain."},
	{Name: "anon", Signature: "anon(PM_TYPE_...)", Params: []string{"PM_TYPE_..."}, Internal: true, Arg: ArgName,
		Doc: "An anonymous metric that never has values (libpcp internal)."},
	{Name: "rescale", Signature: `rescale(expr, "units")`, Params: []string{"expr", `"units"`},
		Doc: "Converts values to other units of the same dimension (integers are rounded)."},
	{Name: "matchinst", Signature: "matchinst([!]/regex/, expr)", Params: []string{"[!]/regex/", "expr"},
		Doc: "Keeps the instances whose name (cut at the first space) matches the POSIX extended regular expression; ! inverts."},
	{Name: "mkconst", Signature: `mkconst(number, type=..., semantics=..., units="...")`,
		Params: []string{"number", "type=32|U32|64|U64|FLOAT|DOUBLE", "semantics=counter|instant|discrete", `units="..."`, "meta=metric", "indom=N.M"},
		Doc:    "A constant with metadata; type is 32, U32, 64, U64, FLOAT or DOUBLE; semantics counter, instant or discrete."},
	{Name: "novalue", Signature: "novalue(type=..., ...)", Requires: []pcpver.Feature{pcpver.Novalue},
		Params: []string{"type=...", "semantics=...", `units="..."`, "meta=metric", "indom=N.M"},
		Doc:    "A ternary branch with no value (PCP 6.2.2+)."},
}

// Functions lists the language's functions in a fixed order.
func Functions() []Function { return functions }

// LookupFunction returns the function of that name.
func LookupFunction(name string) (Function, bool) {
	for _, f := range functions {
		if f.Name == name {
			return f, true
		}
	}
	return Function{}, false
}

// reservedBeforeParen reports whether libpcp's lexer of release v reads
// word as a keyword when "(" follows it: a function, or meta (the spec
// keyword of mkconst and novalue, reserved from the same release as
// novalue).
func reservedBeforeParen(word string, v pcpver.Version) bool {
	if word == "meta" {
		return v.Has(pcpver.Novalue)
	}
	f, ok := LookupFunction(word)
	if !ok {
		return false
	}
	for _, need := range f.Requires {
		if !v.Has(need) {
			return false
		}
	}
	return true
}

// NeedsHistory reports whether an expression calls a History function
// anywhere, so that its first sample has no value.
func NeedsHistory(tree Node) bool {
	found := false
	Walk(tree, func(n Node) bool {
		if c, ok := n.(*Call); ok {
			if f, _ := LookupFunction(c.Func); f.History {
				found = true
			}
		}
		return !found
	})
	return found
}
