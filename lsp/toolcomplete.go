package lsp

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/htop"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/pmconfig"
)

// toolAsk is what completion offers at a position of a pmrep, pcp-dstat
// or pcp-htop file.
type toolAsk int

const (
	askConfig  toolAsk = iota // not a tool file: a derived config's completion
	askItems                  // the tool's own words (keys, units, colours), nothing else
	askFormula                // an expression: a derived config's completion
	askMetric                 // a metric name: metric names (and the tool's words given)
)

// specWordDocs say what each of pmconfig's spec words does to a metric.
var specWordDocs = map[string]string{
	"label":     "the column's heading",
	"instances": "the instances to report: names or regular expressions, comma-separated",
	"unit":      "the unit to report values in, as pmParseUnitsStr reads it",
	"type":      "raw: the raw value of a counter, no rate conversion",
	"width":     "the column's width",
	"precision": "the decimal places of a value",
	"limit":     "pmrep ignores it (limit_filter filters values)",
	"formula":   "a derived metric expression, registered under the metric's name",
}

// toolCompletion is what a position of a tool's file offers: the ask,
// and the items of the tool's own words (for askItems the whole answer,
// for askMetric what goes with the metric names).
func toolCompletion(ctx context.Context, d *snapshot, off int) (toolAsk, []protocol.CompletionItem) {
	if len(d.res.Files) == 0 {
		return askConfig, nil
	}
	f := d.res.Files[0]
	if doc := f.ToolDoc(); doc != nil {
		return pmconfigCompletion(ctx, d, doc, off)
	}
	if hf := f.HtopFile(); hf != nil {
		return htopCompletion(d, hf, off)
	}
	return askConfig, nil
}

// pmconfigCompletion completes in a pmrep or pcp-dstat file: option keys
// in [options], spec words after "key.", units after "key.unit =",
// instances of the spec's metric after "key.instances =", metric names
// where a metric is named, and the expression of a formula.
func pmconfigCompletion(ctx context.Context, d *snapshot, doc *pmconfig.Doc, off int) (toolAsk, []protocol.CompletionItem) {
	spot, ok := toolSpotAt(d.file.Text, off, "=:", true)
	if !ok {
		return askItems, nil
	}
	section := ""
	if s := doc.INI.SectionAt(off); s != nil {
		section = s.Name
	}
	words := pmconfig.SpecWords
	if doc.Tool == pmconfig.Dstat {
		words = pmconfig.DstatSpecWords(doc.Version)
	}
	base, word, dotted := cutKey(spot.key)
	options := slices.Sorted(maps.Keys(pmconfig.OptionKeys(doc.Version)))
	if spot.inKey {
		start := spot.keyStart + len(spot.key) - len(word)
		switch {
		case doc.Tool == pmconfig.Pmrep && section == "options":
			return askItems, keyItems(d, options, "pmrep option", nil, start, off, spot.delimited)
		case dotted && !strings.Contains(word, ".") && (doc.Tool == pmconfig.Dstat || doc.INI.SectionAt(off).Get(base) != nil):
			// A column's or a declared metric's spec (a dotted name of
			// no declared key is a compact line's metric).
			return askItems, keyItems(d, words, doc.Tool.String()+" spec of "+base, specWordDocs, start, off, spot.delimited)
		case doc.Tool == pmconfig.Dstat:
			if dotted {
				return askItems, nil // more than one dot: pcp-dstat fails
			}
			return askItems, keyItems(d, words, "pcp-dstat plugin default", specWordDocs, start, off, spot.delimited)
		case !dotted:
			// An option a metricset overrides, or a compact line's metric.
			return askMetric, keyItems(d, options, "pmrep option", nil, start, off, spot.delimited)
		}
		return askMetric, nil // a compact line's metric
	}
	typed := string(d.file.Text.Slice(spot.valueStart, off))
	rg := spanRange(d.file, spot.valueStart, off)
	switch {
	case section == "options" && spot.key == "derived", dotted && word == "formula":
		return askFormula, nil
	case doc.Tool == pmconfig.Dstat && !dotted && !slices.Contains(words, spot.key):
		return askFormula, nil // a column: its value is its expression
	case dotted && word == "unit":
		return askItems, valueItems(withPrefix(unitsFor(d.release()), typed), protocol.CompletionItemKindUnit, "unit", rg)
	case dotted && word == "type" && doc.Tool == pmconfig.Pmrep:
		return askItems, valueItems(withPrefix([]string{"raw"}, typed), protocol.CompletionItemKindEnumMember, "type", rg)
	case dotted && word == "instances":
		return askItems, specInstances(ctx, d, doc, section, base, typed, rg)
	case doc.Tool == pmconfig.Pmrep && !dotted && section != "options" && !slices.Contains(options, spot.key):
		return askMetric, nil // "key = metric": the metric of a verbose spec
	}
	return askItems, nil
}

// htopCompletion completes in a pcp-htop file: the keys of its kind, the
// attributes after "X.", colours after "X.color =", and the expression
// of a metric.
func htopCompletion(d *snapshot, hf *htop.File, off int) (toolAsk, []protocol.CompletionItem) {
	spot, ok := toolSpotAt(d.file.Text, off, "=", false)
	if !ok || hf.SectionAt(off) == nil {
		return askItems, nil
	}
	keys, attrs := hf.Rules.Keys(hf.Kind)
	base, word, dotted := cutKey(spot.key)
	if spot.inKey {
		start := spot.keyStart + len(spot.key) - len(word)
		if dotted {
			return askItems, keyItems(d, attrs, "pcp-htop "+hf.Kind.String()+" attribute of "+base, nil, start, off, spot.delimited)
		}
		return askItems, keyItems(d, keys, "pcp-htop "+hf.Kind.String()+" key", nil, start, off, spot.delimited)
	}
	typed := string(d.file.Text.Slice(spot.valueStart, off))
	rg := spanRange(d.file, spot.valueStart, off)
	switch {
	case word == "metric" && (dotted || hf.Kind == htop.Column):
		return askFormula, nil
	case word == "color" && dotted && hf.Kind == htop.Meter:
		return askItems, valueItems(withPrefix(htop.MeterColors, typed), protocol.CompletionItemKindColor, "pcp-htop colour", rg)
	}
	return askItems, nil
}

// cutKey splits a key at its first dot, as pmconfig, pcp-dstat and
// pcp-htop do: "util.unit" is util, unit, true.
func cutKey(key string) (base, word string, dotted bool) {
	base, word, dotted = strings.Cut(key, ".")
	if !dotted {
		return "", key, false
	}
	return base, word, true
}

// withPrefix are the words that start with what is typed.
func withPrefix(words []string, typed string) []string {
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, typed) {
			out = append(out, w)
		}
	}
	return out
}

// keyItems offer the keys that start with the word typed in file bytes
// [start, off); on a
// line without its delimiter yet, choosing one writes " = " after it.
func keyItems(d *snapshot, keys []string, detail string, docs map[string]string, start, off int, delimited bool) []protocol.CompletionItem {
	rg := spanRange(d.file, start, off)
	keys = withPrefix(keys, string(d.file.Text.Slice(start, off)))
	items := make([]protocol.CompletionItem, 0, len(keys))
	for _, k := range keys {
		it := protocol.CompletionItem{Label: k, Kind: protocol.CompletionItemKindProperty, Detail: protocol.NewOptional(detail),
			TextEdit: &protocol.TextEdit{Range: rg, NewText: k}}
		if doc := docs[k]; doc != "" {
			it.Documentation = protocol.String(doc)
		}
		if !delimited {
			it.InsertTextFormat = protocol.InsertTextFormatSnippet
			it.TextEdit = &protocol.TextEdit{Range: rg, NewText: k + " = $0"}
		}
		items = append(items, it)
	}
	return items
}

// unitsFor are the units strings offered in release v.
func unitsFor(v pcpver.Version) []string {
	if !v.Has(pcpver.ExtraUnits) {
		return unitsValues
	}
	return append(append([]string{}, unitsValues...), unitsValuesPCP7...)
}

// specInstances are the instances of the metric of the spec key in a
// section that start with what is typed, for its instances line.
func specInstances(ctx context.Context, d *snapshot, doc *pmconfig.Doc, section, key, typed string, rg protocol.Range) []protocol.CompletionItem {
	src := d.source()
	if src == nil {
		return nil
	}
	for _, sp := range doc.Specs {
		if sp.Section.Name == section && sp.Key == key {
			items := instanceItems(ctx, src, sp.Metric, rg, func(s string) string { return s })
			return slices.DeleteFunc(items, func(it protocol.CompletionItem) bool { return !strings.HasPrefix(it.Label, typed) })
		}
	}
	return nil
}

// instanceItems are the instances of a metric's domain, each written by
// escape; none when the metric is unknown or has no instance domain.
func instanceItems(ctx context.Context, src pmclient.Source, metric string, rg protocol.Range, escape func(string) string) []protocol.CompletionItem {
	found, err := pmclient.Resolve(ctx, src, []string{metric})
	if err != nil || len(found) == 0 || found[0].Desc.InDom == pmapi.InDomNull {
		return nil
	}
	indom := found[0].Desc.InDom
	insts, err := src.Instances(ctx, indom)
	if err != nil {
		return nil
	}
	items := make([]protocol.CompletionItem, 0, len(insts))
	for _, in := range insts {
		items = append(items, protocol.CompletionItem{Label: in.Name, Kind: protocol.CompletionItemKindEnumMember,
			Detail:   protocol.NewOptional(fmt.Sprintf("instance %d of %s", in.ID, indom)),
			TextEdit: &protocol.TextEdit{Range: rg, NewText: escape(in.Name)}})
	}
	return items
}
