package evaluator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Result is one derived metric's values in one sample: Err for an error
// (from a PMDA, or no values possible), no values and no error for "no
// values available" (libpcp's numval 0).
type Result struct {
	Name   string
	Desc   pmapi.Desc
	Values []Value
	Err    error
}

// Sample is one evaluation of every metric.
type Sample struct {
	Timestamp time.Time
	Results   []Result
}

// Evaluator keeps the history delta() and rate() need between samples.
// It is not safe for concurrent use: one goroutine samples it.
type Evaluator struct {
	src     pmclient.Source
	version pcpver.Version // the release whose evaluation rules apply (the check's)
	metrics []*checker.Metric
	rep     *checker.Report // the check's, which infers each metric's nodes to compile
	trees   []grammar.Node  // each metric's expression
	plans   [][]slot        // each metric's nodes, compiled at its first sample
	roots   []int32         // the slot of each metric's root in its plan
	outs    [][][]Value     // each metric's node buffers (Next), made at its first reuse
	// descList are the node descriptors the plans' slots number, each
	// once (interned: their numbers): a big expression has a handful of
	// distinct ones.
	descList []pmapi.Desc
	interned map[pmapi.Desc]int32
	pmids    map[string]pmapi.PMID
	fetch    []pmapi.PMID // every operand's PMID, in a fixed order
	descs    map[pmapi.PMID]pmapi.Desc
	defined  map[string]bool // defined(name), fixed at bind time as in libpcp
	state    map[grammar.Node]*nodeState
	insts    map[pmapi.InDom][]pmclient.Instance
	regexps  map[string]compiledRegexp // matchinst patterns, compiled once
	observe  Observer
	fetchAt  map[pmapi.PMID]int      // each operand's position in fetch
	fetched  []pmclient.MetricValues // the sample's operands, by position in fetch
	sample   Sample                  // Next's, reused
}

// Observer is told the values of every node a sample evaluates, as it
// evaluates them (children before parents; no values and no error is
// "no values"). Nodes a sample does not evaluate are not reported: the
// branch a static guard (PCP 6.2.2+) leaves out, the right operand of an
// operator whose left one failed, the names in defined() and anon().
// The explain package shows every subexpression from it.
type Observer func(m *checker.Metric, n grammar.Node, vals []Value, err error)

// Observe sets the function told every node's values (nil: none).
func (e *Evaluator) Observe(f Observer) { e.observe = f }

type compiledRegexp struct {
	re  *regexp.Regexp
	err error
}

type nodeState struct {
	prev      []Value // a copy of the operand's values at the last sample
	spare     []Value // the buffer prev had before (see deltaRate)
	prevStamp time.Time
	hasPrev   bool
	minmax    Value // libpcp returns the stale buffer for min/max of nothing
	// An instance filter's instance, looked up until found and then
	// kept (libpcp's pattern->inst): a name that leaves the instance
	// domain still selects its instance.
	filterID    int32
	filterFound bool
	// matchinst: whether each instance matched when it was first seen,
	// kept as libpcp keeps it (instctl_t), and the evaluations since the
	// last compaction of that memory.
	matched map[int32]*instMatch
	uses    int
}

// instMatch is one instance's remembered matchinst verdict and how often
// it was seen since the last compaction.
type instMatch struct {
	match bool
	used  int
}

// matchCompact is libpcp's REGEX_INST_COMPACT: every this many
// evaluations of a matchinst node, the instances seen in fewer than half
// of them are forgotten (and looked up again if they come back).
const matchCompact = 100

// New prepares an evaluator for the valid metrics of a check report,
// following the release the check followed.
func New(ctx context.Context, src pmclient.Source, rep *checker.Report) (*Evaluator, error) {
	e := &Evaluator{src: src, version: rep.Version, rep: rep, pmids: map[string]pmapi.PMID{}, descs: map[pmapi.PMID]pmapi.Desc{}, fetchAt: map[pmapi.PMID]int{}, state: map[grammar.Node]*nodeState{}}
	var names, defNames []string
	seen, defSeen := map[string]bool{}, map[string]bool{}
	for m := range rep.Metrics.Values() {
		if m.Status != checker.Valid {
			continue
		}
		e.metrics = append(e.metrics, m)
		tree, _ := m.Def.Tree()
		e.trees = append(e.trees, tree)
		grammar.Walk(tree, func(n grammar.Node) bool {
			if c, ok := n.(*grammar.Call); ok && (c.Func == "defined" || c.Func == "anon") {
				if mt, ok := c.Arg.(*grammar.Metric); ok && c.Func == "defined" && !defSeen[mt.Name] {
					defSeen[mt.Name] = true
					defNames = append(defNames, mt.Name)
				}
				return false
			}
			if mt, ok := n.(*grammar.Metric); ok && !seen[mt.Name] {
				seen[mt.Name] = true
				names = append(names, mt.Name)
			}
			return true
		})
	}
	if err := e.bind(ctx, rep, names, defNames); err != nil {
		return nil, err
	}
	e.plans = make([][]slot, len(e.metrics))
	e.roots = make([]int32, len(e.metrics))
	e.outs = make([][][]Value, len(e.metrics))
	return e, nil
}

// bind gives every operand its PMID and descriptor, from the check's own
// bindings where it has them (one lookup for the rest), and fixes
// defined(name) as libpcp does at bind time: true for a metric with a
// descriptor, a valid derived metric, or libpcp's event.flags and
// event.missed.
func (e *Evaluator) bind(ctx context.Context, rep *checker.Report, names, defNames []string) error {
	bound := map[string]pmapi.Desc{}
	var missing []string
	asked := map[string]bool{}
	for _, n := range append(append([]string(nil), names...), defNames...) {
		if d, ok := rep.Operands[n]; ok {
			bound[n] = d
		} else if !asked[n] {
			asked[n] = true
			missing = append(missing, n)
		}
	}
	found, err := pmclient.Resolve(ctx, e.src, missing)
	if err != nil {
		return err
	}
	for _, r := range found {
		bound[r.Name] = r.Desc // carries the PMID
	}
	for _, n := range names {
		if d, ok := bound[n]; ok {
			if _, dup := e.descs[d.PMID]; !dup {
				e.fetchAt[d.PMID] = len(e.fetch)
				e.fetch = append(e.fetch, d.PMID)
			}
			e.pmids[n] = d.PMID
			e.descs[d.PMID] = d
		}
	}
	e.defined = map[string]bool{}
	for _, n := range defNames {
		_, ok := bound[n]
		m, derived := rep.ByName.Lookup(n)
		e.defined[n] = ok || derived && m.Status == checker.Valid || n == "event.flags" || n == "event.missed"
	}
	return nil
}

// Metrics lists the metrics evaluated, in definition order.
func (e *Evaluator) Metrics() []*checker.Metric { return e.metrics }

// Sample fetches every operand once and evaluates every metric. The
// sample is the caller's to keep.
func (e *Evaluator) Sample(ctx context.Context) (*Sample, error) {
	s := &Sample{}
	if err := e.take(ctx, s, false); err != nil {
		return nil, err
	}
	return s, nil
}

// Next is Sample into memory the evaluator reuses: the sample, its results
// and their values are valid only until the next call to Next or Sample.
// For callers that use each sample before taking the next (eval over an
// archive): a replay then allocates next to nothing per sample, fetching
// through pmclient.FetchReuser when the source has it.
func (e *Evaluator) Next(ctx context.Context) (*Sample, error) {
	if err := e.take(ctx, &e.sample, true); err != nil {
		return nil, err
	}
	return &e.sample, nil
}

// take fills s with one sample: in fresh memory, or (reuse) in the
// buffers every node keeps from sample to sample.
func (e *Evaluator) take(ctx context.Context, s *Sample, reuse bool) error {
	*s = Sample{Timestamp: time.Now(), Results: s.Results[:0]}
	if len(e.fetched) != len(e.fetch) {
		e.fetched = make([]pmclient.MetricValues, len(e.fetch))
	}
	clear(e.fetched) // an operand the fetch leaves out has no values
	// A recording is fetched even for constants only: its records are the
	// samples, and its end ends the evaluation.
	rec, recorded := e.src.(pmclient.Recording)
	if len(e.fetch) > 0 || (recorded && rec.Recorded()) {
		var res *pmclient.Result
		var err error
		if fr, ok := e.src.(pmclient.FetchReuser); ok && reuse {
			res, err = fr.FetchReused(ctx, e.fetch)
		} else {
			res, err = e.src.Fetch(ctx, e.fetch)
		}
		if err != nil {
			return err
		}
		s.Timestamp = res.Timestamp
		for i, mv := range res.Metrics {
			// Sources answer in the order asked; look up any other.
			if i >= len(e.fetch) || e.fetch[i] != mv.PMID {
				var ok bool
				if i, ok = e.fetchAt[mv.PMID]; !ok {
					continue
				}
			}
			e.fetched[i] = mv
		}
	}
	if e.insts == nil {
		e.insts = map[pmapi.InDom][]pmclient.Instance{}
	}
	clear(e.insts)
	if reuse && len(s.Results) == 0 && cap(s.Results) >= len(e.metrics) {
		// Next's results keep their names and descriptors: only the
		// values and errors change from sample to sample.
		s.Results = s.Results[:len(e.metrics)]
	} else {
		s.Results = make([]Result, len(e.metrics))
		for i, m := range e.metrics {
			s.Results[i].Name, s.Results[i].Desc = m.Def.Name, m.Desc
		}
	}
	run := &sampleRun{e: e, ctx: ctx, stamp: s.Timestamp, reuse: reuse}
	for i, m := range e.metrics {
		res := &s.Results[i]
		if m.Broken {
			// Registered without a usable expression: no values.
			res.Values, res.Err = nil, nil
			continue
		}
		if e.plans[i] == nil {
			e.plans[i], e.roots[i] = e.compile(m, e.trees[i])
		}
		if reuse && e.outs[i] == nil {
			e.outs[i] = make([][]Value, len(e.plans[i]))
		}
		run.m, run.plan, run.outs = m, e.plans[i], e.outs[i]
		vals, err := run.eval(e.trees[i], e.roots[i])
		res.Values, res.Err = vals, err
		if len(vals) > 0 && m.Desc.InDom != pmapi.InDomNull {
			run.instances(m.Desc.InDom) // names for printing
		}
	}
	return nil
}

// sampleRun evaluates the trees of one sample.
type sampleRun struct {
	e     *Evaluator
	ctx   context.Context
	m     *checker.Metric
	stamp time.Time
	reuse bool      // nodes write their values into buffers they keep
	plan  []slot    // the metric's nodes (see compile)
	outs  [][]Value // with reuse, each node's buffer, by slot
}

// out returns an empty slice with room for n values to hold a node's
// values: the node's own buffer, reused from sample to sample, when the
// run reuses memory (keep it with kept), else fresh memory.
func (r *sampleRun) out(id int32, n int) []Value {
	if !r.reuse {
		return make([]Value, 0, n)
	}
	buf := &r.outs[id]
	if cap(*buf) < n {
		*buf = make([]Value, 0, n)
	}
	return (*buf)[:0]
}

// kept records a node's values as its buffer for the next sample, when
// the run reuses memory (out may have grown it), and returns them.
func (r *sampleRun) kept(id int32, vals []Value) []Value {
	if r.reuse && cap(vals) > 0 {
		r.outs[id] = vals[:0]
	}
	return vals
}

// one is a node's single value, in the node's buffer when reusing.
func (r *sampleRun) one(id int32, v Value) []Value {
	if !r.reuse {
		return []Value{v}
	}
	return r.kept(id, append(r.out(id, 1), v))
}

// kid is the slot of a node's i-th child (see children).
func (r *sampleRun) kid(id int32, i int) int32 { return r.plan[id].kids[i] }

func (r *sampleRun) desc(id int32) pmapi.Desc { return r.e.descList[r.plan[id].desc] }

// info is a node's descriptor and the scales of its value (1, 1 for a node
// the check did not annotate).
func (r *sampleRun) info(id int32) (d pmapi.Desc, mul, div float64) {
	sl := &r.plan[id]
	if sl.more == nil {
		return r.e.descList[sl.desc], 1, 1
	}
	return r.e.descList[sl.desc], sl.more.scale.mul, sl.more.scale.div
}

func (r *sampleRun) state(id int32) *nodeState {
	if more := r.plan[id].more; more != nil {
		return more.st
	}
	return nil
}

// errNoValues marks "no values" (not an error) inside the tree walk.
var errNoValues = errors.New("no values")

func (r *sampleRun) eval(n grammar.Node, root int32) ([]Value, error) {
	vals, err := r.value(n, root)
	if errors.Is(err, errNoValues) {
		return nil, nil
	}
	return vals, err
}

// value returns a node's values; (nil, nil) is "no values".
func (r *sampleRun) value(n grammar.Node, id int32) ([]Value, error) {
	vals, err := r.nodeValue(n, id)
	if r.e.observe != nil {
		r.observed(n, vals, err)
	}
	return vals, err
}

// observed tells the observer a node's values. Not inlined into value,
// which recurses: a frame as small as it can be is what a 20,000-term
// chain's evaluation costs in stack per term.
//
//go:noinline
func (r *sampleRun) observed(n grammar.Node, vals []Value, err error) {
	if errors.Is(err, errNoValues) {
		vals, err = nil, nil
	}
	r.e.observe(r.m, n, vals, err)
}

// nodeValue dispatches on the node's kind. Operators stay here; the rest
// is other's, so that this frame, one in every level of a deep tree, is
// small.
func (r *sampleRun) nodeValue(n grammar.Node, id int32) ([]Value, error) {
	switch n := n.(type) {
	case *grammar.Paren:
		return r.value(n.X, id) // a parenthesis shares its inside's slot (compile)
	case *grammar.Unary:
		return r.unary(n, id)
	case *grammar.Call:
		return r.call(n, id)
	case *grammar.Binary:
		return r.binary(n, id)
	case *grammar.Ternary:
		return r.ternary(n, id)
	}
	return r.other(n, id)
}

// other is nodeValue of the leaves, filters, matchinst and rescale.
//
//go:noinline
func (r *sampleRun) other(n grammar.Node, id int32) ([]Value, error) {
	switch n := n.(type) {
	case *grammar.Metric:
		vals, err := r.metric(n, id)
		if err != nil || n.Inst == nil {
			return vals, err
		}
		return r.filterExact(id, r.desc(id).InDom, vals, n.Inst.Name)
	case *grammar.Number, *grammar.Mkconst:
		return r.constant(n, id)
	case *grammar.Novalue:
		return nil, nil
	case *grammar.Filter:
		vals, err := r.value(n.X, r.kid(id, 0))
		if err != nil {
			return vals, err
		}
		return r.filterExact(id, r.desc(id).InDom, vals, n.Inst.Name)
	case *grammar.Matchinst:
		vals, err := r.value(n.X, r.kid(id, 0))
		if err != nil {
			return vals, err
		}
		return r.matchinst(n, id, vals)
	case *grammar.Rescale:
		return r.rescale(n, id)
	}
	return nil, fmt.Errorf("evaluator: node %T", n)
}

func (r *sampleRun) metric(n *grammar.Metric, id int32) ([]Value, error) {
	name := n.Name
	sl := &r.plan[id]
	if !sl.leafSet {
		var pmid pmapi.PMID
		if pmid, sl.leafBound = r.e.pmids[name]; sl.leafBound {
			sl.leafAt = int32(r.e.fetchAt[pmid])
		}
		sl.leafSet = true
	}
	if !sl.leafBound {
		if other, ok := r.e.findMetric(name); ok && other != r.m {
			// A derived operand: PCP 6 binds it but fetch fails.
			return nil, pmclient.ErrNoAgent
		}
		if r.e.version.Has(pcpver.LazyTernary) {
			// PCP 6.2.2+ binds an unknown name under ?: with no PMID:
			// it simply has no values.
			return nil, nil
		}
		return nil, pmclient.ErrUnknownName
	}
	mv := &r.e.fetched[sl.leafAt]
	if mv.Err != nil {
		return nil, mv.Err
	}
	// Sources deliver values in the form the operators read (see
	// pmapi.Value), and nothing here writes to an operand's values.
	return mv.Values, nil
}

func (e *Evaluator) findMetric(name string) (*checker.Metric, bool) {
	for _, m := range e.metrics {
		if m.Def.Name == name {
			return m, true
		}
	}
	return nil, false
}

// constant evaluates a literal or mkconst: one value, instance PM_IN_NULL,
// or one per instance for a constant with an instance domain.
func (r *sampleRun) constant(n grammar.Node, id int32) ([]Value, error) {
	sl := &r.plan[id]
	d := r.e.descList[sl.desc]
	if !sl.constSet {
		sl.constWord, sl.constSet = wordOf(d.Type, constValue(n, d)), true
	}
	v := valueOfWord(d.Type, sl.constWord)
	if d.InDom == pmapi.InDomNull {
		return r.one(id, v), nil
	}
	// PCP 6.2.2+: a constant with an instance domain (meta=, indom=) has
	// its value for every instance currently in the domain.
	insts := r.instances(d.InDom)
	out := r.out(id, len(insts))
	for _, in := range insts {
		v.Inst = in.ID
		out = append(out, v)
	}
	return r.kept(id, out), nil
}

// constValue is a literal's or mkconst's value in the type inferred for it
// (the same at every sample: evaluated once per node).
func constValue(n grammar.Node, d pmapi.Desc) Value {
	text := ""
	switch n := n.(type) {
	case *grammar.Number:
		text = n.Text
	case *grammar.Mkconst:
		text = n.Value.Text
	}
	v := Value{Inst: pmclient.InNull}
	switch d.Type {
	case pmapi.Type32:
		v.Int = int64(int32(atoi(text)))
	case pmapi.TypeU32:
		v.Uint = uint64(uint32(atoi(text)))
	case pmapi.Type64:
		v.Int, _ = strconv.ParseInt(leadingDigits(text), 10, 64)
	case pmapi.TypeU64:
		v.Uint, _ = strconv.ParseUint(leadingDigits(text), 10, 64)
	case pmapi.TypeFloat:
		f, _ := strconv.ParseFloat(text, 64)
		v.Float = float64(float32(f))
	case pmapi.TypeDouble:
		v.Float, _ = strconv.ParseFloat(strings.TrimSuffix(text, "."), 64)
		if text == "." {
			v.Float = 0
		}
	}
	return v
}

// atoi is C's atoi on an unsigned decimal literal: glibc converts with
// strtol and truncates to int.
func atoi(s string) int64 {
	u, _ := strconv.ParseUint(leadingDigits(s), 10, 64)
	return int64(int32(uint32(u)))
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return "0"
	}
	return s[:i]
}

func (r *sampleRun) instances(indom pmapi.InDom) []pmclient.Instance {
	if in, ok := r.e.insts[indom]; ok {
		return in
	}
	in, _ := r.e.src.Instances(r.ctx, indom)
	r.e.insts[indom] = in
	return in
}

// filterExact keeps the instance named inst: its full external name or
// the part before the first space, as pmLookupInDom matches. Like
// libpcp, it looks the name up only when the operand has values, and
// once found keeps the instance for good.
func (r *sampleRun) filterExact(id int32, indom pmapi.InDom, vals []Value, inst string) ([]Value, error) {
	if indom == pmapi.InDomNull || len(vals) == 0 {
		return nil, nil
	}
	st := r.state(id)
	if !st.filterFound {
		if lk, ok := r.e.src.(pmclient.InstanceLookuper); ok {
			// Live: the PMDA matches the name, as pmLookupInDom asks it to.
			if v, err := lk.LookupInstance(r.ctx, indom, inst); err == nil {
				st.filterID, st.filterFound = v, true
			}
		} else {
			// Archives: the full external name or the part before the
			// first space, in the instance domain at the context's time.
			for _, in := range r.instances(indom) {
				short, _, _ := strings.Cut(in.Name, " ")
				if in.Name == inst || short == inst {
					st.filterID, st.filterFound = in.ID, true
					break
				}
			}
		}
		if !st.filterFound {
			return nil, nil
		}
	}
	for _, v := range vals {
		if v.Inst == st.filterID {
			return r.one(id, v), nil
		}
	}
	return nil, nil
}

// timedInstances is implemented by archives: an instance domain as it
// was at a given time.
type timedInstances interface {
	InstancesAt(indom pmapi.InDom, t time.Time) []pmclient.Instance
}

// matchinst keeps the instances whose name (up to the first space)
// matches the pattern. As libpcp does, it names an instance when it
// first sees it (from an archive, in the instance domain at the
// sample's time), remembers the verdict, and forgets instances that
// stop coming (see matchCompact).
func (r *sampleRun) matchinst(n *grammar.Matchinst, id int32, vals []Value) ([]Value, error) {
	re, err := r.e.regexp(n.Pattern)
	if err != nil {
		return nil, err
	}
	st := r.state(id)
	if st.matched == nil {
		st.matched = map[int32]*instMatch{}
	}
	var names map[int32]string
	out := r.out(id, len(vals))
	for _, v := range vals {
		m := st.matched[v.Inst]
		if m == nil {
			if names == nil {
				names = r.instanceNames(r.desc(id).InDom)
			}
			name, ok := names[v.Inst]
			m = &instMatch{match: ok && re.MatchString(name) != n.Invert}
			st.matched[v.Inst] = m
		}
		m.used++
		if m.match {
			out = append(out, v)
		}
	}
	st.uses++
	if st.uses >= matchCompact {
		for id, m := range st.matched {
			if m.used < matchCompact/2 {
				delete(st.matched, id)
			} else {
				m.used = 0
			}
		}
		st.uses = 0
	}
	if len(out) == 0 {
		return nil, nil
	}
	return r.kept(id, out), nil
}

// instanceNames maps the instances of indom to their names up to the
// first space, at the sample's time when the source keeps history.
func (r *sampleRun) instanceNames(indom pmapi.InDom) map[int32]string {
	insts := r.instances(indom)
	if ti, ok := r.e.src.(timedInstances); ok {
		insts = ti.InstancesAt(indom, r.stamp)
	}
	names := map[int32]string{}
	for _, in := range insts {
		short, _, _ := strings.Cut(in.Name, " ")
		names[in.ID] = short
	}
	return names
}

// regexp compiles a matchinst pattern on its first use only.
func (e *Evaluator) regexp(pattern string) (*regexp.Regexp, error) {
	if c, ok := e.regexps[pattern]; ok {
		return c.re, c.err
	}
	re, err := regexp.CompilePOSIX(pattern)
	if err != nil {
		err = fmt.Errorf("matchinst pattern %q: %w", pattern, err)
	}
	if e.regexps == nil {
		e.regexps = map[string]compiledRegexp{}
	}
	e.regexps[pattern] = compiledRegexp{re, err}
	return re, err
}

func (r *sampleRun) unary(n *grammar.Unary, id int32) ([]Value, error) {
	x, err := r.value(n.X, r.kid(id, 0))
	if err != nil || len(x) == 0 {
		return x, err
	}
	xt := r.desc(r.kid(id, 0)).Type
	out := r.out(id, len(x))[:len(x)]
	for i, v := range x {
		o := Value{Inst: v.Inst}
		if n.Op == "!" {
			// libpcp writes a 32-bit 0/1 over the value: right for 32-bit
			// types only (the checker warns about the others).
			isZero := Float64(xt, v) == 0
			switch xt {
			case pmapi.Type32:
				o.Int = b2i(isZero)
			case pmapi.TypeU32:
				o.Uint = uint64(b2i(isZero))
			case pmapi.Type64:
				o.Int = b2i(isZero)
			case pmapi.TypeU64:
				o.Uint = uint64(b2i(isZero))
			default:
				o.Float = math.Float64frombits(uint64(b2i(isZero)))
			}
		} else {
			switch xt {
			case pmapi.Type32, pmapi.TypeU32:
				o.Int = int64(-int32(asInt64(xt, v)))
			case pmapi.Type64, pmapi.TypeU64:
				o.Int = -asInt64(xt, v)
			case pmapi.TypeFloat:
				o.Float = float64(-float32(v.Float))
			default:
				o.Float = -v.Float
			}
		}
		out[i] = o
	}
	return r.kept(id, out), nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
