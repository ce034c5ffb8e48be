package evaluator

import (
	"math"
	"math/bits"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

func (r *sampleRun) call(n *grammar.Call, id int32) ([]Value, error) {
	switch n.Func {
	case "defined":
		m := n.Arg.(*grammar.Metric)
		return r.one(id, Value{Inst: pmclient.InNull, Uint: uint64(b2i(r.e.defined[m.Name]))}), nil
	case "anon":
		return nil, nil
	case "count":
		x, err := r.value(n.Arg, r.kid(id, 0))
		if err != nil {
			x = nil // count() maps an operand error to 0
		}
		return r.one(id, Value{Inst: pmclient.InNull, Uint: uint64(len(x))}), nil
	case "delta", "rate":
		return r.deltaRate(n, id)
	}
	x, err := r.value(n.Arg, r.kid(id, 0))
	if err != nil {
		return nil, err
	}
	xt := r.desc(r.kid(id, 0)).Type
	switch n.Func {
	case "instant":
		return x, nil
	case "scalar":
		if len(x) == 0 {
			return nil, nil
		}
		v := x[0]
		v.Inst = pmclient.InNull
		return r.one(id, v), nil
	case "avg":
		// libpcp adds each value divided by the count, in float.
		var avg float32
		for _, v := range x {
			avg += float32(Float64(xt, v)) / float32(len(x))
		}
		return r.one(id, Value{Inst: pmclient.InNull, Float: float64(avg)}), nil
	case "sum":
		out := Value{Inst: pmclient.InNull}
		for _, v := range x {
			out = arith(xt, "+", out, v)
		}
		return r.one(id, out), nil
	case "min", "max":
		st := r.state(id)
		if len(x) == 0 {
			// libpcp returns whatever its buffer held: 0 at first.
			v := st.minmax
			v.Inst = pmclient.InNull
			return r.one(id, v), nil
		}
		best := x[0]
		for _, v := range x[1:] {
			less := compare(xt, v, best) < 0
			if less == (n.Func == "min") {
				best = v
			}
		}
		best.Inst = pmclient.InNull
		st.minmax = best
		return r.one(id, best), nil
	}
	return nil, nil
}

// compare orders two values of one numeric type.
func compare(t pmapi.Type, a, b Value) int {
	switch t {
	case pmapi.Type32, pmapi.Type64:
		return cmp3(a.Int < b.Int, a.Int > b.Int)
	case pmapi.TypeU32, pmapi.TypeU64:
		return cmp3(a.Uint < b.Uint, a.Uint > b.Uint)
	}
	return cmp3(a.Float < b.Float, a.Float > b.Float)
}

func cmp3(lt, gt bool) int {
	switch {
	case lt:
		return -1
	case gt:
		return 1
	}
	return 0
}

// deltaRate compares each instance with the previous sample's.
func (r *sampleRun) deltaRate(n *grammar.Call, id int32) ([]Value, error) {
	x, err := r.value(n.Arg, r.kid(id, 0))
	if c, ok := grammar.Unwrap(n.Arg).(*grammar.Call); ok && c.Func == "defined" && err == nil {
		// libpcp sets defined()'s value once, at bind, and never keeps a
		// previous one: delta() and rate() of it have no values (6.3+).
		return nil, nil
	}
	st := r.state(id)
	prev, prevStamp, hadPrev := st.prev, st.prevStamp, st.hasPrev
	if err != nil {
		st.prev, st.hasPrev = st.prev[:0], false
		return nil, err
	}
	// The operand's values are kept as a copy (they may be a buffer the
	// next sample reuses), in the buffer prev had the time before: the
	// one prev holds now is read below and kept for the time after.
	st.prev, st.spare = append(st.spare[:0], x...), prev
	st.prevStamp, st.hasPrev = r.stamp, true
	if !hadPrev || len(prev) == 0 || len(x) == 0 {
		return nil, nil
	}
	xd := r.desc(r.kid(id, 0))
	elapsed := r.stamp.Sub(prevStamp).Seconds()
	out := r.out(id, len(x))
	for i, v := range x {
		p, ok := previous(prev, i, v.Inst)
		switch {
		case !ok:
		case n.Func == "delta":
			out = append(out, r.delta(xd, v, p))
		default:
			if o, ok := r.rate(xd, v, p, elapsed); ok {
				out = append(out, o)
			}
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return r.kept(id, out), nil
}

// previous is the previous sample's value of instance inst, looked for
// first where it was in the sample before (at i), then everywhere.
func previous(prev []Value, i int, inst int32) (Value, bool) {
	if i >= len(prev) {
		i = 0
	}
	if prev[i].Inst == inst {
		return prev[i], true
	}
	for _, p := range prev {
		if p.Inst == inst {
			return p, true
		}
	}
	return Value{}, false
}

// delta is v - p in the operand's type, as the release computes it.
func (r *sampleRun) delta(xd pmapi.Desc, v, p Value) Value {
	o := Value{Inst: v.Inst}
	switch xd.Type {
	case pmapi.TypeU32, pmapi.TypeU64:
		if !r.e.version.Has(pcpver.DeltaSigned) {
			// Before 5.3.0: unsigned, wrapping like C.
			o.Uint = v.Uint - p.Uint
			if xd.Type == pmapi.TypeU32 {
				o.Uint = uint64(uint32(o.Uint))
			}
			break
		}
		if xd.Type == pmapi.TypeU32 {
			o.Int = int64(v.Uint) - int64(p.Uint)
		} else {
			o.Float = float64(v.Uint) - float64(p.Uint)
		}
	case pmapi.Type32:
		o.Int = int64(int32(v.Int) - int32(p.Int))
	case pmapi.Type64:
		o.Int = int64(uint64(v.Int) - uint64(p.Int))
	case pmapi.TypeFloat:
		o.Float = float64(float32(v.Float) - float32(p.Float))
	default:
		o.Float = v.Float - p.Float
	}
	return o
}

// rate is (v - p) / elapsed, a time counter's as a utilisation; false
// where the release gives no rate (since 6.2.1, a counter that went
// backwards).
func (r *sampleRun) rate(xd pmapi.Desc, v, p Value, elapsed float64) (Value, bool) {
	if r.e.version.Has(pcpver.RateSkipsBackwards) && xd.Sem == pmapi.SemCounter && xd.Type != pmapi.Type32 && compare(xd.Type, v, p) < 0 {
		return Value{}, false
	}
	var d float64
	switch xd.Type {
	case pmapi.Type32:
		d = float64(int32(v.Int) - int32(p.Int))
	case pmapi.TypeU32:
		d = float64(uint32(v.Uint) - uint32(p.Uint))
	case pmapi.Type64:
		d = float64(v.Int - p.Int)
	case pmapi.TypeU64:
		d = float64(v.Uint - p.Uint)
	case pmapi.TypeFloat:
		d = float64(float32(v.Float) - float32(p.Float))
	default:
		d = v.Float - p.Float
	}
	o := Value{Inst: v.Inst, Float: d / elapsed}
	if xd.Units.DimTime == 1 {
		o.Float *= timeUtilisationScale(xd.Units.ScaleTime)
	}
	return o, true
}

// timeUtilisationScale converts a time counter's unit to seconds.
func timeUtilisationScale(scale int8) float64 {
	f := 1.0
	for s := int8(pmapi.TimeSec); s < scale; s++ {
		f *= 60
	}
	for s := scale; s < pmapi.TimeSec; s++ {
		f /= 1000
	}
	return f
}

func (r *sampleRun) rescale(n *grammar.Rescale, id int32) ([]Value, error) {
	x, err := r.value(n.X, r.kid(id, 0))
	if err != nil || len(x) == 0 {
		return x, err
	}
	xd := r.desc(r.kid(id, 0))
	to := r.desc(id).Units
	mult, div, cerr := checker.ConvFactors(r.e.version)(xd.Units, to)
	if cerr != nil {
		return nil, nil
	}
	extra, _ := pmapi.ConvExtra(xd.Units, to)
	hasExtra := xd.Units.ExtraUnit != 0 && xd.Units.ExtraScale != to.ExtraScale
	out := r.out(id, len(x))
	for _, v := range x {
		o := Value{Inst: v.Inst}
		switch xd.Type {
		case pmapi.Type32:
			o.Int = int64(int32((v.Int*mult + div/2) / div))
		case pmapi.TypeU32:
			o.Uint = uint64(uint32((int64(v.Uint)*mult + div/2) / div))
		case pmapi.Type64:
			o.Int = (v.Int*mult + div/2) / div
		case pmapi.TypeU64:
			o.Uint = (v.Uint*uint64(mult) + uint64(div/2)) / uint64(div)
		case pmapi.TypeFloat:
			o.Float = float64(float32(v.Float) * (float32(mult) / float32(div)))
		default:
			o.Float = v.Float * (float64(mult) / float64(div))
		}
		if hasExtra {
			o = convertExtra(xd.Type, extra, o)
		}
		out = append(out, o)
	}
	return r.kept(id, out), nil
}

// convertExtra applies a 7.2 extra-unit conversion in double precision and
// stores the result in the value's type, truncating like a C cast.
func convertExtra(t pmapi.Type, c pmapi.ExtraConv, v Value) Value {
	switch t {
	case pmapi.Type32:
		v.Int = int64(int32(c.Apply(float64(int32(v.Int)))))
	case pmapi.TypeU32:
		v.Uint = uint64(uint32(c.Apply(float64(uint32(v.Uint)))))
	case pmapi.Type64:
		v.Int = int64(c.Apply(float64(v.Int)))
	case pmapi.TypeU64:
		v.Uint = uint64(c.Apply(float64(v.Uint)))
	case pmapi.TypeFloat:
		v.Float = float64(float32(c.Apply(float64(float32(v.Float)))))
	default:
		v.Float = c.Apply(v.Float)
	}
	return v
}

// arith applies + - * in a result type with C's wrap-around.
func arith(t pmapi.Type, op string, a, b Value) Value {
	o := Value{Inst: a.Inst}
	switch t {
	case pmapi.Type32:
		x, y := int32(a.Int), int32(b.Int)
		o.Int = int64(int32Op(op, x, y))
	case pmapi.TypeU32:
		x, y := uint32(a.Uint), uint32(b.Uint)
		switch op {
		case "+":
			o.Uint = uint64(x + y)
		case "-":
			o.Uint = uint64(x - y)
		case "*":
			o.Uint = uint64(x * y)
		}
	case pmapi.Type64:
		x, y := uint64(a.Int), uint64(b.Int)
		switch op {
		case "+":
			o.Int = int64(x + y)
		case "-":
			o.Int = int64(x - y)
		case "*":
			o.Int = int64(x * y)
		}
	case pmapi.TypeU64:
		switch op {
		case "+":
			o.Uint, _ = bits.Add64(a.Uint, b.Uint, 0)
		case "-":
			o.Uint, _ = bits.Sub64(a.Uint, b.Uint, 0)
		case "*":
			o.Uint = a.Uint * b.Uint
		}
	case pmapi.TypeFloat:
		x, y := float32(a.Float), float32(b.Float)
		switch op {
		case "+":
			o.Float = float64(x + y)
		case "-":
			o.Float = float64(x - y)
		case "*":
			o.Float = float64(x * y)
		}
	default:
		switch op {
		case "+":
			o.Float = a.Float + b.Float
		case "-":
			o.Float = a.Float - b.Float
		case "*":
			o.Float = a.Float * b.Float
		}
	}
	return o
}

func int32Op(op string, x, y int32) int32 {
	switch op {
	case "+":
		return x + y
	case "-":
		return x - y
	}
	return x * y
}

// binary evaluates an operator over two value lists: an inner join on
// instance id in left order, capped at the shorter list, with singular
// operands broadcast (libpcp's cursor walk).
func (r *sampleRun) binary(n *grammar.Binary, id int32) ([]Value, error) {
	l, err := r.value(n.L, r.kid(id, 0))
	if err != nil {
		return nil, err
	}
	rv, err := r.value(n.R, r.kid(id, 1))
	if err != nil {
		return nil, err
	}
	if len(l) == 0 || len(rv) == 0 {
		return nil, nil
	}
	return r.join(n, id, l, rv), nil
}

// join is binary's operator over its operands' values. Kept out of
// binary, which recurses: its locals in every frame of a 20,000-term
// chain were two thirds of the evaluation's stack.
//
//go:noinline
func (r *sampleRun) join(n *grammar.Binary, id int32, l, rv []Value) []Value {
	ld, lmul, ldiv := r.info(r.kid(id, 0))
	rd, rmul, rdiv := r.info(r.kid(id, 1))
	d := r.desc(id)
	// The type operands are converted to: the result type, or for
	// comparisons and booleans the promoted type of the pair.
	opType := d.Type
	rel := n.Op != "+" && n.Op != "-" && n.Op != "*" && n.Op != "/"
	if rel {
		opType = promoteType(ld.Type, rd.Type)
	}
	apply := func(a, b Value, inst int32) Value {
		x, y := convert(ld.Type, opType, a), convert(rd.Type, opType, b)
		if opType == pmapi.TypeDouble {
			x.Float = (x.Float / ldiv) * lmul
			y.Float = (y.Float / rdiv) * rmul
		}
		var o Value
		switch {
		case n.Op == "/":
			num, den := Float64(opType, x), Float64(opType, y)
			if num == 0 {
				o.Float = 0
			} else {
				o.Float = num / den
			}
		case rel:
			o.Uint = uint64(b2i(relational(opType, n.Op, x, y)))
		default:
			o = arith(opType, n.Op, x, y)
		}
		o.Inst = inst
		return o
	}
	lSingular := ld.InDom == pmapi.InDomNull
	rSingular := rd.InDom == pmapi.InDomNull
	out := r.out(id, max(len(l), len(rv)))
	switch {
	case lSingular && rSingular:
		out = append(out, apply(l[0], rv[0], rv[0].Inst))
	case rSingular:
		for _, a := range l {
			out = append(out, apply(a, rv[0], a.Inst))
		}
	case lSingular:
		for _, b := range rv {
			out = append(out, apply(l[0], b, b.Inst))
		}
	default:
		limit := min(len(l), len(rv))
		j := 0
		for i := 0; i < len(l) && len(out) < limit; i++ {
			if rv[j].Inst != l[i].Inst {
				k := -1
				for x := range rv {
					if rv[x].Inst == l[i].Inst {
						k = x
						break
					}
				}
				if k < 0 {
					j = 0
					continue
				}
				j = k
			}
			out = append(out, apply(l[i], rv[j], l[i].Inst))
			j = (j + 1) % len(rv)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return r.kept(id, out)
}

func promoteType(a, b pmapi.Type) pmapi.Type {
	if a.Arithmetic() && b.Arithmetic() {
		return checker.Promote(a, b)
	}
	return pmapi.TypeDouble
}

// relational compares in a type: 32 and U32 compare their bits as C does
// in that type (so signed values against literals compare as unsigned).
func relational(t pmapi.Type, op string, a, b Value) bool {
	var c int
	switch t {
	case pmapi.Type32:
		c = cmp3(int32(a.Int) < int32(b.Int), int32(a.Int) > int32(b.Int))
	case pmapi.TypeU32:
		c = cmp3(uint32(a.Uint) < uint32(b.Uint), uint32(a.Uint) > uint32(b.Uint))
	default:
		c = compare(t, a, b)
	}
	isNaN := (t == pmapi.TypeFloat || t == pmapi.TypeDouble) && (math.IsNaN(a.Float) || math.IsNaN(b.Float))
	switch op {
	case "<":
		return c < 0 && !isNaN
	case "<=":
		return c <= 0 && !isNaN
	case "==":
		return c == 0 && !isNaN
	case ">=":
		return c >= 0 && !isNaN
	case ">":
		return c > 0 && !isNaN
	case "!=":
		return c != 0 || isNaN
	case "&&":
		return !isZero(t, a) && !isZero(t, b)
	case "||":
		return !isZero(t, a) || !isZero(t, b)
	}
	return false
}

func isZero(t pmapi.Type, v Value) bool { return Float64(t, v) == 0 }

// ternary chooses per position: the guard's i-th value (its last one for
// the rest) picks the branch; a singular branch is broadcast.
func (r *sampleRun) ternary(n *grammar.Ternary, id int32) ([]Value, error) {
	if sl := &r.plan[id]; checker.Bind(sl.bind) != checker.BindBoth {
		// A static guard (PCP 6.2.2+): only the selected branch is
		// bound and fetched; its values are the ternary's.
		branch, bid := n.Then, r.kid(id, 1)
		if checker.Bind(sl.bind) == checker.BindElse {
			branch, bid = n.Else, r.kid(id, 2)
		}
		if _, ok := grammar.Unwrap(branch).(*grammar.Novalue); ok {
			return nil, nil
		}
		return r.value(branch, bid)
	}
	// libpcp evaluates the guard, then each branch, stopping only at an
	// error: a guard with no values still lets the branches keep the
	// history delta() and rate() need for the next sample.
	g, err := r.value(n.Cond, r.kid(id, 0))
	if err != nil {
		return nil, err
	}
	a, err := r.value(n.Then, r.kid(id, 1))
	if err != nil {
		return nil, err
	}
	b, err := r.value(n.Else, r.kid(id, 2))
	if err != nil {
		return nil, err
	}
	if len(g) == 0 {
		return nil, nil
	}
	_, aNovalue := grammar.Unwrap(n.Then).(*grammar.Novalue)
	_, bNovalue := grammar.Unwrap(n.Else).(*grammar.Novalue)
	if (len(a) == 0 && !aNovalue) || (len(b) == 0 && !bNovalue) {
		return nil, nil
	}
	gt := r.desc(r.kid(id, 0)).Type
	count := max(len(a), len(b))
	instFromElse := r.desc(r.kid(id, 1)).InDom == pmapi.InDomNull && r.desc(r.kid(id, 2)).InDom != pmapi.InDomNull
	out := r.out(id, count)
	choose := false
	for i := 0; i < count; i++ {
		if i < len(g) {
			choose = !isZero(gt, g[i])
		}
		src, novalue := b, bNovalue
		if choose {
			src, novalue = a, aNovalue
		}
		if novalue {
			continue
		}
		v := src[0]
		if i < len(src) {
			v = src[i]
		}
		switch {
		case instFromElse && i < len(b):
			v.Inst = b[i].Inst
		case i < len(a):
			v.Inst = a[i].Inst
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return r.kept(id, out), nil
}
