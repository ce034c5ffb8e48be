package pmapi

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// UnitsError is why a units string does not parse. Msg is libpcp's text
// (pmParseUnitsStr's errMsg), which derived-metric messages quote;
// Offset is the byte where the problem starts.
type UnitsError struct {
	Msg    string
	Offset int
}

func (e *UnitsError) Error() string { return e.Msg }

type unitKeyword struct {
	word  string
	scale int
}

// Keyword tables in libpcp's search order: the first match wins, so a
// longer spelling comes before its prefix ("time-1" after "time-10"...).
var (
	timeKeywords = []unitKeyword{
		{"nanoseconds", TimeNSec}, {"nanosecond", TimeNSec}, {"nanosec", TimeNSec}, {"ns", TimeNSec},
		{"microseconds", TimeUSec}, {"microsecond", TimeUSec}, {"microsec", TimeUSec}, {"us", TimeUSec},
		{"milliseconds", TimeMSec}, {"millisecond", TimeMSec}, {"millisec", TimeMSec}, {"ms", TimeMSec},
		{"seconds", TimeSec}, {"second", TimeSec}, {"sec", TimeSec}, {"s", TimeSec},
		{"minutes", TimeMin}, {"minute", TimeMin}, {"min", TimeMin},
		{"hours", TimeHour}, {"hour", TimeHour}, {"hr", TimeHour}, {"h", TimeHour},
		{"time-0", 0}, {"time-2", 2}, {"time-3", 3}, {"time-4", 4}, {"time-5", 5}, {"time-6", 6},
		{"time-7", 7}, {"time-8", 8}, {"time-9", 9}, {"time-10", 10}, {"time-11", 11},
		{"time-12", 12}, {"time-13", 13}, {"time-14", 14}, {"time-15", 15}, {"time-1", 1},
	}
	spaceKeywords = func() []unitKeyword {
		kw := []unitKeyword{{"bytes", SpaceByte}, {"byte", SpaceByte}}
		for i, p := range []struct{ short, bi, si string }{
			{"K", "Kibi", "Kilo"}, {"M", "Mebi", "Mega"}, {"G", "Gibi", "Giga"}, {"T", "Tebi", "Tera"},
			{"P", "Pebi", "Peta"}, {"E", "Exbi", "Exa"}, {"Z", "Zebi", "Zetta"}, {"Y", "Yobi", "Yotta"},
		} {
			s := i + 1
			kw = append(kw,
				unitKeyword{p.short + "B", s}, unitKeyword{p.short + "iB", s},
				unitKeyword{p.short + "bytes", s}, unitKeyword{p.short + "byte", s},
				unitKeyword{p.bi + "bytes", s}, unitKeyword{p.bi + "byte", s},
				unitKeyword{p.si + "bytes", s}, unitKeyword{p.si + "byte", s})
		}
		kw = append(kw, unitKeyword{"space-0", 0})
		for s := 2; s <= 15; s++ {
			kw = append(kw, unitKeyword{fmt.Sprintf("space-%d", s), s})
		}
		return append(kw, unitKeyword{"space-1", 1})
	}()
	countKeywords = func() []unitKeyword {
		var kw []unitKeyword
		for s := -8; s <= -1; s++ {
			kw = append(kw, unitKeyword{fmt.Sprintf("count x 10^%d", s), s})
		}
		for s := 2; s <= 7; s++ {
			kw = append(kw, unitKeyword{fmt.Sprintf("count x 10^%d", s), s})
		}
		return append(kw, unitKeyword{"count x 10", 1}, unitKeyword{"counts", 0}, unitKeyword{"count", 0})
	}()
	exponentKeywords = func() []unitKeyword {
		var kw []unitKeyword
		for e := -8; e <= 0; e++ {
			kw = append(kw, unitKeyword{fmt.Sprintf("^%d", e), e})
		}
		for e := 2; e <= 15; e++ {
			kw = append(kw, unitKeyword{fmt.Sprintf("^%d", e), e})
		}
		return append(kw, unitKeyword{"^1", 1})
	}()
)

// wideUnits is pmUnits without the 4-bit limits, for intermediate results.
type wideUnits struct {
	dimSpace, dimTime, dimCount       int
	scaleSpace, scaleTime, scaleCount int
	extraUnit, extraScale             int
}

func isCSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// matchKeyword matches a keyword at s[i:end], case-insensitively, when it
// is followed by white space, "^" or the end of the part.
func matchKeyword(s string, i, end int, kws []unitKeyword) (unitKeyword, int, bool) {
	for _, kw := range kws {
		j := i + len(kw.word)
		if j > end || !strings.EqualFold(s[i:j], kw.word) {
			continue
		}
		if j == end || isCSpace(s[j]) || s[j] == '^' {
			return kw, j, true
		}
	}
	return unitKeyword{}, i, false
}

// Extra unit codes (PCP 7.2, PM_UNIT_*), and their scales' spellings in
// code order starting at 1.
var extraUnits = []struct {
	name   string
	scales []string
}{
	{"temperature", []string{"C", "F", "K"}},
	{"voltage", []string{"V", "mV", "uV"}},
	{"current", []string{"A", "mA", "uA"}},
	{"power", []string{"kW", "W", "mW", "uW"}},
}

// matchExtraUnit matches "name (scale)" at s[i:], as PCP 7.2 does, and
// returns the unit code, scale code and the index after trailing spaces.
func matchExtraUnit(s string, i, end int) (unit, scale, next int, ok bool) {
	for u, eu := range extraUnits {
		j := i + len(eu.name)
		if j+2 > end || !strings.EqualFold(s[i:j], eu.name) || s[j] != ' ' || s[j+1] != '(' {
			continue
		}
		j += 2
		for sc, text := range eu.scales {
			k := j + len(text)
			if k < end && strings.EqualFold(s[j:k], text) && s[k] == ')' {
				k++
				for k < end && isCSpace(s[k]) {
					k++
				}
				return u + 1, sc + 1, k, true
			}
		}
	}
	return 0, 0, i, false
}

// parseUnitsPart parses one side of the "/" of a units string; extra
// allows PCP 7.2's extra units, at most one per side.
func parseUnitsPart(s string, start, end int, extra bool) (wideUnits, float64, error) {
	var out wideUnits
	mult := 1.0
	i := start
	extras := 0
	for i < end {
		if extra {
			if u, sc, next, ok := matchExtraUnit(s, i, end); ok {
				if extras > 0 {
					return out, 1, &UnitsError{Msg: "multiple extra units not allowed", Offset: i}
				}
				extras++
				out.extraUnit, out.extraScale, i = u, sc, next
				continue
			}
		}
		c := s[i]
		if isCSpace(c) {
			i++
			continue
		}
		if c == '-' || c == '.' || (c >= '0' && c <= '9') {
			v, n := strtod(s[i:])
			if n == 0 || i+n > end || math.IsInf(v, 0) && !strings.ContainsAny(strings.ToLower(s[i:i+n]), "i") {
				return out, 1, &UnitsError{Msg: "invalid floating point literal", Offset: i}
			}
			mult *= v
			i += n
			continue
		}
		var dim *int
		if out.dimTime == 0 {
			if kw, j, ok := matchKeyword(s, i, end, timeKeywords); ok {
				out.scaleTime, dim, i = kw.scale, &out.dimTime, j
			}
		}
		if dim == nil && out.dimSpace == 0 {
			if kw, j, ok := matchKeyword(s, i, end, spaceKeywords); ok {
				out.scaleSpace, dim, i = kw.scale, &out.dimSpace, j
			}
		}
		if dim == nil && out.dimCount == 0 {
			if kw, j, ok := matchKeyword(s, i, end, countKeywords); ok {
				out.scaleCount, dim, i = kw.scale, &out.dimCount, j
			}
		}
		if dim == nil {
			return out, 1, &UnitsError{Msg: "unrecognized or duplicate base unit", Offset: i}
		}
		if i == end || isCSpace(s[i]) {
			*dim = 1
		} else if kw, j, ok := matchKeyword(s, i, end, exponentKeywords); ok {
			*dim, i = kw.scale, j
		}
	}
	return out, mult, nil
}

// ParseUnits parses a units string as libpcp's pmParseUnitsStr does
// ("Kbyte / sec", "count x 10^3", "millisec^2", "1/sec" ...). The
// multiplier collects numbers and scale differences between the two sides
// of "/"; derived metrics ignore it, as libpcp does.
func ParseUnits(s string) (Units, float64, error) { return parseUnits(s, false) }

// ParseUnitsExtra is ParseUnits as PCP 7.2 parses units strings: with the
// extra units "temperature (C|F|K)", "voltage (V|mV|uV)", "current
// (A|mA|uA)" and "power (kW|W|mW|uW)", at most one on each side of "/".
func ParseUnitsExtra(s string) (Units, float64, error) { return parseUnits(s, true) }

func parseUnits(s string, extra bool) (Units, float64, error) {
	var dividend, divisor wideUnits
	dividendMult, divisorMult := 1.0, 1.0
	var err error
	slash := strings.IndexByte(s, '/')
	if slash < 0 {
		dividend, dividendMult, err = parseUnitsPart(s, 0, len(s), extra)
	} else {
		dividend, dividendMult, err = parseUnitsPart(s, 0, slash, extra)
		if err == nil {
			divisor, divisorMult, err = parseUnitsPart(s, slash+1, len(s), extra)
		}
	}
	if err != nil {
		return Units{}, 1, err
	}
	var out Units
	switch {
	case dividend.extraUnit != 0 && divisor.extraUnit != 0:
		return Units{}, 1, &UnitsError{Msg: "extra units cannot appear in both dividend and divisor"}
	case dividend.extraUnit != 0:
		out.ExtraUnit, out.ExtraScale = int8(dividend.extraUnit), int8(dividend.extraScale)
	case divisor.extraUnit != 0:
		out.ExtraUnit, out.ExtraScale = int8(-divisor.extraUnit), int8(divisor.extraScale)
	}
	for _, d := range []struct {
		dim  int
		into *int8
		what string
	}{
		{dividend.dimSpace - divisor.dimSpace, &out.DimSpace, "space"},
		{dividend.dimTime - divisor.dimTime, &out.DimTime, "time"},
		{dividend.dimCount - divisor.dimCount, &out.DimCount, "count"},
	} {
		if d.dim < -8 || d.dim > 7 {
			return Units{}, 1, &UnitsError{Msg: d.what + " dimension out of bounds"}
		}
		*d.into = int8(d.dim)
	}
	mult := divisorMult / dividendMult
	switch {
	case dividend.dimSpace == 0 && divisor.dimSpace != 0:
		out.ScaleSpace = int8(divisor.scaleSpace)
	case divisor.dimSpace == 0 && dividend.dimSpace != 0:
		out.ScaleSpace = int8(dividend.scaleSpace)
	default:
		mult *= math.Pow(math.Pow(1024, float64(dividend.scaleSpace)), -float64(dividend.dimSpace))
		mult *= math.Pow(math.Pow(1024, float64(divisor.scaleSpace)), float64(divisor.dimSpace))
	}
	switch {
	case dividend.dimCount == 0 && divisor.dimCount != 0:
		out.ScaleCount = int8(divisor.scaleCount)
	case divisor.dimCount == 0 && dividend.dimCount != 0:
		out.ScaleCount = int8(dividend.scaleCount)
	default:
		mult *= math.Pow(math.Pow(10, float64(dividend.scaleCount)), -float64(dividend.dimCount))
		mult *= math.Pow(math.Pow(10, float64(divisor.scaleCount)), float64(divisor.dimCount))
	}
	timeScales := []float64{1e-9, 1e-6, 1e-3, 1, 60, 3600}
	timeScale := func(s int) float64 {
		if s >= 0 && s < len(timeScales) {
			return timeScales[s]
		}
		return 1
	}
	switch {
	case dividend.dimTime == 0 && divisor.dimTime != 0:
		out.ScaleTime = int8(divisor.scaleTime)
	case divisor.dimTime == 0 && dividend.dimTime != 0:
		out.ScaleTime = int8(dividend.scaleTime)
	default:
		if dividend.dimTime != 0 || divisor.dimTime != 0 {
			out.ScaleTime = TimeSec
		}
		mult *= math.Pow(timeScale(dividend.scaleTime), -float64(dividend.dimTime))
		mult *= math.Pow(timeScale(divisor.scaleTime), float64(divisor.dimTime))
	}
	// Both sides had the dimension: libpcp picks the canonical scale
	// (byte, sec, count x 1), or 0 when the dimension cancels out.
	if out.DimTime == 0 {
		out.ScaleTime = 0
	}
	if dividend.dimSpace != 0 && divisor.dimSpace != 0 && out.DimSpace == 0 {
		out.ScaleSpace = 0
	}
	if dividend.dimCount != 0 && divisor.dimCount != 0 && out.DimCount == 0 {
		out.ScaleCount = 0
	}
	return out, mult, nil
}

// strtod parses the longest prefix of s that C's strtod accepts and
// returns the value and its length (0 when there is none).
func strtod(s string) (float64, int) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	lower := strings.ToLower(s[i:])
	for _, w := range []string{"infinity", "inf", "nan"} {
		if strings.HasPrefix(lower, w) {
			v := math.Inf(1)
			if w == "nan" {
				v = math.NaN()
			}
			if s[0] == '-' {
				v = -v
			}
			return v, i + len(w)
		}
	}
	digits := 0
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j, digits = j+1, digits+1
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j, digits = j+1, digits+1
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '-' || s[k] == '+') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			j = k
		}
	}
	var v float64
	if _, err := fmt.Sscanf(s[:j], "%g", &v); err != nil {
		return 0, 0
	}
	return v, j
}

var (
	spaceNames = []string{"byte", "Kbyte", "Mbyte", "Gbyte", "Tbyte", "Pbyte", "Ebyte", "Zbyte", "Ybyte"}
	timeNames  = []string{"nanosec", "microsec", "millisec", "sec", "min", "hour"}
)

// String renders units as libpcp 6's pmUnitsStr: "" when dimensionless
// (pminfo prints "none"); see Format for libpcp 7's variant.
func (u Units) String() string { return u.Format(false) }

// Format renders units as pmUnitsStr; latest selects libpcp 7.2's
// spelling of a count scale without a count dimension.
func (u Units) Format(latest bool) string {
	name := func(names []string, prefix string, scale int8) string {
		if scale >= 0 && int(scale) < len(names) {
			return names[scale]
		}
		return fmt.Sprintf("%s-%d", prefix, scale)
	}
	space := name(spaceNames, "space", u.ScaleSpace)
	tm := name(timeNames, "time", u.ScaleTime)
	count := "count"
	switch u.ScaleCount {
	case 0:
	case 1:
		count = "count x 10"
	default:
		count = fmt.Sprintf("count x 10^%d", u.ScaleCount)
	}
	var pos, neg []string
	add := func(dim int8, text string) {
		switch {
		case dim == 1:
			pos = append(pos, text)
		case dim > 1:
			pos = append(pos, fmt.Sprintf("%s^%d", text, dim))
		case dim == -1:
			neg = append(neg, text)
		case dim < -1:
			neg = append(neg, fmt.Sprintf("%s^%d", text, -dim))
		}
	}
	if u.ExtraUnit != 0 { // only PCP 7.2+ has them, so always its spelling
		text := extraText(u)
		if u.ExtraUnit > 0 {
			pos = append(pos, text)
		} else {
			neg = append(neg, text)
		}
	}
	add(u.DimSpace, space)
	add(u.DimTime, tm)
	add(u.DimCount, count)
	out := strings.Join(pos, " ")
	if len(neg) > 0 {
		if out != "" {
			out += " "
		}
		out += "/ " + strings.Join(neg, " ")
	}
	if out == "" && u.ScaleCount != 0 {
		prefix := "x 10"
		if latest {
			prefix = "count x 10"
		}
		if u.ScaleCount == 1 {
			return prefix
		}
		return fmt.Sprintf("%s^%d", prefix, u.ScaleCount)
	}
	return out
}

// extraText renders an extra unit as PCP 7.2 does: "temperature (C)".
func extraText(u Units) string {
	code := int(u.ExtraUnit)
	if code < 0 {
		code = -code
	}
	if code < 1 || code > len(extraUnits) {
		return fmt.Sprintf("extra-%d", code)
	}
	eu := extraUnits[code-1]
	if int(u.ExtraScale) < 1 || int(u.ExtraScale) > len(eu.scales) {
		return fmt.Sprintf("%s (scale-%d)", eu.name, u.ExtraScale)
	}
	return fmt.Sprintf("%s (%s)", eu.name, eu.scales[u.ExtraScale-1])
}

// ErrConv and ErrUnit are pmConvScale's failures.
var (
	ErrConv = errors.New("Impossible value or scale conversion")
	ErrUnit = errors.New("Illegal pmUnits specification")
)

// ConvFactorsStrict is pmConvScale before PCP 5.3.0, where a
// dimensionless side did not stand for count^1: none converts only into
// none, and unchanged.
func ConvFactorsStrict(from, to Units) (mult, div int64, err error) {
	fromNone, toNone := from.Dimensionless(), to.Dimensionless()
	switch {
	case fromNone && toNone:
		return 1, 1, nil
	case fromNone != toNone:
		return 0, 0, ErrConv
	}
	return ConvFactors(from, to)
}

// ConvFactors returns what pmConvScale multiplies and divides a value by
// to convert it from one unit scale to another. A dimensionless side
// counts as count^1 (PCP 5.3.0 and later), so none and count convert into
// each other. Extra units (7.2) must match in kind; their scales convert
// with ConvExtra, applied after these factors.
func ConvFactors(from, to Units) (mult, div int64, err error) {
	if from.DimSpace == 0 && from.DimTime == 0 && from.DimCount == 0 && from.ExtraUnit == 0 {
		from.DimCount = 1
	}
	if to.DimSpace == 0 && to.DimTime == 0 && to.DimCount == 0 && to.ExtraUnit == 0 {
		to.DimCount = 1
	}
	if from.DimSpace != to.DimSpace || from.DimTime != to.DimTime || from.DimCount != to.DimCount || from.ExtraUnit != to.ExtraUnit {
		return 0, 0, ErrConv
	}
	if from.ExtraUnit != 0 {
		if _, ok := ConvExtra(from, to); !ok {
			return 0, 0, ErrUnit
		}
	}
	mult, div = 1, 1
	apply := func(dim int8, d, m int64) {
		if dim > 0 {
			for range dim {
				div *= d
				mult *= m
			}
		} else {
			for k := dim; k < 0; k++ {
				mult *= d
				div *= m
			}
		}
	}
	if from.DimSpace != 0 {
		// Factors relative to Mbyte, libpcp's canonical space unit.
		toMbyte := func(scale int8) (d, m int64, ok bool) {
			if scale < SpaceByte || scale > SpaceEByte {
				return 0, 0, false
			}
			if scale <= SpaceMByte {
				return int64(1) << (10 * (SpaceMByte - scale)), 1, true
			}
			return 1, int64(1) << (10 * (scale - SpaceMByte)), true
		}
		id, im, ok1 := toMbyte(from.ScaleSpace)
		od, om, ok2 := toMbyte(to.ScaleSpace)
		if !ok1 || !ok2 {
			return 0, 0, ErrUnit
		}
		apply(from.DimSpace, id*om, im*od)
	}
	if from.DimTime != 0 {
		toSec := func(scale int8) (d, m int64, ok bool) {
			switch scale {
			case TimeNSec:
				return 1000000000, 1, true
			case TimeUSec:
				return 1000000, 1, true
			case TimeMSec:
				return 1000, 1, true
			case TimeSec:
				return 1, 1, true
			case TimeMin:
				return 1, 60, true
			case TimeHour:
				return 1, 3600, true
			}
			return 0, 0, false
		}
		id, im, ok1 := toSec(from.ScaleTime)
		od, om, ok2 := toSec(to.ScaleTime)
		if !ok1 || !ok2 {
			return 0, 0, ErrUnit
		}
		apply(from.DimTime, id*om, im*od)
	}
	if from.DimCount != 0 || (from.DimSpace == 0 && from.DimTime == 0) {
		var d, m int64 = 1, 1
		for k := from.ScaleCount; k < 0; k++ {
			d *= 10
		}
		for k := int8(0); k < from.ScaleCount; k++ {
			m *= 10
		}
		for k := to.ScaleCount; k < 0; k++ {
			m *= 10
		}
		for k := int8(0); k < to.ScaleCount; k++ {
			d *= 10
		}
		if from.DimCount == 0 {
			mult, div = m, d
		} else {
			apply(from.DimCount, d, m)
		}
	}
	if mult%div == 0 {
		mult, div = mult/div, 1
	}
	return mult, div, nil
}

// ConvInt converts an integer value with pmConvScale's rounding.
func ConvInt(v, mult, div int64) int64 { return (v*mult + div/2) / div }

// ExtraConv converts an extra-unit value between scales as PCP 7.2 does:
// out = A + B*(in + C)/D, computed in double precision.
type ExtraConv struct{ A, B, C, D float64 }

// Apply converts one value.
func (c ExtraConv) Apply(x float64) float64 { return c.A + c.B*(x+c.C)/c.D }

// ConvExtra returns the conversion between the extra-unit scales of two
// units of the same kind; the identity when the scales are equal.
// Temperatures are affine (C, F, K); voltage, current and power scales
// are powers of 1000 apart.
func ConvExtra(from, to Units) (ExtraConv, bool) {
	identity := ExtraConv{0, 1, 0, 1}
	if from.ExtraScale == to.ExtraScale {
		return identity, true
	}
	if from.ExtraUnit != to.ExtraUnit || from.ExtraUnit < 1 || int(from.ExtraUnit) > len(extraUnits) {
		return ExtraConv{}, false
	}
	n := int8(len(extraUnits[from.ExtraUnit-1].scales))
	if from.ExtraScale < 1 || from.ExtraScale > n || to.ExtraScale < 1 || to.ExtraScale > n {
		return ExtraConv{}, false
	}
	if from.ExtraUnit == 1 { // temperature: C=1, F=2, K=3
		const c, f, k = 1, 2, 3
		switch [2]int8{from.ExtraScale, to.ExtraScale} {
		case [2]int8{c, f}:
			return ExtraConv{32, 18, 0, 10}, true
		case [2]int8{f, c}:
			return ExtraConv{0, 10, -32, 18}, true
		case [2]int8{c, k}:
			return ExtraConv{273.15, 1, 0, 1}, true
		case [2]int8{k, c}:
			return ExtraConv{0, 1, -273.15, 1}, true
		case [2]int8{f, k}:
			return ExtraConv{273.15, 10, -32, 18}, true
		case [2]int8{k, f}:
			return ExtraConv{32, 18, -273.15, 10}, true
		}
		return ExtraConv{}, false
	}
	// Larger scale codes are smaller units (V, mV, uV; kW, W, mW, uW).
	step := 1.0
	for i := min(from.ExtraScale, to.ExtraScale); i < max(from.ExtraScale, to.ExtraScale); i++ {
		step *= 1000
	}
	if to.ExtraScale > from.ExtraScale {
		return ExtraConv{0, step, 0, 1}, true
	}
	return ExtraConv{0, 1, 0, step}, true
}
