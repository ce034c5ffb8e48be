package pcpver

import "fmt"

// Feature is one change to the derived-metric language, its checks or its
// evaluation, made in one PCP release. Rules elsewhere ask Version.Has;
// the release each feature arrived in is stated once, in features below,
// from PCP's source history and confirmed against the real libraries our
// tests run on either side of it (5.2.6, 5.3.7, 6.0.3, 6.2.0, 6.3.8,
// 7.0.2, 7.2.2).
type Feature int

// The features, oldest first.
const (
	// DimensionlessIsCount: a dimensionless operand and a count may be
	// added, subtracted and compared, and pmConvScale treats "none" as
	// count (5.3.0; 5.2 says "Dimensions are not the same").
	DimensionlessIsCount Feature = iota
	// DeltaSigned: delta() of a U32 is a 64-bit integer and of a U64 a
	// double, so negative differences survive (5.3.0; 5.2 keeps the
	// operand's type).
	DeltaSigned
	// EquivInDoms: operands in equivalent instance domains (indom.conf)
	// may meet in a binary operator (6.0.4).
	EquivInDoms
	// ExprInstance: (expr)[inst] is evaluated (6.1.1; 6.0 crashes at
	// fetch), and scalar() of nothing gives no value instead of crashing.
	ExprInstance
	// RateSkipsBackwards: rate() of a counter gives no value for an
	// instance whose value went backwards (6.2.1; before, a modular or
	// negative value).
	RateSkipsBackwards
	// Novalue: novalue() in a ternary branch, with the lexer words meta
	// and novalue( (6.2.2).
	Novalue
	// MetaSpec: mkconst(..., meta=NAME), constants with an instance
	// domain (6.2.2).
	MetaSpec
	// LazyTernary: names under ?: are bound only when their branch is
	// needed, a guard with a constant value picks its branch before the
	// checks, and an unknown name there is tolerated (6.2.2).
	LazyTernary
	// NestedDerivedError: a derived operand of a derived metric is an
	// error at registration ("Illegal nested derived metric", 6.2.2).
	NestedDerivedError
	// Continuation: backslash-newline continuation lines in config files,
	// and correct line numbers after multi-line attribute values (6.2.2).
	Continuation
	// DeltaOfExpr: delta(), rate() and instant() of any expression, with
	// "<expr> expected to follow delta(" (6.3.0).
	DeltaOfExpr
	// InterpNearest: interpolating an archive (PM_MODE_INTERP), an
	// instantaneous or discrete metric takes the observation nearer in
	// time, the one after when it is nearer; before, always the one
	// before (6.3.2).
	InterpNearest
	// IndomSpec: indom= in a spec list, and double spec values (7.1.0).
	IndomSpec
	// UnknownOperandReported: an unknown operand of a global derived
	// metric is reported ("Unknown operand metric", "Metadata for operand
	// metric not available") instead of hiding the metric (7.1.0).
	UnknownOperandReported
	// ControlLines: #control lines and $PCP_DERIVED_CONTROL, with
	// option_novalue (7.1.1).
	ControlLines
	// ExtraUnits: temperature, voltage, current and power units, and
	// pmUnitsStr's "count x 10^N" for a bare count scale (7.2.0).
	ExtraUnits

	numFeatures
)

var features = [numFeatures]struct {
	since Version
	name  string
}{
	DimensionlessIsCount:   {Version{5, 3, 0}, "dimensionless operands compatible with counts"},
	DeltaSigned:            {Version{5, 3, 0}, "signed delta() of unsigned metrics"},
	EquivInDoms:            {Version{6, 0, 4}, "equivalent instance domains"},
	ExprInstance:           {Version{6, 1, 1}, "(expr)[inst]"},
	RateSkipsBackwards:     {Version{6, 2, 1}, "rate() skipping counters that went backwards"},
	Novalue:                {Version{6, 2, 2}, "novalue()"},
	MetaSpec:               {Version{6, 2, 2}, "meta= in a spec list"},
	LazyTernary:            {Version{6, 2, 2}, "lazy binding under ?:"},
	NestedDerivedError:     {Version{6, 2, 2}, "nested derived metric check"},
	Continuation:           {Version{6, 2, 2}, "a backslash-newline continuation line"},
	DeltaOfExpr:            {Version{6, 3, 0}, "delta(), rate() and instant() of an expression"},
	InterpNearest:          {Version{6, 3, 2}, "interpolation taking the nearer observation"},
	IndomSpec:              {Version{7, 1, 0}, "indom= and floating point values in a spec list"},
	UnknownOperandReported: {Version{7, 1, 0}, "reports of unknown operands"},
	ControlLines:           {Version{7, 1, 1}, "#control lines"},
	ExtraUnits:             {Version{7, 2, 0}, "extra units (temperature, voltage, current, power)"},
}

// Since is the release that introduced the feature.
func (f Feature) Since() Version {
	if f < 0 || f >= numFeatures {
		panic(fmt.Sprintf("pcpver: unknown feature %d", int(f)))
	}
	return features[f].since
}

// String names the feature for messages: "novalue()".
func (f Feature) String() string {
	if f < 0 || f >= numFeatures {
		return fmt.Sprintf("feature(%d)", int(f))
	}
	return features[f].name
}

// Features lists every feature, oldest first.
func Features() []Feature {
	out := make([]Feature, numFeatures)
	for i := range out {
		out[i] = Feature(i)
	}
	return out
}

// Grammar names the LALR grammar a release's parser is built from: the
// productions changed in 6.2.2 (novalue, meta), 6.3.0 (delta of an
// expression) and 7.1.0 (indom, double spec values); 5.x has 6.0's.
type Grammar int

const (
	Grammar60  Grammar = iota // 5.0 to 6.2.1
	Grammar622                // 6.2.2 to 6.2.x
	Grammar63                 // 6.3.0 to 7.0.x
	Grammar71                 // 7.1.0 and later
)

// Grammar is the grammar release v parses with.
func (v Version) Grammar() Grammar {
	switch {
	case v.Has(IndomSpec):
		return Grammar71
	case v.Has(DeltaOfExpr):
		return Grammar63
	case v.Has(Novalue):
		return Grammar622
	}
	return Grammar60
}
