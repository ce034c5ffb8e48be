package checker

import (
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// semErr is libpcp's first semantic error in a definition.
type semErr struct {
	node grammar.Node
	msg  string
	// rendering overrides grammar.LibpcpRendering (rescale needs units).
	rendering string
}

func (e *semErr) Error() string { return e.msg }

// inferrer computes pmDesc for every node the way libpcp's check_expr and
// map_desc do, in the same order, stopping at the first error.
type inferrer struct {
	version pcpver.Version
	nodes   map[grammar.Node]*NodeInfo
	// leaf returns the bound descriptor of a metric name; under a lazy
	// ternary it is lenient (unknown names bind zeroed), while bound
	// always says whether the name really binds (libpcp's PMID check).
	leaf, bound func(m *grammar.Metric) (pmapi.Desc, bool)
	// constDesc returns the descriptor of a literal or mkconst.
	constDesc func(n grammar.Node) (pmapi.Desc, error)
	// unitsOf parses a rescale target.
	unitsOf func(s string) (pmapi.Units, error)
	// specZero: libpcp's static spec descriptor is all zeros where this
	// expression's novalue(SPECS) are parsed (grammar.File.SpecZero):
	// before the first mkconst( of the expression, their instance domain
	// is 0.0.
	specZero bool
	// mkconstBefore reports whether a mkconst( comes before byte off of
	// the expression.
	mkconstBefore func(off int) bool
	// convertible is pmConvScale's feasibility test.
	convertible func(from, to pmapi.Units) bool
	// unitsText renders units as pmUnitsStr does.
	unitsText func(u pmapi.Units) string
	// equivalent reports instance domains declared the same (6.0.4+).
	equivalent func(a, b pmapi.InDom) bool
	// mappedToNovalue reports a name option_novalue binds as a novalue()
	// node (nil without option_novalue).
	mappedToNovalue func(m *grammar.Metric) bool
	// final, when set, is told each node's metadata once it is final,
	// and nodes then holds only the nodes not yet passed on (see
	// Report.InferEach).
	final func(grammar.Node, *NodeInfo)
	// interned are a big tree's distinct records (put).
	interned map[NodeInfo]*NodeInfo
}

// isConst reports a node libpcp represents as N_INTEGER or N_DOUBLE.
func isConst(n grammar.Node) bool {
	switch grammar.Unwrap(n).(type) {
	case *grammar.Number, *grammar.Mkconst:
		return true
	}
	return false
}

var (
	noUnits   pmapi.Units
	countUnit = pmapi.Units{DimCount: 1}
)

// desc infers a node's descriptor.
func (in *inferrer) desc(n grammar.Node) (pmapi.Desc, error) {
	switch n := n.(type) {
	case *grammar.Paren:
		d, err := in.desc(n.X)
		if err != nil {
			return d, err
		}
		return in.set(n, d), nil
	case *grammar.Metric:
		d, ok := in.leaf(n)
		if !ok {
			return pmapi.Desc{}, fmt.Errorf("unbound metric %s", n.Name)
		}
		return in.set(n, d), nil
	case *grammar.Number, *grammar.Mkconst:
		d, err := in.constDesc(n)
		if err != nil {
			return d, err
		}
		return in.set(n, d), nil
	case *grammar.Novalue:
		d, err := in.constDesc(n)
		if err != nil {
			return d, err
		}
		return in.set(n, d), nil
	case *grammar.Filter:
		d, err := in.desc(n.X)
		if err != nil {
			return d, err
		}
		return in.set(n, d), nil
	case *grammar.Matchinst:
		d, err := in.desc(n.X)
		if err != nil {
			return d, err
		}
		return in.set(n, d), nil
	case *grammar.Unary:
		return in.unary(n)
	case *grammar.Call:
		return in.call(n)
	case *grammar.Rescale:
		return in.rescale(n)
	case *grammar.Binary:
		return in.binary(n)
	case *grammar.Ternary:
		return in.ternary(n)
	}
	return pmapi.Desc{}, fmt.Errorf("checker: unexpected node %T", n)
}

func (in *inferrer) unary(n *grammar.Unary) (pmapi.Desc, error) {
	x, err := in.desc(n.X)
	if err != nil {
		return x, err
	}
	d := x
	if n.Op == "!" {
		// Quirk: "!x" keeps x's metadata whatever the operand.
		return in.set(n, d), nil
	}
	if !x.Type.Arithmetic() {
		return d, &semErr{node: n, msg: "Non-arithmetic operand for unary negation"}
	}
	d.Sem = pmapi.SemInstant
	switch x.Type {
	case pmapi.TypeU32:
		d.Type = pmapi.Type32
	case pmapi.TypeU64:
		d.Type = pmapi.Type64
	}
	return in.set(n, d), nil
}

func (in *inferrer) call(n *grammar.Call) (pmapi.Desc, error) {
	switch n.Func {
	case "defined":
		return in.set(n, pmapi.Desc{PMID: pmapi.PMIDNull, Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}), nil
	case "anon":
		t := anonType(n)
		return in.set(n, pmapi.Desc{PMID: pmapi.PMIDNull, Type: t, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}), nil
	}
	x, err := in.desc(n.Arg)
	if err != nil {
		return x, err
	}
	d := x
	switch n.Func {
	case "count":
		d.Type, d.Units, d.Sem, d.InDom = pmapi.TypeU32, countUnit, pmapi.SemInstant, pmapi.InDomNull
		return in.set(n, d), nil
	case "instant":
		if x.Sem == pmapi.SemCounter {
			d.Sem = pmapi.SemInstant
		}
		return in.set(n, d), nil
	case "scalar":
		d.InDom = pmapi.InDomNull
		return in.set(n, d), nil
	}
	// avg sum max min delta rate: arithmetic operands only.
	if !x.Type.Arithmetic() {
		return d, &semErr{node: n, msg: "Non-arithmetic operand for function"}
	}
	if n.Func != "sum" {
		d.Sem = pmapi.SemInstant
	}
	switch n.Func {
	case "rate":
		if x.Units.DimTime != 0 && x.Units.DimTime != 1 {
			return d, &semErr{node: n, msg: "Incorrect time dimension for operand"}
		}
		d.Type = pmapi.TypeDouble
		d.Units.DimTime--
		if d.Units.DimTime == 0 {
			d.Units.ScaleTime = 0
		} else {
			d.Units.ScaleTime = pmapi.TimeSec
		}
	case "delta":
		// 5.3.0 made delta() of an unsigned metric signed, with room for
		// negative differences; before, it kept the operand's type.
		if in.version.Has(pcpver.DeltaSigned) {
			switch x.Type {
			case pmapi.TypeU32:
				d.Type = pmapi.Type64
			case pmapi.TypeU64:
				d.Type = pmapi.TypeDouble
			}
		}
	case "avg", "sum", "max", "min": // one value
		d.InDom = pmapi.InDomNull
		if n.Func == "avg" {
			d.Type = pmapi.TypeFloat
		}
	default: // a function the catalogue gained and the checker has not
		return d, fmt.Errorf("no metadata for function %s (please report)", n.Func)
	}
	return in.set(n, d), nil
}

func anonType(n *grammar.Call) pmapi.Type {
	if m, ok := n.Arg.(*grammar.Metric); ok {
		switch m.Name {
		case "PM_TYPE_32":
			return pmapi.Type32
		case "PM_TYPE_U32":
			return pmapi.TypeU32
		case "PM_TYPE_64":
			return pmapi.Type64
		case "PM_TYPE_U64":
			return pmapi.TypeU64
		case "PM_TYPE_FLOAT":
			return pmapi.TypeFloat
		case "PM_TYPE_DOUBLE":
			return pmapi.TypeDouble
		}
	}
	return pmapi.TypeUnknown
}

func (in *inferrer) rescale(n *grammar.Rescale) (pmapi.Desc, error) {
	x, err := in.desc(n.X)
	if err != nil {
		return x, err
	}
	to, err := in.unitsOf(n.Units)
	if err != nil {
		return x, err
	}
	rendering := grammar.LibpcpRescaleRendering(n, in.unitsText(to))
	if !x.Type.Arithmetic() {
		return x, &semErr{node: n, msg: "Non-arithmetic operand for function", rendering: rendering}
	}
	if !in.convertible(x.Units, to) {
		return x, &semErr{node: n, msg: "Incompatible dimensions", rendering: rendering}
	}
	d := x
	d.Units = to
	return in.set(n, d), nil
}

func (in *inferrer) ternary(n *grammar.Ternary) (pmapi.Desc, error) {
	if in.version.Has(pcpver.LazyTernary) {
		return in.ternaryLazy(n)
	}
	g, err := in.desc(n.Cond)
	if err != nil {
		return g, err
	}
	a, err := in.desc(n.Then)
	if err != nil {
		return a, err
	}
	b, err := in.desc(n.Else)
	if err != nil {
		return b, err
	}
	return in.ternaryChecks(n, g, a, b)
}

// ternaryLazy is PCP 6.2.2+'s ternary, checked in libpcp's order: the
// guard (unknown names in it bind to a zeroed descriptor); then the
// branches the guard selects — a static guard (integer constants and
// mkconst()s of them, defined(), !, &&, ||) selects one, any other both —
// where unknown names also bind zeroed, so errors inside a branch come
// first; then "Unknown metric for ternary expression" for a selected
// branch that names one; then, when both branches were bound and neither
// is novalue(), the checks that they agree; last the guard's own checks.
func (in *inferrer) ternaryLazy(n *grammar.Ternary) (pmapi.Desc, error) {
	g, err := in.lenientDesc(n.Cond)
	if err != nil {
		return g, err
	}
	guard, known := staticGuard(n.Cond, in.definedNow)
	bindThen, bindElse := !known || guard, !known || !guard
	var a, b pmapi.Desc
	if bindThen {
		if a, err = in.lenientDesc(n.Then); err != nil {
			return a, err
		}
	}
	if bindElse {
		if b, err = in.lenientDesc(n.Else); err != nil {
			return b, err
		}
	}
	for _, br := range []struct {
		bound bool
		node  grammar.Node
	}{{bindThen, n.Then}, {bindElse, n.Else}} {
		if !br.bound {
			continue
		}
		if name := firstUnknown(br.node, in.bound); name != "" {
			return pmapi.Desc{}, &semErr{node: n, msg: "Unknown metric for ternary expression", rendering: "operand " + name}
		}
	}
	if known {
		// The other branch is never evaluated: no agreement checks, and
		// a constant guard passes the guard's own checks.
		d, bind := a, BindThen
		if !guard {
			d, bind = b, BindElse
		}
		ni, _ := in.info(n)
		ni.Bind = bind
		in.put(n, ni)
		return in.set(n, d), nil
	}
	return in.ternaryChecks(n, g, a, b)
}

// lenientDesc infers a guard where unknown metrics bind to a zeroed
// descriptor (type 32, instance domain 0), as PCP 6.2.2+ does.
func (in *inferrer) lenientDesc(n grammar.Node) (pmapi.Desc, error) {
	saved := in.leaf
	in.leaf = func(m *grammar.Metric) (pmapi.Desc, bool) {
		if d, ok := saved(m); ok {
			return d, true
		}
		return pmapi.Desc{PMID: pmapi.PMIDNull}, true
	}
	defer func() { in.leaf = saved }()
	return in.desc(n)
}

// firstUnknown returns the first metric name under n that does not bind
// (anon()'s argument is a type, not a metric; defined() may name anything).
func firstUnknown(n grammar.Node, leaf func(*grammar.Metric) (pmapi.Desc, bool)) string {
	name := ""
	grammar.Walk(n, func(x grammar.Node) bool {
		if c, ok := x.(*grammar.Call); ok && (c.Func == "defined" || c.Func == "anon") {
			return false
		}
		if m, ok := x.(*grammar.Metric); ok && name == "" {
			if _, bound := leaf(m); !bound {
				name = m.Name
			}
		}
		return name == ""
	})
	return name
}

// staticGuard evaluates a guard made only of integer literals (mkconst()
// of one too: libpcp makes the same node of both), defined(), !, && and
// || (short-circuit; an unknown left side makes all unknown).
func staticGuard(n grammar.Node, leaf func(*grammar.Metric) (pmapi.Desc, bool)) (value, known bool) {
	switch n := grammar.Unwrap(n).(type) {
	case *grammar.Mkconst:
		return staticGuard(&n.Value, leaf)
	case *grammar.Number:
		if n.Double() {
			return false, false
		}
		return strings.Trim(n.Text, "0") != "", true
	case *grammar.Call:
		if n.Func != "defined" {
			return false, false
		}
		_, ok := leaf(n.Arg.(*grammar.Metric))
		return ok, true
	case *grammar.Unary:
		if n.Op != "!" {
			return false, false
		}
		v, ok := staticGuard(n.X, leaf)
		return !v, ok
	case *grammar.Binary:
		if n.Op != "&&" && n.Op != "||" {
			return false, false
		}
		l, ok := staticGuard(n.L, leaf)
		if !ok {
			return false, false
		}
		if (n.Op == "&&" && !l) || (n.Op == "||" && l) {
			return l, true
		}
		return staticGuard(n.R, leaf)
	}
	return false, false
}

// isNovalue reports whether libpcp binds n as a novalue() node: novalue()
// itself, or a name option_novalue maps to it.
func (in *inferrer) isNovalue(n grammar.Node) bool {
	switch n := grammar.Unwrap(n).(type) {
	case *grammar.Novalue:
		return true
	case *grammar.Metric:
		return in.mappedToNovalue != nil && in.mappedToNovalue(n)
	}
	return false
}

// definedNow is what defined(m) is when libpcp binds: whether m really
// binds; a name option_novalue maps to novalue() is not defined.
func (in *inferrer) definedNow(m *grammar.Metric) (pmapi.Desc, bool) {
	if in.mappedToNovalue != nil && in.mappedToNovalue(m) {
		return pmapi.Desc{}, false
	}
	return in.bound(m)
}

// ternaryChecks are the ":" and "?" node checks.
func (in *inferrer) ternaryChecks(n *grammar.Ternary, g, a, b pmapi.Desc) (pmapi.Desc, error) {
	aNovalue, bNovalue := in.isNovalue(n.Then), in.isNovalue(n.Else)
	colon := &colonNode{n}
	d := a
	switch {
	case aNovalue:
		d = b
		if in.zeroIndom(n, n.Then) {
			d.InDom = 0
		}
	case bNovalue:
		if in.zeroIndom(n, n.Else) {
			d.InDom = 0
		}
	default:
		// The ":" node: both branches must agree.
		switch {
		case a.Type != b.Type:
			return d, &semErr{node: colon, msg: "Different types for ternary operands"}
		case a.InDom != b.InDom && a.InDom != pmapi.InDomNull && b.InDom != pmapi.InDomNull:
			return d, &semErr{node: colon, msg: "Different instance domains for ternary operands"}
		}
		if a.InDom == pmapi.InDomNull {
			d.InDom = b.InDom
		}
		switch {
		case a.Sem != b.Sem:
			return d, &semErr{node: colon, msg: "Different semantics for ternary operands"}
		case a.Units.DimSpace != b.Units.DimSpace || a.Units.ScaleSpace != b.Units.ScaleSpace:
			return d, &semErr{node: colon, msg: "Different units or scale (space) for ternary operands"}
		case a.Units.DimTime != b.Units.DimTime || a.Units.ScaleTime != b.Units.ScaleTime:
			return d, &semErr{node: colon, msg: "Different units or scale (time) for ternary operands"}
		case a.Units.DimCount != b.Units.DimCount || a.Units.ScaleCount != b.Units.ScaleCount:
			return d, &semErr{node: colon, msg: "Different units or scale (count) for ternary operands"}
		case in.version.Has(pcpver.ExtraUnits) && (a.Units.ExtraUnit != b.Units.ExtraUnit || a.Units.ExtraScale != b.Units.ExtraScale):
			return d, &semErr{node: colon, msg: "Different units or scale (extra) for ternary operands"}
		}
	}
	// The "?" node: the guard.
	if !g.Type.Arithmetic() {
		return d, &semErr{node: n, msg: "Non-arithmetic operand for ternary guard"}
	}
	if a.InDom == pmapi.InDomNull && b.InDom == pmapi.InDomNull && g.InDom != pmapi.InDomNull {
		return d, &semErr{node: n, msg: "Non-scalar ternary guard with scalar expressions"}
	}
	return in.set(n, d), nil
}

// colonNode stands for libpcp's ":" node, which renders as "then : else".
type colonNode struct{ t *grammar.Ternary }

func (c *colonNode) Span() grammar.Span {
	return grammar.Span{Start: c.t.Then.Span().Start, End: c.t.Else.Span().End}
}

var promote = [6][6]pmapi.Type{
	{pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble},
	{pmapi.TypeU32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble},
	{pmapi.Type64, pmapi.Type64, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble},
	{pmapi.TypeU64, pmapi.TypeU64, pmapi.TypeU64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble},
	{pmapi.TypeFloat, pmapi.TypeFloat, pmapi.TypeFloat, pmapi.TypeFloat, pmapi.TypeFloat, pmapi.TypeDouble},
	{pmapi.TypeDouble, pmapi.TypeDouble, pmapi.TypeDouble, pmapi.TypeDouble, pmapi.TypeDouble, pmapi.TypeDouble},
}

// Promote is libpcp's type promotion for + - * and comparisons.
func Promote(a, b pmapi.Type) pmapi.Type { return promote[a][b] }

func isRelational(op string) bool {
	switch op {
	case "<", "<=", "==", ">=", ">", "!=":
		return true
	}
	return false
}

// Extra units (PCP 7.2) count as a dimension everywhere; they only occur
// where the target release has them, so older releases see 6.0's tests.
func sameDims(a, b pmapi.Units) bool {
	return a.DimSpace == b.DimSpace && a.DimTime == b.DimTime && a.DimCount == b.DimCount && a.ExtraUnit == b.ExtraUnit
}

// countLeniency: one side dimensionless, the other exactly count^1
// (PCP 5.3.0 and later; before, "Dimensions are not the same").
func (in *inferrer) countLeniency(a, b pmapi.Units) bool {
	return in.version.Has(pcpver.DimensionlessIsCount) && a.DimTime == 0 && b.DimTime == 0 && a.DimSpace == 0 && b.DimSpace == 0 && a.ExtraUnit == 0 && b.ExtraUnit == 0 &&
		((a.DimCount == 0 && b.DimCount == 1) || (a.DimCount == 1 && b.DimCount == 0))
}

func dimensionless(u pmapi.Units) bool {
	return u.DimSpace == 0 && u.DimTime == 0 && u.DimCount == 0 && u.ExtraUnit == 0
}

func (in *inferrer) binary(n *grammar.Binary) (pmapi.Desc, error) {
	l, err := in.desc(n.L)
	if err != nil {
		return l, err
	}
	r, err := in.desc(n.R)
	if err != nil {
		return r, err
	}
	return in.operator(n, &l, &r)
}

// operator is libpcp's checks of a binary operator and the metadata it
// gives, from its operands'. Kept out of binary, which recurses: its
// locals in every frame of a 20,000-term chain doubled the stack.
//
//go:noinline
func (in *inferrer) operator(n *grammar.Binary, lp, rp *pmapi.Desc) (pmapi.Desc, error) {
	l, r := *lp, *rp
	op := n.Op
	rel := isRelational(op)
	boolean := op == "&&" || op == "||"
	fail := func(msg string) (pmapi.Desc, error) { return pmapi.Desc{}, &semErr{node: n, msg: msg} }

	if !rel && !boolean {
		lc, rc := l.Sem == pmapi.SemCounter, r.Sem == pmapi.SemCounter
		switch {
		case lc && rc && op != "+" && op != "-":
			return fail("Illegal operator for counters")
		case lc && !rc && op != "*" && op != "/":
			return fail("Illegal operator for counter and non-counter")
		case !lc && rc && op != "*":
			return fail("Illegal operator for non-counter and counter")
		}
	}
	d := l
	if isConst(n.L) {
		d = r
	}
	if l.Sem != pmapi.SemCounter && r.Sem != pmapi.SemCounter {
		if l.Sem == pmapi.SemDiscrete && r.Sem == pmapi.SemDiscrete {
			d.Sem = pmapi.SemDiscrete
		} else {
			d.Sem = pmapi.SemInstant
		}
	}
	if !l.Type.Arithmetic() {
		return fail("Non-arithmetic type for left operand")
	}
	if !r.Type.Arithmetic() {
		return fail("Non-arithmetic type for right operand")
	}
	switch {
	case op == "/":
		d.Type = pmapi.TypeDouble
	case rel || boolean:
		d.Type = pmapi.TypeU32
	default:
		d.Type = promote[l.Type][r.Type]
	}
	if (op == "+" || op == "-") && !sameDims(l.Units, r.Units) && !in.countLeniency(l.Units, r.Units) {
		return fail("Dimensions are not the same")
	}
	// Quirk: meant to exempt numeric constants, the test compares data
	// types with a node type, so any U32 operand is exempt.
	if rel && l.Type != pmapi.TypeU32 && r.Type != pmapi.TypeU32 && !sameDims(l.Units, r.Units) && !in.countLeniency(l.Units, r.Units) {
		return fail("Dimensions are not the same")
	}
	if boolean && (!dimensionless(l.Units) || !dimensionless(r.Units)) {
		return fail("Dimensions are not the same")
	}
	if op == "*" || op == "/" || rel {
		if l.Sem == pmapi.SemCounter && r.Sem != pmapi.SemCounter && !dimensionless(r.Units) {
			return fail("Non-counter and not dimensionless for right operand")
		}
		if l.Sem != pmapi.SemCounter && r.Sem == pmapi.SemCounter && !dimensionless(l.Units) {
			return fail("Non-counter and not dimensionless for left operand")
		}
	}
	lx, rx := l.Units.ExtraUnit != 0, r.Units.ExtraUnit != 0
	sameExtra := l.Units.ExtraUnit == r.Units.ExtraUnit && l.Units.ExtraScale == r.Units.ExtraScale
	switch {
	case op == "*" && lx && rx:
		return fail("Extra units not allowed for both operands of *")
	case op == "/" && lx && rx && !sameExtra:
		return fail("Different extra units not allowed for both operands of /")
	case lx && rx && !sameExtra:
		return fail("Operands have incompatible extra units or scale")
	}
	if rel || boolean {
		d.Units = noUnits
	} else {
		in.mapUnits(n, l, r, &d)
	}
	switch {
	case l.InDom != pmapi.InDomNull && r.InDom != pmapi.InDomNull && l.InDom != r.InDom &&
		(in.equivalent == nil || !in.equivalent(l.InDom, r.InDom)):
		return fail("Operands should have the same instance domain")
	case l.InDom != pmapi.InDomNull && r.InDom == pmapi.InDomNull:
		d.InDom = l.InDom
	case r.InDom != pmapi.InDomNull && l.InDom == pmapi.InDomNull:
		d.InDom = r.InDom
	}
	return in.set(n, d), nil
}

// timeFactor is the factor between time scale s and s+1.
var timeFactor = [...]float64{1000, 1000, 1000, 60, 60}

// mapUnits reconciles unit scales for + - * / ("the larger scale wins"),
// including libpcp's quirk of testing the right operand's dimension sign
// when scaling the left operand's time and space.
func (in *inferrer) mapUnits(n *grammar.Binary, l, r pmapi.Desc, d *pmapi.Desc) {
	li, lok := in.info(n.L)
	ri, rok := in.info(n.R)
	l0, r0 := li, ri
	lu, ru := l.Units, r.Units
	scaleOperands(lu, ru, &li, &ri, d)
	// The operands' records, scaled (a record is never changed in place).
	if !lok || li != l0 {
		in.put(n.L, li)
	}
	if !rok || ri != r0 {
		in.put(n.R, ri)
	}
	switch n.Op {
	case "*":
		d.Units.DimCount = lu.DimCount + ru.DimCount
		d.Units.DimTime = lu.DimTime + ru.DimTime
		d.Units.DimSpace = lu.DimSpace + ru.DimSpace
		// Extra units on one side carry through (both sides: refused).
		if lu.ExtraUnit != 0 && ru.ExtraUnit == 0 {
			d.Units.ExtraUnit, d.Units.ExtraScale = lu.ExtraUnit, lu.ExtraScale
		} else if lu.ExtraUnit == 0 && ru.ExtraUnit != 0 {
			d.Units.ExtraUnit, d.Units.ExtraScale = ru.ExtraUnit, ru.ExtraScale
		}
	case "/":
		d.Units.DimCount = lu.DimCount - ru.DimCount
		d.Units.DimTime = lu.DimTime - ru.DimTime
		d.Units.DimSpace = lu.DimSpace - ru.DimSpace
		// Identical extra units cancel; a divisor's become negative.
		switch {
		case lu.ExtraUnit != 0 && ru.ExtraUnit != 0:
			d.Units.ExtraUnit, d.Units.ExtraScale = 0, 0
		case lu.ExtraUnit != 0:
			d.Units.ExtraUnit, d.Units.ExtraScale = lu.ExtraUnit, lu.ExtraScale
		case ru.ExtraUnit != 0:
			d.Units.ExtraUnit, d.Units.ExtraScale = -ru.ExtraUnit, ru.ExtraScale
		}
	}
	if d.Units.DimCount != 0 && lu.DimCount == 0 {
		d.Units.ScaleCount = ru.ScaleCount
	}
	if d.Units.DimTime != 0 && lu.DimTime == 0 {
		d.Units.ScaleTime = ru.ScaleTime
	}
	if d.Units.DimSpace != 0 && lu.DimSpace == 0 {
		d.Units.ScaleSpace = ru.ScaleSpace
	}
	if d.Units.DimCount == 0 {
		d.Units.ScaleCount = 0
	}
	if d.Units.DimTime == 0 {
		d.Units.ScaleTime = 0
	}
	if d.Units.DimSpace == 0 {
		d.Units.ScaleSpace = 0
	}
	if d.Units.ExtraUnit == 0 {
		d.Units.ExtraScale = 0
	}
}

// scaleOperands gives the operand records li and ri the factors that
// bring their unit scales to the larger one (mapUnits), and d the scales
// and type of the result.
func scaleOperands(lu, ru pmapi.Units, li, ri *NodeInfo, d *pmapi.Desc) {
	scale := func(ni *NodeInfo, dimSign int8, factor float64) {
		if dimSign > 0 {
			ni.DivScale *= factor
		} else {
			ni.MulScale *= factor
		}
	}
	if lu.DimCount != 0 && ru.DimCount != 0 {
		if diff := int(lu.ScaleCount) - int(ru.ScaleCount); diff > 0 {
			for range diff {
				scale(ri, ru.DimCount, 10)
			}
			d.Type = pmapi.TypeDouble
		} else if diff < 0 {
			d.Units.ScaleCount = ru.ScaleCount
			for range -diff {
				scale(li, lu.DimCount, 10)
			}
			d.Type = pmapi.TypeDouble
		}
	}
	if lu.DimTime != 0 && ru.DimTime != 0 {
		if lu.ScaleTime > ru.ScaleTime {
			for i := ru.ScaleTime; i < lu.ScaleTime; i++ {
				scale(ri, ru.DimTime, timeStep(i))
			}
			d.Type = pmapi.TypeDouble
		} else if lu.ScaleTime < ru.ScaleTime {
			d.Units.ScaleTime = ru.ScaleTime
			for i := lu.ScaleTime; i < ru.ScaleTime; i++ {
				scale(li, ru.DimTime, timeStep(i)) // quirk: right's sign
			}
			d.Type = pmapi.TypeDouble
		}
	}
	if lu.DimSpace != 0 && ru.DimSpace != 0 {
		if diff := int(lu.ScaleSpace) - int(ru.ScaleSpace); diff > 0 {
			for range diff {
				scale(ri, ru.DimSpace, 1024)
			}
			d.Type = pmapi.TypeDouble
		} else if diff < 0 {
			d.Units.ScaleSpace = ru.ScaleSpace
			for range -diff {
				scale(li, ru.DimSpace, 1024) // quirk: right's sign
			}
			d.Type = pmapi.TypeDouble
		}
	}
}

func timeStep(scale int8) float64 {
	if scale >= 0 && int(scale) < len(timeFactor) {
		return timeFactor[scale]
	}
	return 1
}

// zeroIndom reports whether the novalue() branch of n has libpcp 6.2.2
// to 7.0.x's zeroed spec descriptor, whose instance domain (0.0, not
// PM_INDOM_NULL) the ternary then takes whatever the other branch's: a novalue with a spec list,
// parsed before any mkconst( (inferrer.specZero), none of them earlier in
// the expression either.
func (in *inferrer) zeroIndom(n *grammar.Ternary, branch grammar.Node) bool {
	nv, _ := grammar.Unwrap(branch).(*grammar.Novalue)
	if nv == nil || len(nv.Specs) == 0 || !in.specZero || in.mkconstBefore == nil {
		return false
	}
	return !in.mkconstBefore(int(nv.At.Start))
}
