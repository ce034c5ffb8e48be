package lsp

import (
	"strings"

	"go.lsp.dev/protocol"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// Values offered inside mkconst()/novalue() and rescale().
var (
	typeValues = []string{"32", "u32", "64", "u64", "float", "double"}
	semValues  = []string{"counter", "instant", "discrete"}
	// unitsValues are common pmParseUnitsStr spellings.
	unitsValues = []string{"count", "byte", "Kbyte", "Mbyte", "Gbyte", "Tbyte", "nanosec", "microsec", "millisec",
		"sec", "min", "hour", "count/sec", "byte/sec", "Kbyte/sec", "Mbyte/sec", "millisec/sec", "/sec", "count x 10^3",
		"count x 10^6"}
	// unitsValuesPCP7 are PCP 7.2's extra units.
	unitsValuesPCP7 = []string{"temperature (C)", "temperature (F)", "temperature (K)", "voltage (V)", "voltage (mV)",
		"current (A)", "current (mA)", "power (kW)", "power (W)", "power (mW)"}
)

// specCompletion completes inside the arguments of mkconst, novalue and
// rescale: spec keys, their values and units strings. ok is false when the
// cursor is elsewhere (metric names are completed then).
func specCompletion(a *snapshot, def *grammar.Definition, off int) (items []protocol.CompletionItem, ok bool) {
	idx := a.file.ExprIndex(def, off)
	if idx < 0 {
		return nil, false
	}
	var stack callStack
	var prev, prev2 grammar.Token
	var inString *grammar.Token
	for _, t := range def.Tokens() {
		if t.Kind == grammar.TokEOS || t.Offset() >= idx {
			break
		}
		if t.End() >= idx && (t.Kind == grammar.TokString && t.End() > idx || t.Kind == grammar.TokError && strings.HasPrefix(t.Text(def.Expr), `"`)) {
			tt := t
			inString = &tt // the cursor is inside this string
			break
		}
		stack = stack.push(t, def.Expr)
		prev2, prev = prev, t
	}
	var fn string
	arg := 0
	if n := len(stack); n > 0 {
		fn, arg = stack[n-1].fn, stack[n-1].arg
	}
	extraUnits := a.release().Has(pcpver.ExtraUnits)
	if inString != nil {
		// The text typed so far inside the quotes is replaced.
		start := a.file.ExprPos(def, inString.Offset()) + 1
		rg := spanRange(a.file, start, off)
		if fn == "rescale" && arg == 1 || prev.Kind == grammar.TokAssign && prev2.Kind == grammar.TokUnits {
			values := unitsValues
			if extraUnits {
				values = append(append([]string{}, values...), unitsValuesPCP7...)
			}
			return valueItems(values, protocol.CompletionItemKindUnit, "units", rg), true
		}
		return nil, true // some other string: nothing to offer
	}
	if fn != "mkconst" && fn != "novalue" {
		return nil, false
	}
	if prev.Kind == grammar.TokAssign {
		rg := spanRange(a.file, off, off)
		switch prev2.Kind {
		case grammar.TokType:
			return valueItems(typeValues, protocol.CompletionItemKindEnumMember, "type", rg), true
		case grammar.TokSemantics:
			return valueItems(semValues, protocol.CompletionItemKindEnumMember, "semantics", rg), true
		case grammar.TokUnits:
			return valueItems(quoteAll(unitsValues), protocol.CompletionItemKindUnit, "units", rg), true
		}
		return nil, true
	}
	// A key is due after "mkconst(N," or "novalue(" or any ",".
	if prev.Kind != grammar.TokComma && !(fn == "novalue" && prev.Kind == grammar.TokLParen) {
		return nil, fn == "mkconst" && arg > 0
	}
	start := wordStart(a.file, off)
	rg := spanRange(a.file, start, off)
	keys := []struct{ key, snippet, doc string }{
		{"type", "type=${1|32,u32,64,u64,float,double|}", "the constant's data type"},
		{"semantics", "semantics=${1|counter,instant,discrete|}", "counter, instant or discrete"},
		{"units", `units="$1"`, "units, as pmParseUnitsStr reads them"},
	}
	if a.release().Has(pcpver.MetaSpec) {
		keys = append(keys, struct{ key, snippet, doc string }{"meta", "meta=$1", "copy the metadata of a metric (PCP 6.2.2+)"})
	}
	if a.release().Has(pcpver.IndomSpec) {
		keys = append(keys, struct{ key, snippet, doc string }{"indom", "indom=$1", "an instance domain N.M (PCP 7.1+)"})
	}
	for _, k := range keys {
		items = append(items, protocol.CompletionItem{Label: k.key + "=", Kind: protocol.CompletionItemKindProperty,
			Detail: protocol.NewOptional(fn + " " + k.key), Documentation: protocol.String(k.doc),
			InsertTextFormat: protocol.InsertTextFormatSnippet, TextEdit: &protocol.TextEdit{Range: rg, NewText: k.snippet}})
	}
	return items, true
}

func valueItems(values []string, kind protocol.CompletionItemKind, what string, rg protocol.Range) []protocol.CompletionItem {
	items := make([]protocol.CompletionItem, 0, len(values))
	for _, v := range values {
		items = append(items, protocol.CompletionItem{Label: v, Kind: kind, Detail: protocol.NewOptional(what),
			TextEdit: &protocol.TextEdit{Range: rg, NewText: v}})
	}
	return items
}

func quoteAll(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = `"` + v + `"`
	}
	return out
}
