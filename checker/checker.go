// Package checker tells what libpcp will do with every derived metric of a
// config before any tool loads it: binds operand names through a metadata
// source, runs libpcp's semantic checks in libpcp's order, infers the
// resulting metadata, and reports what libpcp would print, and more.
package checker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Report is the result for a set of files loaded as one config path.
type Report struct {
	Files []*grammar.File
	// Metrics are in definition order, registered definitions only: an
	// immutable list, so that Recheck's edit copies the chunks it touches
	// rather than every metric of the document.
	Metrics pvec.Vec[*Metric]
	ByName  MetricNames
	// findings are the checker's findings per file, sorted by position
	// (Findings): an immutable list, so that Recheck's edit copies the
	// chunks it touches, not 100,000 findings of a document with a
	// finding on each line.
	findings map[*grammar.File]pvec.Vec[grammar.Diagnostic]
	Source   string
	// Operands are the real metrics the check bound (name -> descriptor,
	// PMID included), so evaluating needs no second lookup. Read-only.
	Operands map[string]pmapi.Desc
	// Version is the release whose rules the check followed; evaluation
	// follows the same.
	Version pcpver.Version
	// mapsToNovalue: option_novalue was on (7.1.1+), binding unknown
	// operands as novalue() (BindDebug's warnings).
	mapsToNovalue bool

	nodes sync.Map // *Metric → Nodes: NodesOf's
	// suggested are the "did you mean" answers of this check and of the
	// checks of the document before it (Recheck passes them on).
	suggested *suggestions
	// crossLine says a finding depends on other definitions' places in
	// a way Recheck does not follow (crossLine): it then checks whole.
	crossLine bool
	// pmdaWarned are, for a report of one file, the warnings that a
	// PMDA is missing, by namespace root: the hints of its other
	// metrics point at them, and Recheck keeps them.
	pmdaWarned map[string]pmdaWarning
	// counts are the findings of its one file by kind, when it has one
	// file and no stand-in (OverCap).
	counts kindCounts
	// checked is how many metrics the check that made the report
	// checked: all of them for Check, the fresh ones for Recheck.
	checked int
}

// CheckedMetrics is how many metrics the check that made r checked: every
// registered definition for Check, those an edit touched (and their
// users) for Recheck. Tests hold incremental work to the edit with it.
func (r *Report) CheckedMetrics() int { return r.checked }

// Options tune a check.
type Options struct {
	// Version is the PCP release whose libpcp the check follows.
	Version pcpver.Version
	// InDoms are the equivalent instance domains (pmapi.ParseIndomConfig)
	// that PCP 6.0.4+ lets binary operators combine; nil for none. Older
	// releases have no equivalences.
	InDoms *pmapi.InDomEquivalence
	// FindingsOnly: the caller reads the findings and each metric's
	// status and descriptor, never its syntax tree, so each tree is
	// built a window at a time and dropped once its metric has been
	// checked and advised (check of a big config keeps memory to a small
	// multiple of the text). Report.NodesOf builds the tree again.
	FindingsOnly bool
	// MaxPerCode, when positive, lists at most that many findings of one
	// code in a file; the rest are counted in one stand-in finding
	// (grammar.Diagnostic.More) where the first of them is, one for each
	// severity of the code. A generated
	// config of 800,000 definitions with one finding each costs a few
	// hundred bytes a finding in memory and in the output; nobody reads
	// past the first screens of one repeated finding. 0 lists all.
	MaxPerCode int
	// Suppressed reports a finding a suppression comment turns off: it is
	// not counted against MaxPerCode (nil: none is).
	Suppressed func(*grammar.File, grammar.Diagnostic) bool
	// keepNodes keeps every metric's nodes as the check inferred them
	// (tests compare them with Report.NodesOf's).
	keepNodes bool
}

// Check binds and checks every registered definition of the files against
// the source, with one batched name lookup and one batched descriptor
// lookup for all operands.
func Check(ctx context.Context, files []*grammar.File, src pmclient.Source, opts Options) (*Report, error) {
	c := newCheckRun(ctx, files, src, opts)
	if !opts.FindingsOnly {
		// Every metric its own tree: an evaluator keeps state by node
		// (delta's previous values), which two metrics must not share
		// (their parses by shape they may).
		buildTrees(ctx, registered(files), nil, grammar.NewShapes(), runtime.NumCPU())
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	metrics, names := c.makeMetrics(files)
	var built <-chan int
	if opts.FindingsOnly {
		// Definitions of the same short text share one tree: the
		// trees are only checked, and dropped once checked. They are
		// built from here on, while the names are looked up.
		buildCtx, stop := context.WithCancel(ctx)
		defer stop() // a failed lookup leaves no builder behind
		built = buildAhead(buildCtx, metrics, grammar.NewTreeCache())
		var err error
		if names, err = c.wordsToLookUp(metrics, src); err != nil {
			return nil, err
		}
	}
	if err := c.lookup(ctx, src, names); err != nil {
		return nil, err
	}
	names = nil
	if err := c.checkAll(ctx, src, metrics, built); err != nil {
		return nil, err
	}
	c.report.checked = len(metrics)
	c.addStandIns()
	for f, diags := range c.diags {
		sort.SliceStable(diags, func(i, j int) bool { return diags[i].Range.Start.Before(diags[j].Range.Start) })
		c.report.findings[f] = pvec.Of(diags)
		if slices.ContainsFunc(diags, crossLine) {
			c.report.crossLine = true
		}
	}
	if len(files) == 1 {
		c.report.pmdaWarned = c.pmdaReported[files[0]]
		if !c.report.crossLine {
			c.report.counts = countKinds(slices.Values(c.diags[files[0]]))
		}
	}
	return c.report, nil
}

// newCheckRun starts a check of the files: an empty report, and the
// settings every metric binds under.
func newCheckRun(ctx context.Context, files []*grammar.File, src pmclient.Source, opts Options) *checkRun {
	c := &checkRun{
		opts:      opts,
		report:    &Report{Files: files, ByName: newMetricNamesFor(definitionCount(files)), findings: map[*grammar.File]pvec.Vec[grammar.Diagnostic]{}, Source: src.Describe(), Version: opts.Version, suggested: &suggestions{}},
		diags:     map[*grammar.File][]grammar.Diagnostic{},
		descs:     map[string]pmapi.Desc{},
		known:     map[string]bool{},
		noDesc:    map[string]bool{},
		unknownAt: map[*grammar.Definition][]int{},
	}
	// option_novalue is global in libpcp and read when metrics bind,
	// after every file has loaded: the last setting wins.
	for _, f := range files {
		if f.OptionNovalue != nil {
			c.mapToNovalue = *f.OptionNovalue && opts.Version.Has(pcpver.ControlLines)
		}
	}
	c.report.Operands, c.report.mapsToNovalue = c.descs, c.mapToNovalue
	c.topNames = topNamesOf(ctx, src)
	return c
}

// makeMetrics makes a metric of every registered definition, in order,
// and (unless FindingsOnly, whose trees are not built yet) lists the
// names to look up: the metrics' own, to find masking real metrics, and
// their operands.
func (c *checkRun) makeMetrics(files []*grammar.File) (metrics []*Metric, names []string) {
	metrics = make([]*Metric, 0, definitionCount(files)) // Report.Metrics, once all are made
	slab := metricSlab{left: definitionCount(files)}
	seen := map[string]bool{}
	addName := func(name string) {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	for _, f := range files {
		for _, d := range f.Definitions.All() {
			if !d.Registered {
				continue
			}
			m := slab.next()
			m.Def, m.file = d, f
			c.report.ByName.set(d.Name, len(metrics))
			metrics = append(metrics, m)
			if c.opts.FindingsOnly {
				continue
			}
			addName(d.Name)
			tree, err := d.Tree()
			if err != nil {
				continue
			}
			grammar.Walk(tree, func(n grammar.Node) bool {
				for _, name := range operandNames(n) {
					addName(name)
				}
				return true
			})
		}
	}
	c.report.Metrics = pvec.Of(metrics)
	c.report.ByName.listed(c.report.Metrics)
	return metrics, names
}

// wordsToLookUp are the names a FindingsOnly check looks up: the words of
// the expressions, already without repeats, in order (no second set of a
// million names). Only a name under one of the namespace's top-level
// nodes can be a metric: the others, a config's own names by the
// thousand (gen.m1 ... gen.m100000), are unknown without a round trip
// that carries them all. Only in a check of a whole config: the editor's
// checks look a few new names up at a time, the others answered from its
// cache, and an unknown name's lookup is how it notices a pmcd that went
// away (TestPmcdKilledAndRestarted). A source that cannot list its top
// level is asked for every name.
func (c *checkRun) wordsToLookUp(metrics []*Metric, src pmclient.Source) ([]string, error) {
	var keep func(string) bool
	top, err := c.topNames()
	switch {
	case top != nil:
		keep = underTop(top)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		// The source stopped answering: the lookup would wait as long
		// again.
		return nil, fmt.Errorf("listing the namespace of %s: %w", src.Describe(), err)
	}
	return wordsInOrder(metrics, keep), nil
}

// checkAll checks and advises each metric in definition order. Each is
// advised right after its check (advice reads only the metric's own
// nodes, and which names exist), so that its node metadata can go at
// once (Report.NodesOf infers it again when asked), and with it its tree
// (FindingsOnly): the trees of the next window of metrics (built) are
// built on all CPUs while the ones before are let go.
func (c *checkRun) checkAll(ctx context.Context, src pmclient.Source, metrics []*Metric, built <-chan int) error {
	c.checking = true
	adv := c.newAdvisor(ctx, src)
	builtTo := 0 // the trees of metrics[:builtTo] are built
	for i, m := range metrics {
		if i%cancelEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err // (buildAhead stops too)
			}
		}
		for built != nil && i >= builtTo {
			end, ok := <-built // the next window's trees
			if !ok {
				return ctx.Err() // stopped: cancelled
			}
			builtTo = end
		}
		c.ensure(m)
		adv.advise(m)
		c.listHeld(m)
		nodes := m.nodes
		m.release()
		if c.opts.keepNodes {
			m.nodes = nodes
		}
		if c.opts.FindingsOnly && m.nodes == nil {
			m.Def.DropTree() // (kept nodes are of this tree)
		}
	}
	// Cancelled after the last look (while advising, whose look-ups then
	// failed quietly): not a complete report.
	return ctx.Err()
}

type checkRun struct {
	opts   Options
	report *Report
	// capped counts each file's findings for Options.MaxPerCode;
	// omitted says some were only counted.
	capped  map[*grammar.File]*grammar.FindingCap
	omitted bool
	// diags are the findings made, by file (the report's, once sorted).
	diags map[*grammar.File][]grammar.Diagnostic
	// held are metrics' findings not yet capped (add).
	held  map[*Metric]*heldFindings
	descs map[string]pmapi.Desc // real metrics by name
	// descTexts are the descriptors' texts in messages (descText).
	descTexts map[pmapi.Desc]string
	known     map[string]bool
	// noDesc are names in the namespace without a descriptor.
	noDesc map[string]bool
	// mapToNovalue is "#control option_novalue=1" (PCP 7.1.1+): an
	// operand not in the namespace binds as novalue().
	mapToNovalue bool
	// checking: metrics are being checked (Metric.state), so binding one
	// may check it first.
	checking bool
	cyclic   map[*Metric]bool
	// unknownAt holds, by definition, the indexes of its unknown-metric
	// findings in its file's findings, for the "did you mean" advice.
	unknownAt map[*grammar.Definition][]int
	// topNames returns the namespace's top-level names (nil when the
	// source cannot list them), asked for once: by a check of a whole
	// config, and when an unknown metric lies under a PCP PMDA's root
	// (one not among them means the PMDA is not installed).
	topNames func() (map[string]bool, error)
	// pmdaReported remembers, per file, the PMDA roots already reported
	// missing, so each is reported once.
	pmdaReported map[*grammar.File]map[string]pmdaWarning
	// pmdaFresh, in a Recheck, lists by root the metrics it found a
	// missing PMDA's metric in (nil in a Check).
	pmdaFresh map[string][]*Metric
	// instanceHints suggests instance names, one suggester per instance
	// domain so each misspelt instance is looked up once per check.
	instanceHints map[pmapi.InDom]*suggester
	// inference is the check's settings for Report.NodesOf.
	inference *inference
	// baseInferrer is what every inferrer of the check shares
	// (inferrerBase).
	baseInferrer *inferrer
}

// ensure checks a metric once; a metric met again while it is being
// checked (a cycle) stays unbound.
func (c *checkRun) ensure(m *Metric) {
	f := m.file
	if !c.checking {
		return
	}
	if m.state == checking && !c.opts.Version.Has(pcpver.NestedDerivedError) && !c.cyclic[m] {
		if c.cyclic == nil {
			c.cyclic = map[*Metric]bool{}
		}
		c.cyclic[m] = true
		c.diagAs(f, m, m.Def.NameRange, grammar.SeverityError, codes.LibpcpCrash,
			fmt.Sprintf("%s depends on itself through other derived metrics: libpcp %s recurses without end and crashes (segmentation fault) when it binds it", m.Def.Name, c.opts.Version), nil)
	}
	if m.state != unchecked {
		return
	}
	m.state = checking
	c.check(m, f)
	m.state = checked
}

// check runs binding and semantic checks for one metric.
func (c *checkRun) check(m *Metric, f *grammar.File) {
	d := m.Def
	if real, ok := c.descs[d.Name]; ok {
		m.Status, m.Desc = Masked, real
		c.diag(f, m, d.NameRange, codes.Masked,
			fmt.Sprintf("%s is also a real metric: libpcp uses the real one and ignores this definition", d.Name), nil)
		return
	}
	tree, err := d.Tree()
	var deep *grammar.TooDeepError
	if errors.As(err, &deep) {
		m.refuse(Crashes, fmt.Sprintf("the expression is %d operators deep: binding or fetching it overflows libpcp's stack", deep.Depth), "")
		c.diagAs(f, m, d.Range, grammar.SeverityError, codes.LibpcpCrash,
			fmt.Sprintf("this expression is %d operators deep: libpcp binds, checks and fetches expressions recursively and overflows its stack on one this deep, crashing the tool that loads it with a segmentation fault (every release past about 26000 levels with the default 8 MB stack); split the expression, or keep each chain of operators under %d", deep.Depth, grammar.MaxTreeDepth), nil)
		return
	}
	if err != nil {
		// Accepted by libpcp's parser but not by ours: report, don't guess.
		c.diag(f, m, d.Range, codes.Internal,
			fmt.Sprintf("pcp-derive-lsp could not build a syntax tree for this definition (please report): %v", err), nil)
		return
	}
	m.nodes = Nodes{}
	in := c.newInferrer(m, m.nodes)
	// PCP 6.2.2+ refuses a derived metric inside another (but an alias,
	// "x = other", is fine).
	if c.opts.Version.Has(pcpver.NestedDerivedError) {
		if name := c.nestedDerived(m, tree); name != "" {
			m.refuseOperand(SemanticError, "Illegal nested derived metric", name)
			line := fmt.Sprintf("Semantic error: derived metric %s: %s: %s", d.Name, m.Rendering(), m.Message())
			c.diag(f, m, d.Range, codes.Semantic,
				fmt.Sprintf("%s is itself a derived metric: PCP 6.2.2 and later do not allow derived metrics inside others (define the expression again, or use it alone as an alias)", name), []string{line})
			return
		}
	}
	if at, broken := doubleNovalue(d.Expr, tree); broken {
		c.staleTree(f, m, exprRange(f, d, at))
		return
	}
	// Binding comes first in libpcp: any unknown operand (outside
	// defined(), and in PCP 7 outside ?:) hides the metric before a check.
	unknown := c.unknownOperands(tree)
	if name, ok := c.crashingOperand(unknown); ok {
		// Before 6.2.2 libpcp binds a derived operand, tree and all:
		// one too deep for its stack crashes it here too (5.2.6 and
		// 6.0.3 observed).
		m.refuse(Crashes, fmt.Sprintf("it uses %s, whose expression is too deep for libpcp's stack", name), "")
		c.diagAs(f, m, d.Range, grammar.SeverityError, codes.LibpcpCrash,
			fmt.Sprintf("%s uses %s, whose expression is too deep for libpcp's stack: binding %s binds %s and crashes the tool the same way", d.Name, name, d.Name, name), nil)
		return
	}
	m.setUnknown(unknown)
	if len(unknown) > 0 && c.opts.Version.Has(pcpver.UnknownOperandReported) && (c.noDesc[unknown[0]] || c.registeredDerived(unknown[0], d.Name)) {
		// In the namespace, but pmLookupDesc fails (7.1+ says so): a
		// metric its PMDA does not describe, or a derived metric that
		// failed to bind, named where the nested check does not apply.
		why := fmt.Sprintf("%s has no descriptor (its PMDA does not describe it)", unknown[0])
		if !c.noDesc[unknown[0]] {
			why = fmt.Sprintf("%s is a derived metric that does not bind", unknown[0])
		}
		m.refuseOperand(SemanticError, "Metadata for operand metric not available", unknown[0])
		line := fmt.Sprintf("Semantic error: derived metric %s: %s: %s", d.Name, m.Rendering(), m.Message())
		c.diag(f, m, d.Range, codes.Semantic,
			fmt.Sprintf("%s: libpcp reports \"Metadata for operand metric not available\" and hides %s", why, d.Name), []string{line})
		return
	}
	if len(unknown) > 0 {
		m.Status = Unbound
		c.reportUnbound(f, m, tree)
		return
	}
	c.infer(f, m, in, tree)
}

// infer runs libpcp's semantic checks on a metric whose operands all
// bind, inferring its descriptor.
func (c *checkRun) infer(f *grammar.File, m *Metric, in *inferrer, tree grammar.Node) {
	d := m.Def
	m.inferred, m.inference = true, c.inferenceOf()
	desc, err := in.desc(tree)
	var se *semErr
	var um *unboundMeta
	switch {
	case errors.As(err, &um):
		m.Status = Unbound
		m.setUnknown([]string{um.name})
		c.diag(f, m, exprRange(f, d, um.at), codes.UnknownMetric,
			fmt.Sprintf("unknown metric %s in meta=: libpcp silently hides %s", um.name, d.Name), nil)
	case errors.As(err, &se):
		rendering := se.rendering
		if rendering == "" {
			rendering = renderNode(se.node)
		}
		m.refuse(SemanticError, se.msg, rendering)
		line := fmt.Sprintf("Semantic error: derived metric %s: %s: %s", d.Name, rendering, se.msg)
		if listed := c.diag(f, m, exprRange(f, d, se.node.Span()), codes.Semantic,
			fmt.Sprintf("%s: %s", se.msg, rendering)+c.operandsNote(m, se.node), []string{line}); listed != nil {
			c.semanticFixes(listed, f, m, se)
		}
	case err != nil:
		c.diag(f, m, d.Range, codes.Internal, err.Error(), nil)
	default:
		m.Status, m.Desc = Valid, desc
		m.Desc.PMID = pmapi.PMIDNull
	}
}

// SortedNames returns the valid derived metric names, sorted.
func (r *Report) SortedNames() []string {
	var out []string
	for name, m := range r.ByName.All() {
		if m.Status == Valid {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// cancelEvery is how many metrics a check works through between looks at
// its context: a newer edit in the editor cancels the check of the older
// text, which must then stop within a millisecond or so, not finish a
// check of 100,000 definitions first.
const cancelEvery = 256

// staleTree checks a metric with novalue() on both sides of a ternary
// (grammar.Verdict.Stale), at: libpcp's grammar action raises YYERROR
// without clearing its parse tree, so the name registers with the
// expression parsed last (grammar.File.StaleTree), the rest of its own
// ignored: that metric's metadata and values, or, when none parsed
// before, the built-in event.missed's (U32, discrete, no value).
func (c *checkRun) staleTree(f *grammar.File, m *Metric, at grammar.Range) {
	m.Broken = true
	if src, ok := f.StaleTree(m.Def); ok && src != nil {
		if sm, ok := c.report.ByName.Lookup(src.Name); ok && sm.Def == src {
			c.ensure(sm)
			if sm.Status == Valid {
				m.Status, m.Desc = Valid, sm.Desc
			} else {
				m.refuse(sm.Status, sm.Message(), "")
			}
			c.diag(f, m, at, codes.NoValue,
				fmt.Sprintf("novalue() in both branches: libpcp registers %s with the expression it parsed last, %s's on line %d (%s), ignoring its own", m.Def.Name, src.Name, src.Line, src.Expr), nil)
			return
		}
	}
	m.Status = Valid
	m.Desc = pmapi.Desc{PMID: pmapi.PMIDNull, Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}
	c.diag(f, m, at, codes.NoValue,
		fmt.Sprintf("novalue() in both branches: libpcp registers %s as a 32-bit unsigned discrete metric without units, ignoring the rest of the expression, and its values are garbage or none", m.Def.Name), nil)
}
