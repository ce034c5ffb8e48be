package lsp

import (
	"slices"

	"go.lsp.dev/protocol"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/htop"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/pmconfig"
)

// iniSection is a section of a tool's INI file as its outline shows it:
// the header and the entries, each at its file bytes.
type iniSection struct {
	name             string
	headOff, headEnd int
	entries          []iniEntry
}

type iniEntry struct {
	key            string
	keyOff, keyEnd int
	value          string
	start, end     int
}

// toolSymbols outlines a pmrep, pcp-dstat or pcp-htop file: each section,
// in it each spec (a metric, a column, a meter's metric: the entries
// whose key is KEY or starts with "KEY."), in it the spec's lines. ok is
// false for a derived config.
func toolSymbols(d *snapshot) (syms protocol.DocumentSymbolSlice, ok bool) {
	if len(d.res.Files) == 0 {
		return nil, false
	}
	f := d.res.Files[0]
	var sections []iniSection
	// metricOf names the metric of a spec key in a section, when the
	// tool's reading knows it (pmrep's "key = metric").
	metricOf := func(section, key string) string { return "" }
	switch {
	case f.ToolDoc() != nil:
		doc := f.ToolDoc()
		sections = pmconfigSections(doc.INI)
		metrics := map[[2]string]string{}
		for _, sp := range doc.Specs {
			metrics[[2]string{sp.Section.Name, sp.Key}] = sp.Metric
		}
		metricOf = func(section, key string) string { return metrics[[2]string{section, key}] }
	case f.HtopFile() != nil:
		sections = htopSections(f.HtopFile())
	default:
		return nil, false
	}
	for _, s := range sections {
		syms = append(syms, sectionSymbol(d.file, s, metricOf))
	}
	return syms, true
}

// sectionSymbol is a section's symbol, its specs inside.
func sectionSymbol(f *grammar.File, s iniSection, metricOf func(section, key string) string) protocol.DocumentSymbol {
	at := func(off, end int) protocol.Range { return spanRange(f, off, end) }
	end := s.headEnd
	var specs []protocol.DocumentSymbol
	index := map[string]int{}
	for _, e := range s.entries {
		end = max(end, e.end)
		base, word, dotted := cutKey(e.key)
		value := withoutCR(e.value)
		line := protocol.DocumentSymbol{Name: e.key, Detail: &value, Kind: protocol.SymbolKindProperty,
			Range: at(e.start, e.end), SelectionRange: at(e.keyOff, e.keyEnd)}
		if !dotted {
			base = e.key
		}
		i, seen := index[base]
		if !seen {
			i = len(specs)
			index[base] = i
			detail := metricOf(s.name, base)
			spec := protocol.DocumentSymbol{Name: base, Detail: &detail, Kind: protocol.SymbolKindVariable,
				Range: at(e.start, e.end), SelectionRange: at(e.keyOff, e.keyOff+len(base))}
			specs = append(specs, spec)
		}
		sp := &specs[i]
		sp.Range.End = at(e.start, e.end).End
		if *sp.Detail == "" && (!dotted || word == "metric") {
			// The line naming the spec's metric or expression ("key =
			// metric", a column's formula, a meter's X.metric) is its
			// detail when the tool's reading names none.
			sp.Detail = &value
		}
		if !dotted && !seen {
			continue
		}
		line.Name = word
		sp.Children = append(sp.Children, line)
	}
	for i := range specs {
		if *specs[i].Detail == "" {
			specs[i].Detail = nil
		}
	}
	return protocol.DocumentSymbol{Name: "[" + s.name + "]", Kind: protocol.SymbolKindNamespace,
		Range: at(s.headOff, end), SelectionRange: at(s.headOff, s.headEnd), Children: specs}
}

// pmconfigSections are the sections of a pmrep or pcp-dstat file in file
// order ([DEFAULT] where it is).
func pmconfigSections(ini *pmconfig.INI) []iniSection {
	all := append([]*pmconfig.Section{}, ini.Sections...)
	if ini.Default != nil {
		all = append(all, ini.Default)
	}
	out := make([]iniSection, 0, len(all))
	for _, s := range all {
		is := iniSection{name: s.Name, headOff: s.HeadOff, headEnd: s.HeadEnd}
		for _, e := range s.Entries {
			is.entries = append(is.entries, iniEntry{key: e.Key, keyOff: e.KeyOff, keyEnd: e.KeyEnd, value: e.Value.Text, start: e.Start, end: e.Value.End})
		}
		out = append(out, is)
	}
	slices.SortFunc(out, func(a, b iniSection) int { return a.headOff - b.headOff })
	return out
}

// htopSections are the sections of a pcp-htop file htop accepts.
func htopSections(hf *htop.File) []iniSection {
	out := make([]iniSection, 0, len(hf.Sections))
	for _, s := range hf.Sections {
		if !s.Accepted {
			continue
		}
		is := iniSection{name: s.Name, headOff: s.HeadOff, headEnd: s.HeadEnd}
		for _, e := range s.Entries {
			is.entries = append(is.entries, iniEntry{key: e.Key, keyOff: e.KeyOff, keyEnd: e.KeyEnd(), value: e.Value, start: e.KeyOff, end: e.ValueEnd()})
		}
		out = append(out, is)
	}
	return out
}
