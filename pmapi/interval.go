package pmapi

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// intervalUnits are pmParseInterval's scale words with their length in
// seconds, longest names first as libpcp tries them. A trailing "s" is
// dropped before matching, so "100ms" is 100 minutes, as in libpcp.
var intervalUnits = []struct {
	name    string
	seconds float64
}{
	{"nanosecond", 1e-9}, {"microsecond", 1e-6}, {"millisecond", 1e-3},
	{"second", 1}, {"minute", 60}, {"hour", 3600}, {"day", 86400},
	{"msec", 1e-3}, {"usec", 1e-6}, {"nsec", 1e-9},
	{"sec", 1}, {"min", 60}, {"hr", 3600},
	{"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400},
}

// leadingNumber is what strtod reads at the start of a component.
var leadingNumber = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?`)

// maxIntervalSeconds bounds one component, as libpcp bounds it by the
// largest time_t; Go's Duration is the tighter limit here.
const maxIntervalSeconds = float64(math.MaxInt64 / int64(time.Second))

// IntervalError says where an interval stopped parsing.
type IntervalError struct {
	Spec   string
	Offset int
}

func (e *IntervalError) Error() string {
	if e.Spec == "" {
		return "empty interval"
	}
	return fmt.Sprintf("interval %q: unexpected %q at offset %d: want a number with an optional unit (usec, msec, sec, min, hour, day), e.g. 0.5, 2sec, 1min 30sec", e.Spec, e.Spec[e.Offset:], e.Offset)
}

// ParseInterval reads an interval the way PCP tools read -t
// (pmParseInterval): numbers, each with an optional unit, summed; no unit
// means seconds ("0.5", "2sec", "1min 30sec", "1.5hour").
func ParseInterval(spec string) (time.Duration, error) {
	if spec == "" {
		return 0, &IntervalError{Spec: spec}
	}
	scan, sec := 0, 0.0
	for scan < len(spec) {
		at := scan
		for at < len(spec) && isSpace(spec[at]) {
			at++
		}
		num := leadingNumber.FindString(spec[at:])
		d, err := strconv.ParseFloat(num, 64)
		if num == "" || err != nil || d < 0 || d > maxIntervalSeconds {
			scan = at // white space before the failure is consumed, as by strtod
			break
		}
		scan = at + len(num)
		for scan < len(spec) && isSpace(spec[scan]) {
			scan++
		}
		end := scan
		for end < len(spec) && isLetter(spec[end]) {
			end++
		}
		word := spec[scan:end]
		if len(word) > 1 && (word[len(word)-1] == 's' || word[len(word)-1] == 'S') {
			word = word[:len(word)-1]
		}
		scale := 1.0
		if word != "" {
			found := false
			for _, u := range intervalUnits {
				if strings.EqualFold(word, u.name) {
					scale, found = u.seconds, true
					break
				}
			}
			if !found {
				break
			}
		}
		sec += d * scale
		scan = end
	}
	if scan < len(spec) || sec > maxIntervalSeconds {
		return 0, &IntervalError{Spec: spec, Offset: scan}
	}
	return time.Duration(math.Round(sec * float64(time.Second))), nil
}

func isSpace(c byte) bool  { return c == ' ' || (c >= '\t' && c <= '\r') }
func isLetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }
