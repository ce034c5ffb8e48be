package checker

import (
	"cmp"
	"context"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Refs says which derived metrics name which metrics in their
// expressions, so an edit rechecks the metrics that use what it changed.
// It is immutable: a base index from a whole check and the metrics
// changed since, layered over it.
type Refs struct {
	base    map[string][]string // operand name → metrics using it
	changed map[string][]string // metric → its operands now (nil: gone)
}

// maxChangedRefs bounds the layer of changes before the index is built
// again from the report.
const maxChangedRefs = 512

// NewRefs indexes a report's metrics.
func NewRefs(rep *Report) *Refs {
	base := map[string][]string{}
	for m := range rep.Metrics.Values() {
		for _, op := range metricOperands(m) {
			base[op] = append(base[op], m.Def.Name)
		}
	}
	return &Refs{base: base, changed: map[string][]string{}}
}

// users are the metrics whose expressions name op.
func (r *Refs) users(op string) []string {
	var out []string
	for _, m := range r.base[op] {
		if _, ok := r.changed[m]; !ok {
			out = append(out, m)
		}
	}
	for m, ops := range r.changed {
		for _, o := range ops {
			if o == op {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// metricOperands are the names a metric's expression looks up.
func metricOperands(m *Metric) []string {
	tree, err := m.Def.Tree()
	if err != nil {
		return nil
	}
	var out []string
	grammar.Walk(tree, func(n grammar.Node) bool {
		out = append(out, operandNames(n)...)
		return true
	})
	return out
}

// Recheck is Check of one file f that grammar.Reparse made from the file
// prev checked: it checks again only the definitions that changed and the
// metrics that use them (refs says which; nil builds it), and keeps the
// verdicts and findings of the others, which are prev's own values (the
// definitions around an edit are the earlier version's: positions hold no
// offsets), so its cost follows the change, not the file. ok is false
// when the change may reach further (findings that point at other lines,
// a #control line, a check of several files): call Check then. The
// findings equal Check's.
func Recheck(ctx context.Context, prev *Report, refs *Refs, f *grammar.File, src pmclient.Source, opts Options) (_ *Report, _ *Refs, ok bool, _ error) {
	if !recheckable(prev, f, opts) {
		return nil, nil, false, nil
	}
	if refs == nil {
		refs = NewRefs(prev)
	}
	r := &recheck{prev: prev, refs: refs, pf: prev.Files[0], f: f, made: map[string]bool{}}
	r.findChange()
	if !r.movable() {
		return nil, nil, false, nil
	}
	r.again = r.usersOfChange()
	if len(r.again) > maxChangedRefs {
		return nil, nil, false, nil
	}
	for _, w := range prev.pmdaWarned {
		if r.again[w.metric] {
			// The warning that a PMDA is missing is checked again: which
			// of its metrics is first may change, and the hints of all
			// the others name its line.
			return nil, nil, false, nil
		}
	}
	r.start(ctx, src, opts)
	if !r.spliceMetrics() || !r.redoUsers() {
		return nil, nil, false, nil
	}
	if err := r.checkFresh(ctx, src); err != nil {
		return nil, nil, false, err
	}
	if !r.keepFindings(opts) {
		return nil, nil, false, nil
	}
	r.rep.checked = len(r.fresh)
	return r.rep, r.nextRefs(), true, nil
}

// recheck is one Recheck's work: where the definitions changed, which
// metrics are checked again, and the report it makes.
type recheck struct {
	prev *Report
	refs *Refs
	pf   *grammar.File // the file prev checked
	f    *grammar.File // its new version
	// p definitions at the head and s at the tail are the same in both
	// versions: prev's own values, or (prefixShared, suffixShared false)
	// equal ones read again.
	p, s                       int
	prefixShared, suffixShared bool
	// dl is how many lines the change added (removed, when negative):
	// the tail's definitions, and their findings, are prev's moved by
	// dl lines.
	dl                     int32
	oldChanged, newChanged []*grammar.Definition
	// again are the names of the metrics checked again: the changed ones
	// and, transitively, those that use a changed name.
	again map[string]bool
	rep   *Report
	c     *checkRun
	fresh []*Metric       // the metrics made anew, to check
	made  map[string]bool // their names
}

// recheckable says prev's verdicts can be kept for f's unchanged lines:
// one file, the same release, path and option_novalue, and no finding
// that points at another line.
func recheckable(prev *Report, f *grammar.File, opts Options) bool {
	if prev == nil || len(prev.Files) != 1 || prev.Version != opts.Version {
		return false
	}
	pf := prev.Files[0]
	if (pf.OptionNovalue == nil) != (f.OptionNovalue == nil) || (pf.OptionNovalue != nil && *pf.OptionNovalue != *f.OptionNovalue) {
		return false
	}
	if pf.Path != f.Path {
		return false
	}
	return !prev.crossLine
}

// findChange finds the definitions before the change and after it:
// prev's own values when Reparse read only the changed line, equal ones
// when it read the whole text again (those after the change on lines
// moved by as many as it added or removed: an Enter keeps every verdict
// but the edited line's).
func (r *recheck) findChange() {
	pd, nd := r.pf.Definitions, r.f.Definitions
	p, s, prefixShared, suffixShared := 0, 0, true, true
	if from, oldTo, _, ok := r.f.ReplacedDefinitions(r.pf); ok {
		// Reparse says what it replaced: no pass over the lists.
		p, s = from, pd.Len()-oldTo
	} else if from, oldTo, _, dl, ok := r.f.MovedDefinitions(r.pf); ok {
		// and what it moved: copies of prev's, the same definitions
		// (sameDefinition) dl lines further.
		p, s, suffixShared, r.dl = from, pd.Len()-oldTo, false, dl
	} else {
		// (Versions parsed one after the other and checked once, as
		// when edits come faster than their analysis: the chunks the
		// lists still share are the same definitions, found without
		// reading each.)
		r.dl = lineDelta(r.pf, r.f)
		n := min(pd.Len(), nd.Len())
		p, s = nd.SharedEnds(pd)
		if r.dl != 0 {
			// A definition shared by pointer is on its line still, and
			// the definitions at the end moved by r.dl: none is theirs.
			s = 0
		}
		for ; p < n; p++ {
			if a, b := pd.At(p), nd.At(p); a != b {
				if !r.sameDefinition(a, b, 0) {
					break
				}
				prefixShared = false
			}
		}
		// The definitions found the same from the start may run into
		// those the lists share at their end.
		s = min(s, n-p)
		for ; s < n-p; s++ {
			a, b := pd.At(pd.Len()-1-s), nd.At(nd.Len()-1-s)
			if a == b {
				if r.dl != 0 {
					// On its line still: the lines the edits added or
					// removed are after it, and the definitions moved by
					// r.dl end here.
					break
				}
				continue
			}
			if !r.sameDefinition(a, b, r.dl) {
				break
			}
			suffixShared = false
		}
	}
	r.p, r.s, r.prefixShared, r.suffixShared = p, s, prefixShared, suffixShared
	r.oldChanged, r.newChanged = pd.Slice(p, pd.Len()-s), nd.Slice(p, nd.Len()-s)
}

// sameDefinition says whether b of the new file, read again, is a of
// prev's, dl lines further down, in the same state of libpcp's parser (a
// novalue() parsed before any mkconst(, or not: File.SpecZero).
func (r *recheck) sameDefinition(a, b *grammar.Definition, dl int32) bool {
	return sameDefinition(a, b, dl) && r.pf.SpecZero(a) == r.f.SpecZero(b)
}

// lineDelta is how many more lines f's text has than pf's.
func lineDelta(pf, f *grammar.File) int32 {
	if pf.Text == nil || f.Text == nil {
		return 0
	}
	return int32(f.Text.LineCount() - pf.Text.LineCount())
}

// movable says the findings after the change can be moved by r.dl lines
// as they are: none of them names a line of its own that the move would
// leave stale (a missing PMDA's hints name the line of its warning, a
// novalue() pair's finding the line of the parse libpcp kept).
func (r *recheck) movable() bool {
	if r.dl == 0 || r.s == 0 {
		return true
	}
	if r.pf.HasStaleTrees() || r.f.HasStaleTrees() {
		return false
	}
	from := r.pf.Definitions.At(r.pf.Definitions.Len() - r.s).Range.Start.Line
	for _, w := range r.prev.pmdaWarned {
		if int32(w.line) >= from {
			return false
		}
	}
	return true
}

// usersOfChange are the names of the changed definitions and,
// transitively, of the metrics that use them.
func (r *recheck) usersOfChange() map[string]bool {
	again := map[string]bool{}
	var queue []string
	for _, list := range [][]*grammar.Definition{r.oldChanged, r.newChanged} {
		for _, d := range list {
			if !again[d.Name] {
				again[d.Name] = true
				queue = append(queue, d.Name)
			}
		}
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, u := range r.refs.users(name) {
			if !again[u] {
				again[u] = true
				queue = append(queue, u)
			}
		}
	}
	return again
}

// start makes the report and the check run: ByName is the earlier
// check's with the names of the metrics made anew layered over it.
func (r *recheck) start(ctx context.Context, src pmclient.Source, opts Options) {
	prev, f := r.prev, r.f
	r.rep = &Report{Files: []*grammar.File{f}, ByName: prev.ByName.layered(),
		findings: map[*grammar.File]pvec.Vec[grammar.Diagnostic]{}, Source: src.Describe(), Version: opts.Version,
		suggested: prev.suggested}
	if r.rep.suggested == nil {
		r.rep.suggested = &suggestions{}
	}
	r.c = &checkRun{opts: opts, report: r.rep, descs: map[string]pmapi.Desc{}, known: map[string]bool{}, noDesc: map[string]bool{},
		checking: true, unknownAt: map[*grammar.Definition][]int{}, diags: map[*grammar.File][]grammar.Diagnostic{}}
	r.c.mapToNovalue = f.OptionNovalue != nil && *f.OptionNovalue && opts.Version.Has(pcpver.ControlLines)
	r.rep.mapsToNovalue = r.c.mapToNovalue
	r.c.topNames = topNamesOf(ctx, src)
	// The PMDAs reported missing stay where they were: the fresh metrics'
	// uses of them are hints pointing there (pmdaKept says when that is
	// what Check finds).
	r.c.pmdaReported = map[*grammar.File]map[string]pmdaWarning{f: maps.Clone(prev.pmdaWarned)}
	if r.c.pmdaReported[f] == nil {
		r.c.pmdaReported[f] = map[string]pmdaWarning{}
	}
	r.c.pmdaFresh = map[string][]*Metric{}
	for _, d := range r.oldChanged {
		// Still the earlier metric: the name is no longer registered (a
		// name has at most one registered definition: libpcp refuses a
		// second).
		if m, ok := r.rep.ByName.Lookup(d.Name); ok && m.Def == d {
			r.rep.ByName.remove(d.Name)
		}
	}
}

// metric makes a metric of d to check, under its name, at index k of the
// report's list.
func (r *recheck) metric(d *grammar.Definition, k int) *Metric {
	m := &Metric{Def: d, file: r.f}
	r.fresh = append(r.fresh, m)
	r.rep.ByName.set(d.Name, k)
	r.made[d.Name] = true
	return m
}

// spliceMetrics makes the report's metrics: prev's with those of the
// changed definitions replaced. A splice shares every chunk of prev's
// list the change does not touch. false: prev's metrics are not in the
// order of its definitions.
func (r *recheck) spliceMetrics() bool {
	pd, nd, s := r.pf.Definitions, r.f.Definitions, r.s
	// prev's metrics of the definitions before the change, and of those
	// after it (Metrics has one per registered definition, in order).
	k0, ok0 := metricIndex(r.prev.Metrics, pd, r.p)
	k1, ok1 := metricIndex(r.prev.Metrics, pd, pd.Len()-s)
	if !ok0 || !ok1 {
		return false
	}
	rep := r.rep
	var registered int
	for _, d := range r.newChanged {
		if d.Registered {
			registered++
		}
	}
	// The names after the change follow their metrics by the shift, not
	// one by one (MetricNames); the new ones are of the spliced list.
	rep.ByName.shift(k1, registered-(k1-k0))
	madeNew := make([]*Metric, 0, registered)
	for _, d := range r.newChanged {
		if d.Registered {
			madeNew = append(madeNew, r.metric(d, k0+len(madeNew)))
		}
	}
	rep.Metrics = r.prev.Metrics.Splice(k0, k1, madeNew)
	// Read again whole: prev's verdicts, for the new definitions. (The
	// definitions were compared one by one, so a copy of the metrics
	// around the change costs no more.)
	if !r.prefixShared && !r.moveMetrics(0, k0, pd.From(0), nd.From(0)) {
		return false
	}
	n := r.prev.Metrics.Len() - k1 // of the definitions after the change
	if !r.suffixShared && !r.moveMetrics(k0+len(madeNew), n, pd.From(pd.Len()-s), nd.From(nd.Len()-s)) {
		return false
	}
	rep.ByName.listed(rep.Metrics)
	return true
}

// moveMetrics points the report's n metrics from index from on, those of
// prev's definitions that olds reads, at the equal definitions read again
// in their places, which news reads: a copy of each metric whose
// definition is not the same value, in the metric's place, where its name
// finds it (MetricNames holds places). false: the metrics there are not
// olds'.
func (r *recheck) moveMetrics(from, n int, olds, news pvec.Cursor[*grammar.Definition]) bool {
	rep := r.rep
	if from+n > rep.Metrics.Len() {
		return false
	}
	ours, anyMoved := true, false
	metrics := rep.Metrics.Map(from, from+n, func(run []*Metric, whole bool) {
		copies := pvec.NewFresh[Metric](len(run), whole) // pvec.Map says why
		for i, m := range run {
			a, b, ok := nextRegistered(&olds, &news)
			if ours = ours && ok && m.Def == a; !ours {
				return
			}
			if a == b {
				continue
			}
			copied := copies.New()
			*copied = *m
			copied.Def = b
			run[i] = copied
			anyMoved = true
		}
	})
	if !ours {
		return false
	}
	if anyMoved {
		rep.Metrics = metrics
	}
	return true
}

// nextRegistered reads olds and news, two lists of the same length, to
// the next registered definition of olds and the one in its place in news
// (ok false: none is left).
func nextRegistered(olds, news *pvec.Cursor[*grammar.Definition]) (a, b *grammar.Definition, ok bool) {
	for olds.More() {
		if a, b = olds.Next(), news.Next(); a.Registered {
			return a, b, true
		}
	}
	return nil, nil, false
}

// redoUsers makes the metrics around the change that use a changed name
// anew, in their places.
func (r *recheck) redoUsers() bool {
	rep := r.rep
	var redone []metricAt
	for name := range r.again {
		m, ok := rep.ByName.Lookup(name)
		if !ok || r.made[name] {
			continue // gone, or made by spliceMetrics
		}
		at := m.Def.Range.Start
		k := rep.Metrics.Search(func(x *Metric) bool { return !x.Def.Range.Start.Before(at) })
		if k == rep.Metrics.Len() || rep.Metrics.At(k) != m {
			return false
		}
		redone = append(redone, metricAt{k, r.metric(m.Def, k)})
	}
	rep.Metrics = replaceMetrics(rep.Metrics, redone)
	rep.ByName.listed(rep.Metrics)
	return true
}

// checkFresh looks up what the fresh metrics name (the others keep their
// verdicts), checks and advises them, and adds the lookups to the
// earlier check's operands.
func (r *recheck) checkFresh(ctx context.Context, src pmclient.Source) error {
	var names []string
	seen := map[string]bool{}
	addName := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, m := range r.fresh {
		addName(m.Def.Name)
		for _, op := range metricOperands(m) {
			addName(op)
		}
	}
	if err := r.c.lookup(ctx, src, names); err != nil {
		return err
	}
	for i, m := range r.fresh {
		if i%cancelEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r.c.ensure(m)
	}
	r.c.adviseSome(ctx, src, r.fresh) // (and lets go of their file: Metric.release)
	if err := ctx.Err(); err != nil {
		return err // cancelled while advising: not complete
	}
	r.rep.Operands = maps.Clone(r.prev.Operands)
	if r.rep.Operands == nil {
		r.rep.Operands = make(map[string]pmapi.Desc, len(r.c.descs))
	}
	maps.Copy(r.rep.Operands, r.c.descs)
	return nil
}

// keepFindings makes the report's findings: the earlier ones outside
// what was checked again (in the same places), and the fresh ones.
// false: a fresh finding points at another line, or the cap needs
// stand-ins (Check makes them).
func (r *recheck) keepFindings(opts Options) bool {
	fresh := r.c.diags[r.f]
	for _, d := range fresh {
		if crossLine(d) {
			return false
		}
	}
	if !pmdaKept(r.prev.pmdaWarned, r.rep.ByName, r.fresh, r.c.pmdaFresh, r.prev.ByName, r.oldChanged) {
		return false
	}
	pd := r.pf.Definitions
	head, end := grammar.Pos{Line: math.MaxInt32}, grammar.Pos{Line: math.MaxInt32}
	if r.p < pd.Len() {
		head = pd.At(r.p).Range.Start
	}
	if r.s > 0 {
		end = pd.At(pd.Len() - r.s).Range.Start
	}
	sortFindings(fresh)
	out, removed := recheckedFindings(r.prev, r.pf, r.again, changedLines{head, end, r.dl}, fresh)
	if r.prev.counts != nil {
		r.rep.counts = r.prev.counts.after(removed, fresh)
	} else {
		r.rep.counts = countKinds(out.Values())
	}
	if r.c.omitted || (opts.MaxPerCode > 0 && grammar.OverCap(r.f, out.Collect(), opts.MaxPerCode, opts.Suppressed)) {
		return false
	}
	r.rep.findings[r.f] = out
	r.rep.pmdaWarned = r.c.pmdaReported[r.f]
	return true
}

// nextRefs is the index for the next Recheck, with the fresh metrics'
// operands layered over refs; it compacts the report's names.
func (r *recheck) nextRefs() *Refs {
	next := &Refs{base: r.refs.base, changed: make(map[string][]string, len(r.refs.changed)+len(r.again))}
	maps.Copy(next.changed, r.refs.changed)
	for _, d := range r.oldChanged {
		next.changed[d.Name] = nil
	}
	for _, m := range r.fresh {
		next.changed[m.Def.Name] = metricOperands(m)
	}
	if len(next.changed) > maxChangedRefs {
		next = NewRefs(r.rep)
	}
	r.rep.ByName = r.rep.ByName.compact()
	return next
}

// metricIndex is the index in metrics (one per registered definition of
// defs, in order) of the first metric of defs[i:], found by position; ok
// is false when metrics are not in that order.
func metricIndex(metrics pvec.Vec[*Metric], defs pvec.Vec[*grammar.Definition], i int) (int, bool) {
	if i >= defs.Len() {
		return metrics.Len(), true
	}
	at := defs.At(i).Range.Start
	k := metrics.Search(func(m *Metric) bool { return !m.Def.Range.Start.Before(at) })
	if k < metrics.Len() {
		// The metric found is of a registered definition at or after
		// defs[i], none of defs[i:] before it registered.
		for j := i; j < defs.Len(); j++ {
			if d := defs.At(j); d.Registered {
				return k, metrics.At(k).Def == d
			}
		}
	}
	return k, true
}

// metricAt is a metric to put at index k of a report's list.
type metricAt struct {
	k int
	m *Metric
}

// replaceMetrics is metrics with each of repl's put in its place: one
// splice for each run of indices less than a splice's cost apart, so that
// a few replacements copy a chunk each and many no more than the list.
func replaceMetrics(metrics pvec.Vec[*Metric], repl []metricAt) pvec.Vec[*Metric] {
	const near = 1024 // about what a splice of one element copies
	slices.SortFunc(repl, func(a, b metricAt) int { return cmp.Compare(a.k, b.k) })
	for i := 0; i < len(repl); {
		j := i + 1
		for j < len(repl) && repl[j].k-repl[j-1].k <= near {
			j++
		}
		from, to := repl[i].k, repl[j-1].k+1
		with := metrics.Slice(from, to)
		for _, r := range repl[i:j] {
			with[r.k-from] = r.m
		}
		metrics = metrics.Splice(from, to, with)
		i = j
	}
	return metrics
}

// crossLine says whether a finding depends on other definitions' places
// in a way Recheck does not follow (a stand-in for findings not listed,
// a cycle of derived metrics). A missing PMDA, reported once per file
// with hints pointing there from its other metrics, Recheck follows
// (pmdaKept).
func crossLine(d grammar.Diagnostic) bool {
	return d.More > 0 || (d.Code == codes.LibpcpCrash && strings.Contains(d.Message, "depends on itself")) || len(d.Related) > 0
}

// pmdaKept says whether the missing PMDAs' warnings Recheck kept (warned:
// the earlier check's, none of whose metrics it checked again) and those
// it made are where Check puts them: on the first use of each PMDA's
// metrics in check order, which is definition order but for a derived
// metric checked first by an earlier one that uses it. That holds when
// no fresh metric comes before a kept warning and could be checked first:
// one with a use of that PMDA, or one that uses other derived metrics
// (and may reach one with a use through them); and no definition gone
// from before it (gone, named in prevNames) used derived metrics: it may
// have been what had the warning's metric checked first. A PMDA without
// a kept warning must have its uses in one fresh metric: Recheck's order
// of several is not Check's.
func pmdaKept(warned map[string]pmdaWarning, byName MetricNames, fresh []*Metric, uses map[string][]*Metric, prevNames MetricNames, gone []*grammar.Definition) bool {
	for root, ms := range uses {
		if _, ok := warned[root]; !ok && slices.ContainsFunc(ms, func(m *Metric) bool { return m != ms[0] }) {
			return false
		}
	}
	for root, w := range warned {
		wm, ok := byName.Lookup(w.metric)
		if !ok {
			return false
		}
		at := wm.Def.Range.Start
		for _, m := range fresh {
			if !m.Def.Range.Start.Before(at) {
				continue
			}
			if slices.Contains(uses[root], m) {
				return false
			}
			if usesDerived(m.Def, byName) {
				return false
			}
		}
		for _, d := range gone {
			if d.Registered && d.Range.Start.Before(at) && usesDerived(d, prevNames) {
				return false
			}
		}
	}
	return true
}

// usesDerived says whether d's expression names a metric of names (or
// cannot be read).
func usesDerived(d *grammar.Definition, names MetricNames) bool {
	tree, err := d.Tree()
	if err != nil {
		return true
	}
	found := false
	grammar.Walk(tree, func(n grammar.Node) bool {
		for _, op := range operandNames(n) {
			if _, ok := names.Lookup(op); ok {
				found = true
			}
		}
		return !found
	})
	return found
}

// recheckedFindings are prev's findings of pf outside the changed lines
// (ch) and outside the definitions checked again, those after the change
// moved by the lines it added or removed, merged with the fresh ones
// (sorted). The definitions checked again are usually only the changed
// ones, inside the lines: prev's findings are then the two runs around
// them, found by binary search, with no look-up of each finding's
// definition (a file of 100,000 findings paid 100,000 of those on every
// keystroke), and the fresh ones go between them: a splice of the chunks
// the change touches, and of those after it when it moved them.
func recheckedFindings(prev *Report, pf *grammar.File, again map[string]bool, ch changedLines, fresh []grammar.Diagnostic) (_ pvec.Vec[grammar.Diagnostic], removed []grammar.Diagnostic) {
	diags := prev.findings[pf]
	i, j, ok := changedRun(prev, diags, again, ch.head, ch.end)
	if !ok {
		// A definition checked again lies elsewhere: its findings are
		// found by their definitions.
		var kept []grammar.Diagnostic
		mv := grammar.FindingMover{DL: ch.dl}
		for d := range diags.Values() {
			at := d.Range.Start
			switch def := pf.DefinitionAtPos(at); {
			case def != nil && def.Registered && again[def.Name]:
				removed = append(removed, d)
			case at.Before(ch.head):
				kept = append(kept, d)
			case !at.Before(ch.end):
				kept = append(kept, mv.Move(d))
			default:
				removed = append(removed, d)
			}
		}
		return pvec.Of(mergeFindings(kept, fresh)), removed
	}
	removed = diags.Slice(i, j)
	for _, d := range fresh {
		if !ch.holdsFresh(d.Range.Start) {
			return pvec.Of(mergeFindings(slices.Concat(diags.Slice(0, i), movedFindings(diags.Slice(j, diags.Len()), ch.dl)), fresh)), removed
		}
	}
	switch {
	case ch.dl != 0:
		// The fresh ones in place of the changed run, and one copy of
		// those after it, moved.
		mv := grammar.FindingMover{DL: ch.dl}
		spliced := diags.Splice(i, j, fresh)
		return spliced.Map(i+len(fresh), spliced.Len(), func(run []grammar.Diagnostic, _ bool) {
			for k := range run {
				run[k] = mv.Move(run[k])
			}
		}), removed
	case i == j && len(fresh) == 0:
		return diags, nil // nothing changed
	}
	return diags.Splice(i, j, fresh), removed
}

// changedRun is the run of diags (sorted, as a report's findings are) in
// the changed lines [head, end), when no definition checked again lies
// outside them (ok false otherwise).
func changedRun(prev *Report, diags pvec.Vec[grammar.Diagnostic], again map[string]bool, head, end grammar.Pos) (i, j int, ok bool) {
	for name := range again {
		if m, found := prev.ByName.Lookup(name); found && m.Def != nil {
			if at := m.Def.Range.Start; at.Before(head) || !at.Before(end) {
				return 0, 0, false
			}
		}
	}
	i = diags.Search(func(d grammar.Diagnostic) bool { return !d.Range.Start.Before(head) })
	j = max(i, diags.Search(func(d grammar.Diagnostic) bool { return !d.Range.Start.Before(end) }))
	return i, j, true
}

func sortFindings(diags []grammar.Diagnostic) {
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Range.Start.Before(diags[j].Range.Start) })
}

// mergeFindings merges two lists sorted by start offset.
func mergeFindings(a, b []grammar.Diagnostic) []grammar.Diagnostic {
	if len(b) == 0 {
		return a
	}
	out := make([]grammar.Diagnostic, 0, len(a)+len(b))
	i, k := 0, 0
	for i < len(a) || k < len(b) {
		if k == len(b) || (i < len(a) && !b[k].Range.Start.Before(a[i].Range.Start)) {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[k])
			k++
		}
	}
	return out
}

// adviseSome is advise for the given metrics only.
func (c *checkRun) adviseSome(ctx context.Context, src pmclient.Source, metrics []*Metric) {
	a := c.newAdvisor(ctx, src)
	for _, m := range metrics {
		a.advise(m)
		c.listHeld(m)
		m.release()
	}
}
