package cli

import (
	"fmt"
	"iter"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/htop"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/pmconfig"
)

// describedSpec is one metric spec of a pmrep file as describe shows it:
// where it is, its metric or formula, the metadata, the unit pmrep will
// show it in, or why it has none.
type describedSpec struct {
	File      string `json:"file"`
	Section   string `json:"section"`
	Key       string `json:"key"`
	Metric    string `json:"metric"`
	Formula   string `json:"formula,omitempty"`
	Status    string `json:"status"`
	Type      string `json:"type,omitempty"`
	Semantics string `json:"semantics,omitempty"`
	Units     string `json:"units,omitempty"`
	InDom     string `json:"indom,omitempty"`
	ShownIn   string `json:"shownIn,omitempty"`
	Problem   string `json:"problem,omitempty"`
	desc      *pmapi.Desc
}

// The statuses of a spec's metric that are not a formula's verdict.
const (
	specValid   = "valid"
	specSubtree = "subtree"
	specUnknown = "unknown"
)

// describedSpecs are the specs of every pmrep file of res, in file
// order.
func describedSpecs(res *analysis.Result) []describedSpec {
	var out []describedSpec
	for _, f := range res.Files {
		doc := f.ToolDoc()
		if doc == nil {
			continue
		}
		for _, sm := range f.ToolSpecs() {
			out = append(out, describeSpec(f.File.Path, doc, sm, f.CheckReport()))
		}
	}
	return out
}

func describeSpec(path string, doc *pmconfig.Doc, sm pmconfig.SpecMetric, rep *checker.Report) describedSpec {
	sp := sm.Spec
	ds := describedSpec{File: path, Section: sp.Section.Name, Key: sp.Key, Metric: sp.Metric}
	if f, ok := sp.Fields["formula"]; ok {
		ds.Formula = strings.Join(strings.Fields(f.Text), " ")
	}
	switch {
	case sm.Leaf:
		d := sm.Desc
		ds.Status, ds.desc = specValid, &d
		ds.Type, ds.Semantics, ds.Units, ds.InDom = d.Type.String(), d.Sem.String(), d.Units.String(), d.InDom.String()
		ds.ShownIn = doc.ShownUnit(sm)
		if m, ok := rep.ByName.Lookup(sp.Metric); ok && sp.Formula != nil && m.Status == checker.Masked {
			ds.Problem = "its formula is never registered: pmrep finds the metric of this name first"
		}
	case sm.Known:
		ds.Status, ds.Problem = specSubtree, "a namespace subtree: pmrep shows every metric under it"
	default:
		ds.Status, ds.Problem = specUnknown, "no metric of this name: pmrep stops"
		if m, ok := rep.ByName.Lookup(sp.Metric); ok && sp.Formula != nil {
			ds.Status, ds.Problem = m.Status.String(), problemText(m)
		}
	}
	return ds
}

// text is the spec's line of describe's text output.
func (ds describedSpec) text() string {
	head := fmt.Sprintf("%s [%s] %s", ds.File, ds.Section, ds.Key)
	switch {
	case ds.Formula != "":
		head += ": " + ds.Metric + " = " + ds.Formula
	case ds.Metric != ds.Key: // a compact spec's key is its metric
		head += ": " + ds.Metric
	}
	if ds.desc == nil {
		return fmt.Sprintf("%s: %s: %s", head, ds.Status, ds.Problem)
	}
	shown := fmt.Sprintf("shown in %q", ds.ShownIn)
	if ds.ShownIn == "" {
		shown = "shown without a unit"
	}
	line := fmt.Sprintf("%s: %s; %s", head, checker.DescText(*ds.desc), shown)
	if ds.Problem != "" {
		line += "; " + ds.Problem
	}
	return line
}

// ownMetrics are the report's metrics that describe lists one by one:
// those of derived configs, pcp-dstat's columns and pcp-htop's
// expressions; not a pmrep file's formulas (its specs show them) nor
// the derived configs libpcp loads on its own before a tool's.
func ownMetrics(res *analysis.Result) iter.Seq[*checker.Metric] {
	skip := map[*grammar.Definition]bool{}
	seen := map[*grammar.File]bool{}
	for _, f := range res.Files {
		if doc := f.ToolDoc(); doc != nil && doc.Tool == pmconfig.Pmrep {
			for _, d := range f.File.Definitions.All() {
				skip[d] = true
			}
		}
		for _, a := range f.AutoDerived() {
			if !seen[a] {
				seen[a] = true
				for _, d := range a.Definitions.All() {
					skip[d] = true
				}
			}
		}
	}
	reports := []*checker.Report{res.Report}
	if res.Report == nil {
		// Several config paths (a tool's file is one of its own): each
		// one's metrics, in the order of the files.
		reports = nil
		for _, f := range res.Files {
			if rep := f.CheckReport(); rep != nil && (len(reports) == 0 || reports[len(reports)-1] != rep) {
				reports = append(reports, rep)
			}
		}
	}
	return func(yield func(*checker.Metric) bool) {
		for _, rep := range reports {
			for m := range rep.Metrics.Values() {
				if !skip[m.Def] && !yield(m) {
					return
				}
			}
		}
	}
}

// toolShown says how the tool shows a valid metric of res: a pcp-dstat
// column by its plugin (pmconfig.Doc.DstatShown), a pcp-htop expression
// by its meter or column (htopShown); "" for others.
func toolShown(res *analysis.Result) func(*checker.Metric) string {
	var docs []*pmconfig.Doc
	var htops []*htop.File
	for _, f := range res.Files {
		if doc := f.ToolDoc(); doc != nil && doc.Tool == pmconfig.Dstat {
			docs = append(docs, doc)
		}
		if hf := f.HtopFile(); hf != nil {
			htops = append(htops, hf)
		}
	}
	return func(m *checker.Metric) string {
		for _, doc := range docs {
			if how := doc.DstatShown(m.Def, m.Desc); how != "" {
				return "pcp-dstat shows " + how
			}
		}
		for _, hf := range htops {
			if d, ok := hf.DisplayOf(m.Def.Name); ok {
				return htopShown(d, m.Desc, hf.Rules.ColumnOptions)
			}
		}
		return ""
	}
}
