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
	"strconv"
	"strings"
	"sync"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pvec"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Status is libpcp's fate for one derived metric.
type Status uint8

const (
	// NotRegistered: libpcp rejected the definition (a syntax error, a
	// duplicate name) or never read it; the grammar reported why.
	NotRegistered Status = iota
	// Valid: the metric binds and passes every check.
	Valid
	// SemanticError: libpcp prints "Semantic error: ..." and hides it.
	SemanticError
	// Unbound: an operand is not in the namespace; PCP 6 hides the metric
	// without a word.
	Unbound
	// Masked: a real metric of the same name exists; libpcp uses that.
	Masked
	// Crashes: libpcp registers the metric, but binding or fetching it
	// crashes the tool (an expression too deep for its stack); Message
	// says why.
	Crashes
)

func (s Status) String() string {
	return [...]string{"not registered", "valid", "semantic error", "unbound", "masked", "crashes libpcp"}[s]
}

// Metric is the checker's verdict on one definition.
//
// Its fields are laid out for size (72 bytes): a check of a big config
// keeps one for each of up to a million definitions.
type Metric struct {
	Def *grammar.Definition
	// Desc is the inferred descriptor (Valid and Masked metrics).
	Desc pmapi.Desc
	// why is what libpcp says of a metric it does not make valid: nil
	// for most metrics (Message, Rendering and Unknown read it).
	why *why

	file *grammar.File // the file it is defined in, until checked and advised
	// nodes are the metadata the check inferred for the tree's nodes,
	// kept only while it checks and advises the metric (but see
	// release); inference is how (Report.NodesOf infers them again).
	nodes     Nodes
	inference *inference

	Status Status
	// Broken: libpcp registers the metric without a usable expression
	// (a ternary of two novalue()s); it has no values to compute.
	Broken bool
	state  checkState
	// inferred: the check inferred the nodes' metadata.
	inferred, boundUnfinished bool
}

// why is the rarely set part of a Metric, in 48 bytes: with PCP 6.2.2+
// every metric of a chain of definitions has one.
type why struct {
	message string
	// rendering is the operand text libpcp prints with message, or,
	// when operand is set, the name it prints after "operand " (kept
	// unjoined: the name is the definition's own text, the joined one a
	// string a metric).
	rendering string
	unknown   *[]string
	operand   bool
}

// Message is libpcp's error text for the metric: its semantic error
// (Rendering is the operand text printed with it), or why it crashes
// libpcp; "" for others.
func (m *Metric) Message() string {
	if m.why == nil {
		return ""
	}
	return m.why.message
}

// Rendering is the operand text libpcp prints with a semantic error.
func (m *Metric) Rendering() string {
	switch {
	case m.why == nil:
		return ""
	case m.why.operand:
		return "operand " + m.why.rendering
	}
	return m.why.rendering
}

// Unknown lists operand names the source does not know.
func (m *Metric) Unknown() []string {
	if m.why == nil || m.why.unknown == nil {
		return nil
	}
	return *m.why.unknown
}

// refuse records libpcp's message for the metric and the operand text
// it renders with it ("" for none).
func (m *Metric) refuse(status Status, message, rendering string) {
	m.Status = status
	w := m.whyOf()
	w.message, w.rendering, w.operand = message, rendering, false
}

// refuseOperand is refuse with the rendering "operand NAME".
func (m *Metric) refuseOperand(status Status, message, name string) {
	m.refuse(status, message, name)
	m.why.operand = true
}

// setUnknown records the operand names the source does not know.
func (m *Metric) setUnknown(names []string) {
	if names != nil {
		m.whyOf().unknown = &names
	} else if m.why != nil {
		m.why.unknown = nil
	}
}

// whyOf is the metric's why, made on first use.
func (m *Metric) whyOf() *why {
	if m.why == nil {
		m.why = &why{}
	}
	return m.why
}

// checkState lets a metric be checked on demand when another one binds it
// (libpcp binds a derived operand when first used, so order in the file
// does not matter).
type checkState uint8

const (
	unchecked checkState = iota
	checking
	checked
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
}

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
	c.report.Operands = c.descs
	c.topNames = topNamesOf(ctx, src)
	if !opts.FindingsOnly {
		// Every metric its own tree: an evaluator keeps state by node
		// (delta's previous values), which two metrics must not share
		// (their parses by shape they may).
		buildTrees(ctx, registered(files), nil, grammar.NewShapes(), runtime.NumCPU())
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	var names []string
	metrics := make([]*Metric, 0, definitionCount(files)) // Report.Metrics, once all are made
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
			metrics = append(metrics, m)
			c.report.ByName.set(d.Name, m)
			if opts.FindingsOnly {
				// No trees yet (they are built a window at a time below):
				// the words of the expressions, after this loop.
				continue
			}
			addName(d.Name) // to find masking real metrics
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
	var built <-chan int
	if opts.FindingsOnly {
		// Definitions of the same short text share one tree: the
		// trees are only checked, and dropped once checked. They are
		// built from here on, while the names are looked up.
		buildCtx, stop := context.WithCancel(ctx)
		defer stop() // a failed lookup leaves no builder behind
		built = buildAhead(buildCtx, metrics, grammar.NewTreeCache())
		// Already without repeats, in order: no second set of a
		// million names. Only a name under one of the namespace's
		// top-level nodes can be a metric: the others, a config's
		// own names by the thousand (gen.m1 ... gen.m100000), are
		// unknown without a round trip that carries them all (a
		// tenth of a 10,000-definition check went to looking them
		// up, and a sixth of the CPU of a 100,000-definition one to
		// listing them). Only in a check of a whole config: the
		// editor's checks look a few new names up at a time, the
		// others answered from its cache, and an unknown name's
		// lookup is how it notices a pmcd that went away
		// (TestPmcdKilledAndRestarted). A source that cannot list
		// its top level is asked for every name.
		var keep func(string) bool
		top, err := c.topNames()
		switch {
		case top != nil:
			keep = underTop(top)
		case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
			// The source stopped answering: the lookup would wait as
			// long again.
			return nil, fmt.Errorf("listing the namespace of %s: %w", src.Describe(), err)
		}
		names = wordsInOrder(metrics, keep)
	}
	seen = nil
	if err := c.lookup(ctx, src, names); err != nil {
		return nil, err
	}
	names = nil
	// Each metric is advised right after its check, in definition order
	// (advice reads only the metric's own nodes, and which names exist),
	// so that its node metadata can go at once (Report.NodesOf infers it
	// again when asked), and with it its tree (FindingsOnly): the trees of
	// the next window of metrics are built on all CPUs while the ones
	// before are let go.
	c.checking = true
	adv := c.newAdvisor(ctx, src)
	builtTo := 0 // the trees of metrics[:builtTo] are built
	for i, m := range metrics {
		if i%cancelEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err // (buildAhead stops too)
			}
		}
		for built != nil && i >= builtTo {
			end, ok := <-built // the next window's trees
			if !ok {
				return nil, ctx.Err() // stopped: cancelled
			}
			builtTo = end
		}
		c.ensure(m)
		adv.advise(m)
		c.listHeld(m)
		nodes := m.nodes
		m.release()
		if opts.keepNodes {
			m.nodes = nodes
		}
		if opts.FindingsOnly && m.nodes == nil {
			m.Def.DropTree() // (kept nodes are of this tree)
		}
	}
	if err := ctx.Err(); err != nil {
		// Cancelled after the last look (while advising, whose look-ups
		// then failed quietly): not a complete report.
		return nil, err
	}
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
	}
	return c.report, nil
}

// metricSlab hands out a check's new Metrics from blocks of
// metricSlabSize: one allocation a block rather than one a metric (at
// 100,000 definitions, making the metrics was a twentieth of a check,
// all on one CPU). An editor's later versions keep most of these
// metrics and replace a few (Recheck allocates the new ones apart): a
// replaced metric stays in memory while another of its block lives, so
// what the blocks hold never exceeds the metrics of this check; a small
// block keeps that to a few for a few edits.
type metricSlab struct {
	free []Metric
	// left is how many more metrics the check may make at most (its
	// definitions): a block is no longer, so a small config's metrics
	// are not a block of 64 each (an open document of 100 lines held 28
	// metrics' room for nothing).
	left int
}

const metricSlabSize = 64

func (s *metricSlab) next() *Metric {
	if len(s.free) == 0 {
		s.free = make([]Metric, max(1, min(metricSlabSize, s.left)))
	}
	s.left--
	m := &s.free[0]
	s.free = s.free[1:]
	return m
}

// Findings are the checker's findings of f, sorted by position. The list
// is the report's own: shared, never changed.
func (r *Report) Findings(f *grammar.File) pvec.Vec[grammar.Diagnostic] { return r.findings[f] }

// Diagnostics are the checker's findings of f, sorted by position, in a
// list of the caller's.
func (r *Report) Diagnostics(f *grammar.File) []grammar.Diagnostic { return r.findings[f].Collect() }

// operandNames are the metric names a node makes libpcp look up.
func operandNames(n grammar.Node) []string {
	switch n := n.(type) {
	case *grammar.Metric:
		return []string{n.Name}
	case *grammar.Call:
		if n.Func == "anon" {
			return nil
		}
	case *grammar.Mkconst:
		return metaNames(n.Specs)
	case *grammar.Novalue:
		return metaNames(n.Specs)
	}
	return nil
}

func metaNames(specs []grammar.Spec) []string {
	var out []string
	for _, s := range specs {
		if s.Key == "meta" {
			out = append(out, s.Value)
		}
	}
	return out
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
		c.diagAs(f, m, m.Def.NameRange, grammar.SeverityError, "libpcp-crash",
			fmt.Sprintf("%s depends on itself through other derived metrics: libpcp %s recurses without end and crashes (segmentation fault) when it binds it", m.Def.Name, c.opts.Version), nil)
	}
	if m.state != unchecked {
		return
	}
	m.state = checking
	c.check(m, f)
	m.state = checked
}

func (c *checkRun) lookup(ctx context.Context, src pmclient.Source, names []string) error {
	found, noDesc, err := pmclient.ResolveNames(ctx, src, names)
	for _, r := range found {
		c.descs[r.Name] = r.Desc
		c.known[r.Name] = true
	}
	for _, n := range noDesc {
		c.noDesc[n] = true
	}
	return err
}

// underTop says whether a name's first component is in top: only such a
// name can be a metric.
func underTop(top map[string]bool) func(name string) bool {
	return func(name string) bool {
		first, _, _ := strings.Cut(name, ".")
		return top[first]
	}
}

// check runs binding and semantic checks for one metric.
func (c *checkRun) check(m *Metric, f *grammar.File) {
	d := m.Def
	if real, ok := c.descs[d.Name]; ok {
		m.Status, m.Desc = Masked, real
		c.diag(f, m, d.NameRange, "masked",
			fmt.Sprintf("%s is also a real metric: libpcp uses the real one and ignores this definition", d.Name), nil)
		return
	}
	tree, err := d.Tree()
	var deep *grammar.TooDeepError
	if errors.As(err, &deep) {
		m.refuse(Crashes, fmt.Sprintf("the expression is %d operators deep: binding or fetching it overflows libpcp's stack", deep.Depth), "")
		c.diagAs(f, m, d.Range, grammar.SeverityError, "libpcp-crash",
			fmt.Sprintf("this expression is %d operators deep: libpcp binds, checks and fetches expressions recursively and overflows its stack on one this deep, crashing the tool that loads it with a segmentation fault (every release past about 26000 levels with the default 8 MB stack); split the expression, or keep each chain of operators under %d", deep.Depth, grammar.MaxTreeDepth), nil)
		return
	}
	if err != nil {
		// Accepted by libpcp's parser but not by ours: report, don't guess.
		c.diag(f, m, d.Range, "internal",
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
			c.diag(f, m, d.Range, "semantic",
				fmt.Sprintf("%s is itself a derived metric: PCP 6.2.2 and later do not allow derived metrics inside others (define the expression again, or use it alone as an alias)", name), []string{line})
			return
		}
	}
	if at, broken := doubleNovalue(d.Expr, tree); broken {
		// libpcp's grammar action for "g ? novalue() : novalue()" raises
		// YYERROR, yet the metric registers: with a U32 discrete
		// descriptor whatever surrounds it, no checks, and no value to
		// rely on (6.3.8 and 7.2.2 observed; stale values can show).
		m.Status = Valid
		m.Desc = pmapi.Desc{PMID: pmapi.PMIDNull, Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}
		m.Broken = true
		c.diag(f, m, exprRange(f, d, at), "no-value",
			fmt.Sprintf("novalue() in both branches: libpcp registers %s as a 32-bit unsigned discrete metric without units, ignoring the rest of the expression, and its values are garbage or none", d.Name), nil)
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
		c.diagAs(f, m, d.Range, grammar.SeverityError, "libpcp-crash",
			fmt.Sprintf("%s uses %s, whose expression is too deep for libpcp's stack: binding %s binds %s and crashes the tool the same way", d.Name, name, d.Name, name), nil)
		return
	}
	m.setUnknown(unknown)
	if len(unknown) > 0 && c.noDesc[unknown[0]] && c.opts.Version.Has(pcpver.UnknownOperandReported) {
		// In the namespace, but pmLookupDesc fails (7.1+ says so).
		m.refuseOperand(SemanticError, "Metadata for operand metric not available", unknown[0])
		line := fmt.Sprintf("Semantic error: derived metric %s: %s: %s", d.Name, m.Rendering(), m.Message())
		c.diag(f, m, d.Range, "semantic",
			fmt.Sprintf("%s has no descriptor (its PMDA does not describe it): libpcp reports \"Metadata for operand metric not available\" and hides %s", unknown[0], d.Name), []string{line})
		return
	}
	if len(unknown) > 0 {
		m.Status = Unbound
		c.reportUnbound(f, m, tree)
		return
	}
	m.inferred, m.inference = true, c.inferenceOf()
	desc, err := in.desc(tree)
	var se *semErr
	var um *unboundMeta
	switch {
	case errors.As(err, &um):
		m.Status = Unbound
		m.setUnknown([]string{um.name})
		c.diag(f, m, exprRange(f, d, um.at), "unknown-metric",
			fmt.Sprintf("unknown metric %s in meta=: libpcp silently hides %s", um.name, d.Name), nil)
	case errors.As(err, &se):
		rendering := se.rendering
		if rendering == "" {
			rendering = renderNode(se.node)
		}
		m.refuse(SemanticError, se.msg, rendering)
		line := fmt.Sprintf("Semantic error: derived metric %s: %s: %s", d.Name, rendering, se.msg)
		if listed := c.diag(f, m, exprRange(f, d, se.node.Span()), "semantic",
			fmt.Sprintf("%s: %s", se.msg, rendering)+c.operandsNote(m, se.node), []string{line}); listed != nil {
			c.semanticFixes(listed, f, m, se)
		}
	case err != nil:
		c.diag(f, m, d.Range, "internal", err.Error(), nil)
	default:
		m.Status, m.Desc = Valid, desc
		m.Desc.PMID = pmapi.PMIDNull
	}
}

// unboundMeta is a meta=NAME whose metric does not bind, which hides the
// derived metric before PCP 7.1 (and is an error from 7.1 on).
type unboundMeta struct {
	name string
	at   grammar.Span
}

func (e *unboundMeta) Error() string { return "unknown metric " + e.name + " in meta=" }

// doubleNovalue finds a ternary with novalue() in both branches of tree,
// the expression expr. Such an expression spells "novalue" twice: the
// others, almost all, are passed over without a walk (one walk a
// definition was 2.5% of a 100,000-definition check).
func doubleNovalue(expr string, tree grammar.Node) (grammar.Span, bool) {
	var at grammar.Span
	if strings.Count(expr, "novalue") < 2 {
		return at, false
	}
	found := false
	grammar.Walk(tree, func(n grammar.Node) bool {
		if t, ok := n.(*grammar.Ternary); ok && !found {
			_, a := grammar.Unwrap(t.Then).(*grammar.Novalue)
			_, b := grammar.Unwrap(t.Else).(*grammar.Novalue)
			if a && b {
				at, found = t.Span(), true
			}
		}
		return !found
	})
	return at, found
}

// renderNode renders a failing node as libpcp does.
func renderNode(n grammar.Node) string {
	if c, ok := n.(*colonNode); ok {
		return grammar.LibpcpLeaf(c.t.Then) + " : " + grammar.LibpcpLeaf(c.t.Else)
	}
	return grammar.LibpcpRendering(n)
}

// operandsNote spells out what libpcp abbreviates as <expr>: the inferred
// metadata of the failing node's operands.
func (c *checkRun) operandsNote(m *Metric, n grammar.Node) string {
	var ops []grammar.Node
	switch n := n.(type) {
	case *grammar.Binary:
		ops = []grammar.Node{n.L, n.R}
	case *colonNode:
		ops = []grammar.Node{n.t.Then, n.t.Else}
	case *grammar.Ternary:
		ops = []grammar.Node{n.Cond}
	case *grammar.Unary:
		ops = []grammar.Node{n.X}
	case *grammar.Call:
		ops = []grammar.Node{n.Arg}
	case *grammar.Rescale:
		ops = []grammar.Node{n.X}
	}
	var parts []string
	for _, op := range ops {
		if ni := m.nodes[op]; ni != nil {
			parts = append(parts, grammar.Format(op)+" is "+c.descText(ni.Desc))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// descText is DescText(d), remembered for the run: the semantic errors
// of a generated config describe the same few descriptors again and
// again (formatting each was 2% of a 100,000-definition check). At most
// maxDescTexts are kept.
func (c *checkRun) descText(d pmapi.Desc) string {
	d.PMID = 0 // not in the text
	if t, ok := c.descTexts[d]; ok {
		return t
	}
	t := DescText(d)
	if c.descTexts == nil {
		c.descTexts = map[pmapi.Desc]string{}
	}
	if len(c.descTexts) < maxDescTexts {
		c.descTexts[d] = t
	}
	return t
}

// maxDescTexts bounds checkRun.descTexts.
const maxDescTexts = 1024

// DescText is a one-line summary of a descriptor for messages and hovers.
func DescText(d pmapi.Desc) string {
	units := d.Units.String()
	if units == "" {
		units = "none"
	}
	indom := "singular"
	if d.InDom != pmapi.InDomNull {
		indom = "indom " + d.InDom.String()
	}
	return fmt.Sprintf("%s %s, units %s, %s", typeText(d.Type), d.Sem, units, indom)
}

func typeText(t pmapi.Type) string {
	switch t {
	case pmapi.Type32:
		return "32-bit int"
	case pmapi.TypeU32:
		return "32-bit unsigned int"
	case pmapi.Type64:
		return "64-bit int"
	case pmapi.TypeU64:
		return "64-bit unsigned int"
	case pmapi.TypeFloat:
		return "float"
	case pmapi.TypeDouble:
		return "double"
	case pmapi.TypeString:
		return "string"
	case pmapi.TypeAggregate, pmapi.TypeAggregateStatic:
		return "aggregate"
	case pmapi.TypeEvent:
		return "event record array"
	case pmapi.TypeHighresEvent:
		return "highres event record array"
	}
	return t.String()
}

// unknownOperands lists names that fail to bind; defined() tolerates them.
func (c *checkRun) unknownOperands(tree grammar.Node) []string {
	var out []string
	grammar.Walk(tree, func(n grammar.Node) bool {
		switch n := n.(type) {
		case *grammar.Call:
			if n.Func == "defined" {
				if name, bad := c.brokenDerivedInDefined(n); bad {
					out = append(out, name)
				}
			}
			if n.Func == "defined" || n.Func == "anon" {
				return false
			}
		case *grammar.Ternary:
			if c.opts.Version.Has(pcpver.LazyTernary) {
				return false // bound lazily
			}
		case *grammar.Metric:
			if _, ok := c.bindable(n.Name); !ok {
				out = append(out, n.Name)
			}
		}
		return true
	})
	return out
}

// brokenDerivedInDefined: before libpcp 6.2.2, defined(D) of a derived metric
// D that does not bind (a semantic error, an unknown operand) fails the
// whole binding, so the metric using it is hidden; defined() of a name
// that is not a metric at all is simply 0.
func (c *checkRun) brokenDerivedInDefined(n *grammar.Call) (string, bool) {
	mt, ok := n.Arg.(*grammar.Metric)
	if !ok || c.opts.Version.Has(pcpver.LazyTernary) {
		return "", false
	}
	if _, derived := c.report.ByName.Lookup(mt.Name); !derived {
		return "", false
	}
	if _, ok := c.bindable(mt.Name); ok {
		return "", false
	}
	return mt.Name, true
}

// nestedDerived returns the first operand naming another derived metric.
func (c *checkRun) nestedDerived(m *Metric, tree grammar.Node) string {
	if mt, ok := grammar.Unwrap(tree).(*grammar.Metric); ok && mt.Inst == nil {
		return "" // an alias
	}
	name := ""
	grammar.Walk(tree, func(n grammar.Node) bool {
		if mt, ok := n.(*grammar.Metric); ok && name == "" {
			if other, ok := c.report.ByName.Lookup(mt.Name); ok && other != m {
				if _, real := c.descs[mt.Name]; !real {
					name = mt.Name
				}
			}
		}
		return name == ""
	})
	return name
}

// crashingOperand returns the first of names that is a derived metric
// libpcp crashes on (Crashes), where libpcp binds derived operands
// (before 6.2.2).
func (c *checkRun) crashingOperand(names []string) (string, bool) {
	if c.opts.Version.Has(pcpver.NestedDerivedError) {
		return "", false
	}
	for _, name := range names {
		if m, ok := c.report.ByName.Lookup(name); ok && m.Status == Crashes {
			return name, true
		}
	}
	return "", false
}

// bindable resolves a name like pmLookupName + pmLookupDesc in a context
// that has the config's derived metrics: real metrics first, then valid
// derived metrics (nesting, which PCP 6 binds but cannot fetch).
func (c *checkRun) bindable(name string) (pmapi.Desc, bool) {
	if d, ok := c.descs[name]; ok {
		return d, true
	}
	if m, ok := c.report.ByName.Lookup(name); ok {
		c.ensure(m)
		if m.Status == Valid {
			return m.Desc, true
		}
	}
	if name == "event.flags" || name == "event.missed" {
		return pmapi.Desc{PMID: pmapi.PMIDNull, Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}, true
	}
	if c.mapToNovalue && !c.noDesc[name] {
		// novalue()'s own metadata, and no value ever.
		return pmapi.Desc{PMID: pmapi.PMIDNull, Type: pmapi.Type32, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}, true
	}
	return pmapi.Desc{}, false
}

func (c *checkRun) leaf(n *grammar.Metric) (pmapi.Desc, bool) { return c.bindable(n.Name) }

// maxGuardFixes and maxGuardedExpr bound the "Guard it" fixes of a
// definition: each rewrites the whole expression, so one for each of a
// hostile line's ten thousand unknown names cost gigabytes (10,000 names:
// 7 GB). An editor shows a few at a time anyway.
const (
	maxGuardFixes  = 8
	maxGuardedExpr = 64 << 10
)

func (c *checkRun) reportUnbound(f *grammar.File, m *Metric, tree grammar.Node) {
	first := true
	guards := 0
	var body string // the guarded expression, formatted once
	grammar.Walk(tree, func(n grammar.Node) bool {
		if call, ok := n.(*grammar.Call); ok && (call.Func == "defined" || call.Func == "anon") {
			if name, bad := c.brokenDerivedInDefined(call); bad {
				c.diag(f, m, exprRange(f, m.Def, call.Arg.(*grammar.Metric).At), "unknown-metric",
					fmt.Sprintf("%s is a derived metric that does not bind: libpcp 6 then fails defined(%s) and silently hides %s", name, name, m.Def.Name), nil)
			}
			return false
		}
		mt, ok := n.(*grammar.Metric)
		if !ok {
			return true
		}
		if _, ok := c.bindable(mt.Name); ok {
			return true
		}
		reported := c.opts.Version.Has(pcpver.UnknownOperandReported)
		msg := fmt.Sprintf("unknown metric %s: libpcp silently hides %s", mt.Name, m.Def.Name)
		switch {
		case c.noDesc[mt.Name]:
			msg = fmt.Sprintf("%s has no descriptor (its PMDA does not describe it): libpcp silently hides %s", mt.Name, m.Def.Name)
		case reported:
			msg = fmt.Sprintf("unknown metric %s: libpcp 7.1+ reports \"Unknown operand metric\" and hides %s", mt.Name, m.Def.Name)
		}
		var pcp []string
		if reported && first {
			// libpcp stops binding at the first operand it cannot bind.
			pcp = []string{fmt.Sprintf("Semantic error: derived metric %s: operand %s: Unknown operand metric", m.Def.Name, mt.Name)}
		}
		first = false
		rg := exprRange(f, m.Def, mt.At)
		if c.missingPMDA(f, m, mt.Name, rg, pcp) {
			return true
		}
		listed := c.diag(f, m, rg, "unknown-metric", msg, pcp)
		if listed != nil && c.opts.Version.Has(pcpver.Novalue) && guards < maxGuardFixes && len(m.Def.Expr) <= maxGuardedExpr {
			// PCP 6.2.2+: a metric that may be missing is guarded, and the
			// derived metric simply has no value where it is.
			guards++
			if body == "" {
				body = grammar.Format(tree)
				if _, isTernary := grammar.Unwrap(tree).(*grammar.Ternary); isTernary {
					body = "(" + body + ")"
				}
			}
			text := fmt.Sprintf("defined(%s) ? %s : novalue()", mt.Name, body)
			listed.Fixes = append(listed.Fixes, grammar.Fix{Title: "Guard it: " + text,
				Edits: []grammar.Edit{{Range: exprRange(f, m.Def, grammar.Span{Start: 0, End: len(m.Def.Expr)}), NewText: text}}})
		}
		return true
	})
}

// missingPMDA reports an unknown metric whose top-level name belongs to a
// PCP PMDA that has no metrics in the source at all: the PMDA is not
// installed there, which on a host of a fleet is expected (PCP's own
// shipped configs name many PMDAs), so it is a warning, given once per
// PMDA and file; the others of that PMDA are hints pointing at it. A
// misspelt name under an installed PMDA stays an error.
func (c *checkRun) missingPMDA(f *grammar.File, m *Metric, name string, rg grammar.Range, pcp []string) bool {
	if c.noDesc[name] {
		return false
	}
	root, pmdas := pmdaOf(name)
	if pmdas == "" {
		return false
	}
	if top, _ := c.topNames(); top == nil || top[root] {
		return false
	}
	if c.pmdaReported == nil {
		c.pmdaReported = map[*grammar.File]map[string]pmdaWarning{}
	}
	if c.pmdaReported[f] == nil {
		c.pmdaReported[f] = map[string]pmdaWarning{}
	}
	if c.pmdaFresh != nil {
		c.pmdaFresh[root] = append(c.pmdaFresh[root], m)
	}
	agent := strings.ReplaceAll(pmdas, ",", " or ")
	if w, seen := c.pmdaReported[f][root]; seen {
		c.diagAs(f, m, rg, grammar.SeverityHint, "pmda-missing",
			fmt.Sprintf("no %s.* metrics here (see line %d): libpcp hides %s", root, w.line, m.Def.Name), pcp)
		return true
	}
	c.pmdaReported[f][root] = pmdaWarning{line: int(rg.Start.Line), metric: m.Def.Name}
	c.diag(f, m, rg, "pmda-missing",
		fmt.Sprintf("no %s.* metrics in %s: the %s PMDA is not installed there, so libpcp hides %s and every other metric that uses %s.*", root, c.report.Source, agent, m.Def.Name, root), pcp)
	return true
}

// pmdaWarning is where a file's warning that a PMDA is missing is: its
// line, which the hints of the PMDA's other metrics name, and the metric
// it is in.
type pmdaWarning struct {
	line   int
	metric string
}

// diag reports a finding with its code's default severity (codes).
func (c *checkRun) diag(f *grammar.File, m *Metric, rg grammar.Range, code, msg string, pcp []string) *grammar.Diagnostic {
	return c.diagAs(f, m, rg, severity(code), code, msg, pcp)
}

// diagAs reports a finding with a severity of its own: the cases the
// registry notes (codes.Info.SeverityNote). It returns the finding, for
// fixes to be attached (valid until m's next).
func (c *checkRun) diagAs(f *grammar.File, m *Metric, rg grammar.Range, sev grammar.Severity, code, msg string, pcp []string) *grammar.Diagnostic {
	d := c.add(f, m, grammar.Diagnostic{Range: rg, Severity: sev, Code: code, Message: msg, PCP: pcp})
	if d != nil && code == "unknown-metric" {
		c.unknownAt[m.Def] = append(c.unknownAt[m.Def], len(c.findingsOf(f, m))-1)
	}
	return d
}

// add makes a finding of m, in f, and returns it (valid until m's next),
// or nil when it is only counted (Options.MaxPerCode), for callers to
// skip its fixes. Under Options.MaxPerCode it is held with m's other
// findings until m is checked and advised (listHeld), and capped then: a
// metric's check may check a metric defined after it first (its operand),
// and the findings listed must be the first of their kind in the file,
// as the analysis of an editor's buffer caps them (grammar.CapFindings),
// not the first made.
func (c *checkRun) add(f *grammar.File, m *Metric, d grammar.Diagnostic) *grammar.Diagnostic {
	if c.opts.MaxPerCode > 0 {
		if c.capOf(f).OmitIfFull(f, d) {
			// Every finding listed is of a metric before m: m's can only
			// be counted. (Its fixes, a "Guard it" rewrite of the whole
			// expression each, are not made for nothing.)
			c.omitted = true
			return nil
		}
		h := c.held[m]
		if h == nil {
			h = &heldFindings{f: f}
			if c.held == nil {
				c.held = map[*Metric]*heldFindings{}
			}
			c.held[m] = h
		}
		h.diags = append(h.diags, d)
		return &h.diags[len(h.diags)-1]
	}
	diags := append(c.diags[f], d)
	c.diags[f] = diags
	return &diags[len(diags)-1]
}

// findingsOf is the list m's findings in f are made in: held ones under
// Options.MaxPerCode, else f's.
func (c *checkRun) findingsOf(f *grammar.File, m *Metric) []grammar.Diagnostic {
	if c.opts.MaxPerCode > 0 {
		if h := c.held[m]; h != nil {
			return h.diags
		}
		return nil
	}
	return c.diags[f]
}

// heldFindings are a metric's findings not yet capped, and their file.
type heldFindings struct {
	f     *grammar.File
	diags []grammar.Diagnostic
}

// listHeld lists m's held findings (Options.MaxPerCode): those past the
// cap of their code and severity only counted, in a stand-in. A finding
// a suppression comment turns off (Options.Suppressed) is listed and not
// counted: the analysis drops it, and the cap is on what is shown.
func (c *checkRun) listHeld(m *Metric) {
	h := c.held[m]
	if h == nil {
		return
	}
	delete(c.held, m)
	f := h.f
	fc := c.capOf(f)
	for _, d := range h.diags {
		if fc.Omit(f, d) {
			c.omitted = true
			continue
		}
		c.diags[f] = append(c.diags[f], d)
	}
}

// capOf is f's count of findings for Options.MaxPerCode.
func (c *checkRun) capOf(f *grammar.File) *grammar.FindingCap {
	fc := c.capped[f]
	if fc == nil {
		fc = &grammar.FindingCap{Max: c.opts.MaxPerCode, Suppressed: c.opts.Suppressed}
		if c.capped == nil {
			c.capped = map[*grammar.File]*grammar.FindingCap{}
		}
		c.capped[f] = fc
	}
	return fc
}

// addStandIns lists each file's stand-ins for omitted findings.
func (c *checkRun) addStandIns() {
	for f, fc := range c.capped {
		c.diags[f] = append(c.diags[f], fc.StandIns()...)
	}
}

// exprRange maps an expression span to a file range.
func exprRange(f *grammar.File, d *grammar.Definition, s grammar.Span) grammar.Range {
	return f.ExprRange(d, s.Start, s.End)
}

// constDesc is the descriptor libpcp gives a literal, mkconst or novalue.
// With meta=M (PCP 6.2.2+) it starts from M's descriptor and the other
// keys override it, as libpcp's bind_desc does; indom= (7.1) sets the
// instance domain.
func constDesc(n grammar.Node, version pcpver.Version, lookup func(string) (pmapi.Desc, bool)) (pmapi.Desc, error) {
	d := pmapi.Desc{PMID: pmapi.PMIDNull, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}
	var specs []grammar.Spec
	switch n := n.(type) {
	case *grammar.Number:
		d.Type = pmapi.TypeU32
		if n.Double {
			d.Type = pmapi.TypeDouble
		}
		return d, nil
	case *grammar.Mkconst:
		d.Type = pmapi.TypeU32
		if n.Value.Double {
			d.Type = pmapi.TypeDouble
		}
		specs = n.Specs
	case *grammar.Novalue:
		d.Type = pmapi.Type32
		specs = n.Specs
	}
	for _, s := range specs {
		if s.Key != "meta" {
			continue
		}
		m, ok := lookup(s.Value)
		if !ok && !version.Has(pcpver.UnknownOperandReported) {
			// Before 7.1 the metric silently does not bind.
			return d, &unboundMeta{name: s.Value, at: s.At}
		}
		if !ok {
			return d, &semErr{node: n, msg: "Unknown operand metric", rendering: "operand " + s.Value}
		}
		d.Type, d.InDom, d.Sem, d.Units = m.Type, m.InDom, m.Sem, m.Units
	}
	for _, s := range specs {
		switch s.Key {
		case "indom":
			d.InDom = pmapi.InDomNull
			if dom, serial, ok := strings.Cut(s.Value, "."); ok {
				a, _ := strconv.ParseUint(dom, 10, 32)
				b, _ := strconv.ParseUint(serial, 10, 32)
				d.InDom = pmapi.InDom(uint32(a)<<22 | uint32(b))
			}
		case "type":
			d.Type = specType(s.Value)
		case "semantics":
			if sem, ok := pmapi.ParseSem(strings.ToLower(s.Value)); ok {
				d.Sem = sem
			}
		case "units":
			u, _, err := grammar.ParseUnits(s.Value, version)
			if err != nil {
				return d, err
			}
			d.Units = u
		}
	}
	return d, nil
}

// specType is a "type=" spec's type: one of the arithmetic types in any
// case, else DOUBLE.
func specType(v string) pmapi.Type {
	if t, ok := pmapi.ParseType(strings.ToUpper(v)); ok && t.Arithmetic() {
		return t
	}
	return pmapi.TypeDouble
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

// semanticFixes offers edits for semantic errors with an obvious cure.
func (c *checkRun) semanticFixes(last *grammar.Diagnostic, f *grammar.File, m *Metric, se *semErr) {
	if b, ok := se.node.(*grammar.Binary); ok && strings.Contains(se.msg, "counter") {
		// Counters combine after rate(); in pcp6 rate() takes a metric
		// name only.
		for _, x := range []grammar.Node{b.L, b.R} {
			ni := m.nodes[x]
			if ni == nil || ni.Desc.Sem != pmapi.SemCounter {
				continue
			}
			if _, isName := grammar.Unwrap(x).(*grammar.Metric); !isName && !c.opts.Version.Has(pcpver.DeltaOfExpr) {
				continue
			}
			text := "rate(" + grammar.Format(grammar.Unwrap(x)) + ")"
			last.Fixes = append(last.Fixes, grammar.Fix{Title: "Use the counter's rate: " + text,
				Edits: []grammar.Edit{{Range: exprRange(f, m.Def, x.Span()), NewText: text}}})
		}
		return
	}
	colon, ok := se.node.(*colonNode)
	if !ok || !strings.HasPrefix(se.msg, "Different ") {
		return
	}
	if strings.HasPrefix(se.msg, "Different units or scale") {
		// Same dimension, other scale: rescale the second branch.
		td, ed := m.nodes[colon.t.Then], m.nodes[colon.t.Else]
		if td != nil && ed != nil && sameDims(td.Desc.Units, ed.Desc.Units) && td.Desc.Units.String() != "" {
			text := fmt.Sprintf("rescale(%s, %q)", grammar.Format(grammar.Unwrap(colon.t.Else)), td.Desc.Units.Format(c.opts.Version.Has(pcpver.ExtraUnits)))
			last.Fixes = append(last.Fixes, grammar.Fix{Title: "Rescale the second branch: " + text,
				Edits: []grammar.Edit{{Range: exprRange(f, m.Def, colon.t.Else.Span()), NewText: text}}})
		}
	}
	// A bare literal branch is U32 and discrete: make it a constant with
	// the other branch's metadata.
	lit, other := colon.t.Else, colon.t.Then
	if _, isNum := grammar.Unwrap(lit).(*grammar.Number); !isNum {
		lit, other = colon.t.Then, colon.t.Else
	}
	num, isNum := grammar.Unwrap(lit).(*grammar.Number)
	od := m.nodes[other]
	if !isNum || od == nil {
		return
	}
	d := od.Desc
	text := fmt.Sprintf("mkconst(%s, type=%s, semantics=%s", num.Text, strings.ToLower(d.Type.String()), d.Sem)
	if u := d.Units.String(); u != "" {
		text += fmt.Sprintf(", units=%q", u)
	}
	text += ")"
	last.Fixes = append(last.Fixes, grammar.Fix{
		Title: "Give the constant the other branch's metadata: " + text,
		Edits: []grammar.Edit{{Range: exprRange(f, m.Def, lit.Span()), NewText: text}},
	})
	last.Message += "; a bare number is a 32-bit unsigned discrete constant: write " + text
}

// treeWindow is how many metrics' trees a FindingsOnly check builds
// ahead at a time: enough for the CPUs to share, few enough that the
// trees held at once are a small part of a big config. The first window
// is of firstTreeWindow, and each next one twice the one before up to
// treeWindow: the check starts on the first while the next are built (a
// first window of 4,096 kept a 10,000-definition check waiting a fifth
// of its time).
//
// The builder runs at most windowsAhead windows ahead of the check: four,
// so that it keeps both CPUs busy (3,840 trees) while the check waits
// for its metadata round trips, and a big config's trees held at once
// stay a few windows' worth.
const (
	treeWindow      = 4096
	firstTreeWindow = 256
	windowsAhead    = 4
)

// cancelEvery is how many metrics a check works through between looks at
// its context: a newer edit in the editor cancels the check of the older
// text, which must then stop within a millisecond or so, not finish a
// check of 100,000 definitions first.
const cancelEvery = 256

// buildAhead builds the metrics' trees a window at a time (treeWindow),
// in the background, at most windowsAhead windows ahead of the reader of
// the channel, which receives the end of each window in metrics when it
// is built. A tree asked for before its window is built is simply built
// by the asker (Tree is safe for concurrent use).
func buildAhead(ctx context.Context, metrics []*Metric, trees *grammar.TreeCache) <-chan int {
	built := make(chan int, windowsAhead-1)
	go func() {
		defer close(built)
		for start, size := 0, firstTreeWindow; start < len(metrics); start, size = start+size, min(2*size, treeWindow) {
			end := min(start+size, len(metrics))
			window := metrics[start:end]
			defs := make([]*grammar.Definition, len(window))
			for k, m := range window {
				defs[k] = m.Def
			}
			// A CPU fewer than there are: the check runs beside the
			// builder, and is the slower of the two when they share
			// all the CPUs (with both of two, a check of 10,000
			// definitions waited on the builder, and the names' round
			// trips waited on pmcd).
			buildTrees(ctx, defs, trees, nil, max(1, runtime.NumCPU()-1))
			if ctx.Err() != nil {
				return
			}
			select {
			case built <- end:
			case <-ctx.Done():
				return
			}
		}
	}()
	return built
}

// definitionCount is the number of definitions of the files, registered
// or not: room enough for the metrics' names.
func definitionCount(files []*grammar.File) int {
	n := 0
	for _, f := range files {
		n += f.Definitions.Len()
	}
	return n
}

// registered lists the files' registered definitions.
func registered(files []*grammar.File) []*grammar.Definition {
	var defs []*grammar.Definition
	for _, f := range files {
		for _, d := range f.Definitions.All() {
			if d.Registered {
				defs = append(defs, d)
			}
		}
	}
	return defs
}

// buildTrees parses the definitions' syntax trees on cpus CPUs (the
// participle parse is the costliest step of a check); through trees, if
// not nil, a repeated short text once, else through shapes.
func buildTrees(ctx context.Context, defs []*grammar.Definition, trees *grammar.TreeCache, shapes *grammar.Shapes, cpus int) {
	workers := min(cpus, len(defs)/64+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n, i := 0, w; i < len(defs); n, i = n+1, i+workers {
				if n%cancelEvery == 0 && ctx.Err() != nil {
					return // the caller sees ctx's error
				}
				if trees != nil {
					trees.Tree(defs[i])
				} else {
					defs[i].TreeWith(shapes)
				}
			}
		}()
	}
	wg.Wait()
}

// ConvFactors is release v's pmConvScale: PCP 5.3.0 made a dimensionless
// side stand for count^1.
func ConvFactors(v pcpver.Version) func(from, to pmapi.Units) (int64, int64, error) {
	if v.Has(pcpver.DimensionlessIsCount) {
		return pmapi.ConvFactors
	}
	return pmapi.ConvFactorsStrict
}

// topNamesOf returns a function that lists the namespace's top-level
// names, asking the source once, when first called: nil when it cannot
// say, with the source's error if it failed.
func topNamesOf(ctx context.Context, src pmclient.Source) func() (map[string]bool, error) {
	var top map[string]bool
	var err error
	asked := false
	return func() (map[string]bool, error) {
		if !asked {
			asked = true
			var children []pmclient.Child
			if children, err = src.Children(ctx, ""); err == nil && len(children) > 0 {
				top = map[string]bool{}
				for _, ch := range children {
					top[ch.Name] = true
				}
			}
		}
		return top, err
	}
}
