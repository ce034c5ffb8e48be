// Package evaluator computes derived metric values the way libpcp does:
// the same instance matching, type promotion, C integer wrap-around, unit
// scaling, delta/rate history and ternary rules, over successive samples
// from a pmclient.Source.
package evaluator

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// Value is one instance's value, in pmapi's form: the values sources
// deliver are computed with as they come.
type Value = pmapi.Value

// wordOf is a numeric value of type t in the one word that type uses
// (Int's, Uint's or Float's bits); valueOfWord gives the value back, with
// no instance. Other types have no word (0) and come back as zero.
func wordOf(t pmapi.Type, v Value) uint64 {
	switch t {
	case pmapi.Type32, pmapi.Type64:
		return uint64(v.Int)
	case pmapi.TypeU32, pmapi.TypeU64:
		return v.Uint
	case pmapi.TypeFloat, pmapi.TypeDouble:
		return math.Float64bits(v.Float)
	}
	return 0
}

func valueOfWord(t pmapi.Type, w uint64) Value {
	v := Value{Inst: pmapi.InNull}
	switch t {
	case pmapi.Type32, pmapi.Type64:
		v.Int = int64(w)
	case pmapi.TypeU32, pmapi.TypeU64:
		v.Uint = w
	case pmapi.TypeFloat, pmapi.TypeDouble:
		v.Float = math.Float64frombits(w)
	}
	return v
}

// Float64 reads a numeric value of type t as a double, as C converts it.
func Float64(t pmapi.Type, v Value) float64 {
	switch t {
	case pmapi.Type32, pmapi.Type64:
		return float64(v.Int)
	case pmapi.TypeU32, pmapi.TypeU64:
		return float64(v.Uint)
	}
	return v.Float
}

// convert converts a numeric value between types as C's implicit
// conversions do (integers wrap, floats truncate toward zero).
func convert(from, to pmapi.Type, v Value) Value {
	out := Value{Inst: v.Inst}
	switch to {
	case pmapi.Type32:
		out.Int = int64(int32(asInt64(from, v)))
	case pmapi.TypeU32:
		out.Uint = uint64(uint32(asInt64(from, v)))
	case pmapi.Type64:
		out.Int = asInt64(from, v)
	case pmapi.TypeU64:
		if from == pmapi.TypeU64 {
			out.Uint = v.Uint
		} else {
			out.Uint = uint64(asInt64(from, v))
		}
	case pmapi.TypeFloat:
		out.Float = float64(float32(Float64(from, v)))
	case pmapi.TypeDouble:
		out.Float = Float64(from, v)
	default:
		return v
	}
	return out
}

func asInt64(t pmapi.Type, v Value) int64 {
	switch t {
	case pmapi.Type32, pmapi.Type64:
		return v.Int
	case pmapi.TypeU32, pmapi.TypeU64:
		return int64(v.Uint)
	}
	if math.IsNaN(v.Float) || math.IsInf(v.Float, 0) {
		return math.MinInt64
	}
	return int64(v.Float)
}

// Format renders a value as pminfo -f and pmval print it.
func Format(t pmapi.Type, v Value) string {
	switch t {
	case pmapi.Type32, pmapi.Type64:
		return strconv.FormatInt(v.Int, 10)
	case pmapi.TypeU32, pmapi.TypeU64:
		return strconv.FormatUint(v.Uint, 10)
	case pmapi.TypeFloat:
		return formatG(v.Float, 32)
	case pmapi.TypeDouble:
		return formatG(v.Float, 64)
	case pmapi.TypeString:
		return strconv.Quote(v.String)
	case pmapi.TypeAggregate, pmapi.TypeAggregateStatic:
		return formatAggregate(v.Blob)
	}
	return "[blob]"
}

// formatAggregate is pmPrintValue's form of an aggregate (pminfo -f,
// pmval): its 8 bytes as an unsigned integer and as a double (unless
// NaN), or its 4 bytes as a float (unless NaN); then, when every byte is
// printable, the bytes quoted as they are; then always the bytes in hex,
// in brackets: `"hullo world!" [68756c6c6f20776f726c6421]`.
func formatAggregate(b []byte) string {
	var parts []string
	switch len(b) {
	case 8:
		u := binary.LittleEndian.Uint64(b)
		parts = append(parts, strconv.FormatUint(u, 10))
		if f := math.Float64frombits(u); !math.IsNaN(f) {
			parts = append(parts, formatG(f, 64))
		}
	case 4:
		if f := math.Float32frombits(binary.LittleEndian.Uint32(b)); !math.IsNaN(float64(f)) {
			parts = append(parts, formatG(float64(f), 32))
		}
	}
	printable := true
	for _, c := range b {
		if c < 0x20 || c > 0x7e { // C's isprint in the C locale
			printable = false
			break
		}
	}
	if printable {
		parts = append(parts, `"`+string(b)+`"`)
	}
	return strings.Join(append(parts, "["+hex.EncodeToString(b)+"]"), " ")
}

// formatG is C's "%.*g" with libpcp's precision (pmPrintValue uses %.8g
// for float and %.16g for double).
func formatG(f float64, bits int) string {
	prec := 16
	if bits == 32 {
		prec = 8
	}
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	s := strconv.FormatFloat(f, 'g', prec, 64)
	return cStyleExponent(trimG(s))
}

// trimG removes the trailing zeros %g removes (FormatFloat keeps them).
func trimG(s string) string {
	mant, exp := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' {
			mant, exp = s[:i], s[i:]
			break
		}
	}
	for i := 0; i < len(mant); i++ {
		if mant[i] == '.' {
			for len(mant) > 0 && mant[len(mant)-1] == '0' {
				mant = mant[:len(mant)-1]
			}
			if len(mant) > 0 && mant[len(mant)-1] == '.' {
				mant = mant[:len(mant)-1]
			}
			break
		}
	}
	return mant + exp
}

// cStyleExponent writes exponents with at least two digits, as C does.
func cStyleExponent(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' && i+2 < len(s) && len(s)-(i+2) == 1 {
			return s[:i+2] + "0" + s[i+2:]
		}
	}
	return s
}
