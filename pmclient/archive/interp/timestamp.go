package interp

import (
	"math"
	"math/big"
	"time"
)

// stamp is libpcp's __pmTimestamp: seconds and nanoseconds, kept with
// libpcp's own normalisation (see advance) so that times are measured
// from the archive's start exactly as libpcp measures them.
type stamp struct {
	sec  int64
	nsec int64
}

func stampOf(t time.Time) stamp { return stamp{t.Unix(), int64(t.Nanosecond())} }

func (s stamp) time() time.Time { return time.Unix(s.sec, s.nsec) }

// advance adds a step as __pmLogFetchInterp moves its origin after each
// fetch: nanoseconds are carried only above a whole second (a value of
// exactly 1e9 stays), as libpcp does.
func (s stamp) advance(step stamp) stamp {
	s.sec += step.sec
	s.nsec += step.nsec
	for s.nsec > 1e9 {
		s.sec++
		s.nsec -= 1e9
	}
	for s.nsec < 0 {
		s.sec--
		s.nsec += 1e9
	}
	return s
}

// x87 is the precision of C's long double on x86-64 (a 64-bit mantissa),
// in which libpcp subtracts timestamps.
const x87 = 64

var nsecPerSec = new(big.Float).SetPrec(x87).SetInt64(1e9)

// since is __pmTimestampSub(a, b): the seconds from b to a, computed as
// libpcp computes them, (double)(sec difference + (long double)nsec
// difference / 1e9) in long double arithmetic, rounded to a double at
// the end. Interpolated values depend on these times to the last bit,
// and rounding twice (to 64 bits, then to 53) differs from rounding once
// about one time in two thousand.
func since(a, b stamp) float64 {
	q := new(big.Float).SetPrec(x87).SetInt64(a.nsec - b.nsec)
	q.Quo(q, nsecPerSec)
	s := new(big.Float).SetPrec(x87).SetInt64(a.sec - b.sec)
	s.Add(s, q)
	f, _ := s.Float64()
	return f
}

// The conversions of a double to an integer type that gcc emits on
// x86-64 (cvttsd2si), where C leaves out-of-range conversions undefined:
// libpcp's interpolated counters are converted this way.

// cInt32 converts as (int) does: truncation, 0x80000000 when out of range.
func cInt32(d float64) int32 {
	if math.IsNaN(d) || d >= 2147483648 || d <= -2147483649 {
		return math.MinInt32
	}
	return int32(d)
}

// cInt64 converts as (long long) does: truncation, 1<<63 when out of range.
func cInt64(d float64) int64 {
	if math.IsNaN(d) || d >= 9223372036854775808 || d < -9223372036854775808 {
		return math.MinInt64
	}
	return int64(d)
}

// cUint32 converts as (unsigned int) does with gcc: through a 64-bit
// signed conversion, keeping the low 32 bits.
func cUint32(d float64) uint32 { return uint32(cInt64(d)) }

// cUint64 converts as (unsigned long long) does with gcc: below 2^63 (or
// NaN, which compares unordered) a signed conversion (negative values
// wrap), above it the signed conversion of d-2^63 with the top bit set.
func cUint64(d float64) uint64 {
	const two63 = 9223372036854775808.0
	if !(d >= two63) {
		return uint64(cInt64(d))
	}
	return uint64(cInt64(d-two63)) ^ (1 << 63)
}

// Seconds is pmtimespecToReal: a time as seconds since the epoch,
// summed in long double and rounded to a double, as pmval computes the
// time between two samples when it converts counters to rates (the
// difference of two such numbers, not the exact interval).
func Seconds(t time.Time) float64 { return since(stampOf(t), stamp{}) }
