package checker

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/editdist"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Advice: findings libpcp never reports, where it silently returns no
// values, or computes a value that is not what the user meant.

// maxSuggestedNames bounds "did you mean" work in one check: each
// distinct unknown name is compared with the whole namespace, so a
// generated config with a million distinct unknown names against a large
// namespace would cost a million namespace scans. Past this many distinct
// names the findings stay, without suggestions.
const maxSuggestedNames = 2000

// suggester finds names close to unknown ones. It remembers its answer
// per unknown name (a config repeats the same misspelling), so the cost
// is one namespace scan per distinct name.
type suggester struct {
	names func() []string
	memo  map[string][]string
	// scans counts the names compared with the whole namespace; past
	// indexAfter, index lists the namespace by bigram for the rest.
	scans int
	index *nameIndex
	// shared, when set, is what the checks of the document before this
	// one suggested (Report.suggested).
	shared *suggestions
}

// indexAfter is how many names a suggester compares with the whole
// namespace before it indexes it (nameIndex): a keystroke's check asks
// for one or two, a whole check of a big config for thousands.
// indexMinNames is the smallest namespace worth it.
const (
	indexAfter    = 16
	indexMinNames = 256
)

func newSuggester(names func() []string) *suggester {
	return &suggester{names: names, memo: map[string][]string{}}
}

// suggestions remembers "did you mean" answers from one check of a
// document to the next (Recheck passes them on): typing in a name leaves
// it unknown keystroke after keystroke, and each would scan the whole
// namespace again. The
// answers hold for the namespace they were computed against: its list,
// the same slice for as long as the metadata cache keeps it.
type suggestions struct {
	mu    sync.Mutex
	names []string
	memo  map[string][]string
}

// maxSharedSuggestions bounds the answers a document's checks remember.
const maxSharedSuggestions = 4096

func (s *suggestions) get(names []string, unknown string) ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !sameList(s.names, names) {
		return nil, false
	}
	out, ok := s.memo[unknown]
	return out, ok
}

func (s *suggestions) put(names []string, unknown string, out []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !sameList(s.names, names) || s.memo == nil {
		s.names, s.memo = names, map[string][]string{} // another namespace
	}
	if len(s.memo) < maxSharedSuggestions {
		s.memo[unknown] = out
	}
}

// sameList says whether a and b are the same slice (not merely equal).
func sameList(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// suggest returns up to three names close to unknown, nearest first.
func (s *suggester) suggest(unknown string) []string {
	if out, ok := s.memo[unknown]; ok {
		return out
	}
	if len(s.memo) >= maxSuggestedNames {
		return nil
	}
	if s.shared != nil {
		if out, ok := s.shared.get(s.names(), unknown); ok {
			s.memo[unknown] = out
			return out
		}
	}
	type cand struct {
		name string
		dist int
	}
	limit := max(2, len(unknown)/4)
	var cands []cand
	from := editdist.New(unknown)
	consider := func(n string) {
		if abs(len(n)-len(unknown)) > limit {
			return
		}
		if d := from.Distance(n); d <= limit {
			cands = append(cands, cand{n, d})
		}
	}
	names := s.names()
	if s.scans++; s.index == nil && s.scans > indexAfter && len(names) >= indexMinNames {
		s.index = newNameIndex(names)
	}
	if s.index == nil || !s.index.candidates(unknown, limit, consider) {
		for _, n := range names {
			consider(n)
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i := 0; i < len(cands) && i < 3; i++ {
		out = append(out, cands[i].name)
	}
	s.memo[unknown] = out
	if s.shared != nil {
		s.shared.put(s.names(), unknown, out)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// advisor adds warnings about valid metrics and hints for failing ones,
// one metric at a time, sharing what it looked up (the namespace for
// "did you mean", instances by instance domain) between them.
type advisor struct {
	c           *checkRun
	suggest     *suggester
	instancesOf func(pmapi.InDom) ([]pmclient.Instance, bool)
}

func (c *checkRun) newAdvisor(ctx context.Context, src pmclient.Source) *advisor {
	var allNames []string
	namesRead := false
	suggest := newSuggester(func() []string { // the namespace, read only for "did you mean"
		if lister, ok := src.(pmclient.NameLister); ok && !namesRead {
			allNames, _ = lister.AllNames(ctx)
		}
		namesRead = true
		return allNames
	})
	instances := map[pmapi.InDom][]pmclient.Instance{}
	instancesOf := func(indom pmapi.InDom) ([]pmclient.Instance, bool) {
		if in, ok := instances[indom]; ok {
			return in, in != nil
		}
		in, err := src.Instances(ctx, indom)
		if err != nil || len(in) == 0 {
			instances[indom] = nil
			return nil, false
		}
		instances[indom] = in
		return in, true
	}
	suggest.shared = c.report.suggested
	return &advisor{c: c, suggest: suggest, instancesOf: instancesOf}
}

// advise advises one checked metric.
func (a *advisor) advise(m *Metric) {
	c := a.c
	// Its unknown-metric findings are all made by now (by its own
	// check), and nothing asks for them after this.
	defer delete(c.unknownAt, m.Def)
	tree, err := m.Def.Tree()
	if err != nil {
		return
	}
	switch m.Status {
	case Unbound:
		if at := c.unknownAt[m.Def]; len(at) > 0 {
			c.adviseUnknown(m.file, m, a.suggest, at)
		}
	case Valid:
		c.adviseValid(m.file, m, tree, a.instancesOf)
	}
}

// adviseUnknown attaches "did you mean" fixes to unknown-metric findings.
func (c *checkRun) adviseUnknown(f *grammar.File, m *Metric, suggest *suggester, at []int) {
	diags := c.findingsOf(f, m)
	for _, k := range at {
		d := &diags[k]
		name := unknownNameIn(d.Message)
		if name == "" {
			continue
		}
		var alternatives []string
		if _, ok := c.report.ByName.Lookup(name); ok {
			continue
		}
		alternatives = suggest.suggest(name)
		if len(alternatives) == 0 {
			continue
		}
		d.Message += fmt.Sprintf("; did you mean %s?", strings.Join(alternatives, ", "))
		for _, alt := range alternatives {
			d.Fixes = append(d.Fixes, grammar.Fix{Title: "Change to " + alt, Edits: []grammar.Edit{{Range: d.Range, NewText: alt}}})
		}
	}
}

func unknownNameIn(msg string) string {
	rest, ok := strings.CutPrefix(msg, "unknown metric ")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, ":")
	return name
}

func (c *checkRun) adviseValid(f *grammar.File, m *Metric, tree grammar.Node, instancesOf func(pmapi.InDom) ([]pmclient.Instance, bool)) {
	warn := func(n grammar.Node, code, msg string, fixes ...grammar.Fix) {
		c.add(f, m, grammar.Diagnostic{
			Range: exprRange(f, m.Def, n.Span()), Severity: codes.DefaultSeverity(code), Code: code, Message: msg, Fixes: fixes,
		})
	}
	descOf := func(n grammar.Node) (pmapi.Desc, bool) {
		ni := m.nodes[grammar.Unwrap(n)]
		if ni == nil {
			ni = m.nodes[n]
		}
		if ni == nil {
			return pmapi.Desc{}, false
		}
		return ni.Desc, true
	}
	grammar.Walk(tree, func(n grammar.Node) bool {
		switch n := n.(type) {
		case *grammar.Metric:
			if other, ok := c.report.ByName.Lookup(n.Name); ok && other != m {
				if !c.opts.Version.Has(pcpver.NestedDerivedError) {
					warn(n, codes.NestedDerived, fmt.Sprintf("%s is a derived metric: PCP before 6.2.2 accepts it here but every fetch of %s fails with \"No PMCD agent for domain of request\"", n.Name, m.Def.Name))
				}
			}
			if n.Inst != nil && !c.quotedInstance(f, m, n, *n.Inst, descOf, instancesOf) {
				c.adviseInstance(warn, n, n.Inst.Name, descOf, instancesOf)
			}
		case *grammar.Filter:
			if !c.quotedInstance(f, m, n, n.Inst, descOf, instancesOf) {
				c.adviseInstance(warn, n, n.Inst.Name, descOf, instancesOf)
			}
			if !c.opts.Version.Has(pcpver.ExprInstance) {
				warn(n, codes.LibpcpCrash, fmt.Sprintf("(expr)[instance] crashes libpcp %s when fetched (fixed in PCP 6.1.1): filter the metric itself, as metric[instance]", c.opts.Version))
			}
		case *grammar.Matchinst:
			c.adviseMatchinst(warn, n, descOf, instancesOf)

		case *grammar.Unary:
			if x, ok := descOf(n.X); ok && n.Op == "!" && x.Type != pmapi.Type32 && x.Type != pmapi.TypeU32 {
				warn(n, codes.WrongValue, fmt.Sprintf("libpcp computes !x only for 32-bit values: for this %s operand the value is garbage; write (x) == 0", typeText(x.Type)),
					grammar.Fix{Title: "Rewrite as (x) == 0", Edits: []grammar.Edit{{Range: exprRange(f, m.Def, n.Span()), NewText: "(" + grammar.Format(n.X) + ") == 0"}}})
			}
		case *grammar.Binary:
			c.adviseBinary(warn, m, n, descOf)
		case *grammar.Call:
			if n.Func == "defined" {
				return false // binds without fetching: nesting is fine
			}
			if x, ok := descOf(n.Arg); ok && n.Func == "rate" && x.Sem != pmapi.SemCounter {
				warn(n, codes.RateOfInstant, fmt.Sprintf("rate() of a %s metric is its change per second, rarely what is wanted (rate() is for counters)", x.Sem))
			}
			if n.Func == "scalar" && !c.opts.Version.Has(pcpver.ExprInstance) {
				if x, ok := descOf(n.Arg); ok && x.InDom != pmapi.InDomNull {
					warn(n, codes.LibpcpCrash, fmt.Sprintf("scalar() of an expression with no values crashes libpcp %s (fixed in PCP 6.1.1)", c.opts.Version))
				}
			}
		}
		return true
	})
}

func (c *checkRun) adviseInstance(warn func(grammar.Node, string, string, ...grammar.Fix), n grammar.Node, inst string, descOf func(grammar.Node) (pmapi.Desc, bool), instancesOf func(pmapi.InDom) ([]pmclient.Instance, bool)) {
	d, ok := descOf(n)
	if !ok {
		return
	}
	if d.InDom == pmapi.InDomNull {
		warn(n, codes.FilterOnSingular, fmt.Sprintf("[%s] filters a metric without instances: libpcp accepts it and it never has a value", inst))
		return
	}
	insts, ok := instancesOf(d.InDom)
	if !ok {
		return
	}
	var names []string
	for _, i := range insts {
		// libpcp matches the full name or the part before the first space.
		short, _, _ := strings.Cut(i.Name, " ")
		if i.Name == inst || short == inst {
			return
		}
		names = append(names, i.Name)
	}
	msg := fmt.Sprintf("no instance %q in instance domain %s now", inst, d.InDom)
	if alts := c.instanceSuggester(d.InDom, names).suggest(inst); len(alts) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", strings.Join(alts, ", "))
	} else if len(names) <= 8 {
		msg += fmt.Sprintf(" (instances: %s)", strings.Join(names, ", "))
	}
	warn(n, codes.UnknownInstance, msg)
}

// quotedInstance reports an instance filter written with quotes, as in
// disk.dev.read["vda"]: libpcp's lexer keeps everything between the
// brackets, quotes included, in every release, so it looks for an
// instance named "vda" with the quotes and the metric never has a value.
// It is an error with the unquoted spelling as the fix, unless the
// instance domain really has such a name. It returns whether it reported.
func (c *checkRun) quotedInstance(f *grammar.File, m *Metric, n grammar.Node, inst grammar.InstName, descOf func(grammar.Node) (pmapi.Desc, bool), instancesOf func(pmapi.InDom) ([]pmclient.Instance, bool)) bool {
	name := inst.Name
	if len(name) < 3 || name[0] != '"' || name[len(name)-1] != '"' {
		return false
	}
	if d, ok := descOf(n); ok && d.InDom != pmapi.InDomNull {
		if insts, ok := instancesOf(d.InDom); ok {
			for _, i := range insts {
				if i.Name == name {
					return false
				}
			}
		}
	}
	unquoted := name[1 : len(name)-1]
	fixText := "[" + strings.NewReplacer(`\`, `\\`, "]", `\]`).Replace(unquoted) + "]"
	rg := exprRange(f, m.Def, inst.At)
	c.add(f, m, grammar.Diagnostic{
		Range: rg, Severity: codes.DefaultSeverity(codes.QuotedInstance), Code: codes.QuotedInstance,
		Message: fmt.Sprintf("the quotes are part of the instance name: libpcp looks for an instance named %s, quotes included, so %s never has a value; write %s", name, m.Def.Name, fixText),
		Fixes:   []grammar.Fix{{Title: "Remove the quotes: " + fixText, Edits: []grammar.Edit{{Range: rg, NewText: fixText}}, Safe: true}},
	})
	return true
}

// instanceSuggester returns the suggester for names of indom's
// instances, made from names the first time.
func (c *checkRun) instanceSuggester(indom pmapi.InDom, names []string) *suggester {
	if s, ok := c.instanceHints[indom]; ok {
		return s
	}
	if c.instanceHints == nil {
		c.instanceHints = map[pmapi.InDom]*suggester{}
	}
	s := newSuggester(func() []string { return names })
	c.instanceHints[indom] = s
	return s
}

// posixOnly spots POSIX regular expression features that Go's RE2 reads
// differently, so a match test would be a guess.
var posixOnly = regexp.MustCompile(`\[\[[:.=]|\\[0-9]|\[[^\]]*\\`)

func (c *checkRun) adviseMatchinst(warn func(grammar.Node, string, string, ...grammar.Fix), n *grammar.Matchinst, descOf func(grammar.Node) (pmapi.Desc, bool), instancesOf func(pmapi.InDom) ([]pmclient.Instance, bool)) {
	d, ok := descOf(n.X)
	if !ok {
		return
	}
	if d.InDom == pmapi.InDomNull {
		warn(n, codes.FilterOnSingular, "matchinst() filters an expression without instances: libpcp accepts it and it never has a value")
		return
	}
	insts, ok := instancesOf(d.InDom)
	if !ok {
		return
	}
	if posixOnly.MatchString(n.Pattern) {
		warn(n, codes.PatternUnchecked, "this pattern uses POSIX regular expression features pcp-derive-lsp cannot evaluate exactly, so it was not matched against the instances")
		return
	}
	re, err := regexp.CompilePOSIX(n.Pattern)
	if err != nil {
		return
	}
	for _, i := range insts {
		short, _, _ := strings.Cut(i.Name, " ")
		if re.MatchString(short) != n.Invert {
			return
		}
	}
	warn(n, codes.PatternMatchesNothing, fmt.Sprintf("the pattern matches none of the %d current instances of %s (libpcp matches names cut at the first space, case-sensitively)", len(insts), d.InDom))
}

func (c *checkRun) adviseBinary(warn func(grammar.Node, string, string, ...grammar.Fix), m *Metric, n *grammar.Binary, descOf func(grammar.Node) (pmapi.Desc, bool)) {
	l, ok1 := descOf(n.L)
	r, ok2 := descOf(n.R)
	if !ok1 || !ok2 {
		return
	}
	switch n.Op {
	case "<", "<=", ">", ">=", "==", "!=":
		// libpcp compares a signed 32-bit metric with an integer literal
		// as unsigned. That only matters for negative values, which most
		// metrics never have, so only the comparisons it makes constant
		// are worth a word: x < 0 and 0 > x are never true, x >= 0 and
		// 0 <= x always are.
		signed := func(t pmapi.Type) bool { return t == pmapi.Type32 }
		zero := func(x grammar.Node) bool {
			num, ok := grammar.Unwrap(x).(*grammar.Number)
			return ok && isConst(x) && strings.Trim(num.Text, "0") == ""
		}
		var always string
		switch {
		case signed(l.Type) && zero(n.R) && r.Type == pmapi.TypeU32 && (n.Op == "<" || n.Op == ">="):
			always = map[string]string{"<": "false", ">=": "true"}[n.Op]
		case signed(r.Type) && zero(n.L) && l.Type == pmapi.TypeU32 && (n.Op == ">" || n.Op == "<="):
			always = map[string]string{">": "false", "<=": "true"}[n.Op]
		}
		if always != "" {
			warn(n, codes.WrongValue, fmt.Sprintf("libpcp compares a signed 32-bit metric with an integer literal as unsigned, so this comparison is always %s (negative values compare as huge ones); write mkconst(0, type=32) for the literal", always))
		}
	case "-":
		// An integer literal is unsigned: with a signed 32-bit metric the
		// difference is unsigned too, and a negative one wraps around.
		res, ok := descOf(n)
		if !ok || (res.Type != pmapi.TypeU32 && res.Type != pmapi.TypeU64) || !(isConst(n.L) || isConst(n.R)) {
			break
		}
		other := l
		if isConst(n.L) {
			other = r
		}
		msg := fmt.Sprintf("libpcp computes this difference as %s: where it would be negative it wraps around to a huge value (0 - 1 is %s)",
			typeText(res.Type), map[pmapi.Type]string{pmapi.TypeU32: "4294967295", pmapi.TypeU64: "18446744073709551615"}[res.Type])
		if other.Type == pmapi.Type32 {
			msg += "; write the literal as mkconst(N, type=32) for a signed result"
		}
		warn(n, codes.WrongValue, msg)
	case "/":
		if num, ok := grammar.Unwrap(n.R).(*grammar.Number); ok && strings.Trim(num.Text, "0.") == "" {
			warn(n, codes.WrongValue, "division by a constant zero: libpcp returns infinity (or 0 when the numerator is 0)")
		}
	}
	if n.Op == "*" || n.Op == "/" {
		// libpcp scales the left operand using the right operand's
		// dimension sign: with opposite signs it converts the wrong way.
		lu, ru := l.Units, r.Units
		wrongTime := lu.DimTime != 0 && ru.DimTime != 0 && lu.ScaleTime < ru.ScaleTime && (lu.DimTime > 0) != (ru.DimTime > 0)
		wrongSpace := lu.DimSpace != 0 && ru.DimSpace != 0 && lu.ScaleSpace < ru.ScaleSpace && (lu.DimSpace > 0) != (ru.DimSpace > 0)
		if wrongTime || wrongSpace {
			warn(n, codes.WrongValue, "libpcp converts the left operand's units the wrong way here (a known libpcp bug with "+
				"opposite dimensions in * and /): the value is off by the scale factor squared; swap the operands or rescale() one first")
		}
	}
}
