package analysis

import (
	"bytes"
	"context"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf"
)

// Reparse is Parse of one editor buffer, text, given prev: Parse's (or
// Reparse's) result for an earlier text of the same buffer. It reads
// again only the lines that changed when it can (grammar.Reparse), and
// its findings equal Parse's for text. reparsed says whether it could;
// otherwise it parsed text whole.
func Reparse(prev *Result, path string, text *grammar.Text, cfg Config, opts Options) (_ *Result, reparsed bool) {
	if prev == nil || len(prev.Files) != 1 || len(prev.groups) != 1 || len(prev.groups[0]) != 1 || len(prev.IOErrors) > 0 ||
		prev.Config.Version.Version != cfg.Version.Version || prev.Files[0].File.Path != path || opts.Separate || bufferProblem(text) ||
		prev.opts.Incremental != opts.Incremental || prev.Config.MaxPerCode != cfg.MaxPerCode || !sameControl(prev.Config.DerivedControl, cfg.DerivedControl) ||
		prev.Files[0].doc != nil || prev.Files[0].File.Text == nil || isToolText(path, text, opts) {
		// A tool's file (toolconf) is read whole: its values run over
		// lines, and a section's keys decide how each line reads.
		return Parse([]Input{BufferText(path, text)}, cfg, opts), false
	}
	old := prev.Files[0].File.Text
	var ch grammar.TextChange
	if c := opts.Change; c != nil && c.Start >= 0 && c.Start <= c.OldEnd && c.OldEnd <= old.Len() && c.Start <= c.NewEnd &&
		c.NewEnd <= text.Len() && text.Len()-c.NewEnd == old.Len()-c.OldEnd {
		ch = *c
	} else {
		ch = changeBetween(old.Bytes(), text.Bytes())
	}
	read := cfg.readOptions(opts)
	read.Memo = opts.Memo
	f, reparsed := grammar.Reparse(prev.Files[0].File, text, ch, read)
	r := &Result{Config: cfg, SourceName: NoSource, opts: opts, groups: [][]int{{0}}}
	r.Files = []File{{File: f, syntax: f.Diagnostics, marks: marksAfter(prev.Files[0].marks, old, text, ch), sortedBase: prev.Files[0].Findings}}
	r.finish()
	return r, reparsed
}

// marksAfter counts directiveMark in text, made of old (which has marks
// of them, or -1 when not counted) by ch: the count changes only in the
// lines the change touches, since the mark has no newline.
func marksAfter(marks int, old, text *grammar.Text, ch grammar.TextChange) int {
	if marks < 0 {
		return -1
	}
	lines := func(t *grammar.Text, start, end int) []byte {
		_, from := t.LineOf(start)
		last, _ := t.LineOf(end)
		return t.Slice(from, t.LineStart(last+1))
	}
	return marks - bytes.Count(lines(old, ch.Start, ch.OldEnd), directiveMark) + bytes.Count(lines(text, ch.Start, ch.NewEnd), directiveMark)
}

// changeBetween is the one change that makes b of a: the bytes between
// their common prefix and common suffix (compared a block at a time:
// memequal's speed, a fraction of a millisecond for megabytes).
func changeBetween(a, b []byte) grammar.TextChange {
	const block = 4096
	n := min(len(a), len(b))
	p := 0
	for p+block <= n && bytes.Equal(a[p:p+block], b[p:p+block]) {
		p += block
	}
	for p < n && a[p] == b[p] {
		p++
	}
	s := 0
	for s+block <= n-p && bytes.Equal(a[len(a)-s-block:len(a)-s], b[len(b)-s-block:len(b)-s]) {
		s += block
	}
	for s < n-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return grammar.TextChange{Start: p, OldEnd: len(a) - s, NewEnd: len(b) - s}
}

// Recheck is Check of parsed, a Reparse of the buffer prev is Check's (or
// Recheck's) result of, under the same configuration: it checks again
// only the definitions that changed and those that use them
// (checker.Recheck) when it can, and Check's findings otherwise; they
// are Check's either way.
func Recheck(ctx context.Context, prev, parsed *Result) *Result {
	src := parsed.Config.Source
	if src == nil || prev == nil || prev.Report == nil || !prev.Checked || prev.CheckErr != nil || prev.Config.Source != src || parsed.Files[0].doc != nil ||
		prev.Config.InDoms != parsed.Config.InDoms || prev.Config.MaxPerCode != parsed.Config.MaxPerCode || prev.opts.Incremental != parsed.opts.Incremental || len(parsed.Files) != 1 || len(parsed.groups) != 1 || len(parsed.groups[0]) != 1 {
		return Check(ctx, parsed)
	}
	gen := sourceGeneration(src)
	if gen != prev.generation {
		// The metadata changed (pmcd reported a PMDA added or restarted):
		// any earlier verdict may be stale.
		return Check(ctx, parsed)
	}
	f := parsed.Files[0].File
	opts := checker.Options{Version: parsed.Config.Version.Version, InDoms: parsed.Config.InDoms, MaxPerCode: parsed.Config.capAsYouGo(parsed.opts)}
	if opts.MaxPerCode > 0 {
		opts.Suppressed = suppressedIfMarked(parsed.Files)
	}
	rep, refs, ok, err := checker.Recheck(ctx, prev.Report, prev.refs.load(), f, src, opts)
	switch {
	case err != nil:
		failed := *parsed // the syntax findings, nothing half-checked
		failed.CheckErr = err
		return &failed
	case !ok:
		return Check(ctx, parsed)
	}
	r := *parsed
	r.Files = []File{parsed.Files[0]}
	r.Files[0].checked, r.Files[0].rep = rep.Findings(f), rep
	// The lists the checked findings and the syntax ones were made of,
	// known sorted.
	r.Files[0].sortedBase = Findings{a: parsed.Files[0].Findings.a, b: prev.Files[0].Findings.b}
	r.Checked, r.SourceName, r.Report, r.refs, r.generation = true, src.Describe(), rep, &refsCell{}, gen
	r.reports = []*checker.Report{rep}
	r.refs.p.Store(refs)
	r.finish()
	return &r
}

// isToolText says whether an editor's text of path is a tool's file
// (toolconf.Detect, or opts.Kind): its first lines decide, so the text
// is not made one slice for it.
func isToolText(path string, text *grammar.Text, opts Options) bool {
	head := text.Slice(0, min(text.Len(), 4<<10))
	if !toolconf.HeadDecides(head) {
		head = text.Slice(0, min(text.Len(), 64<<10))
	}
	in := Input{Path: path, Src: head, Kind: opts.Kind}
	return in.kind() != toolconf.Derived
}

// sameControl reports whether two $PCP_DERIVED_CONTROL settings are the
// same (both unset, or equal).
func sameControl(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
