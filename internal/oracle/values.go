package oracle

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// PminfoBlocks splits `pminfo -f` output (or ours printed the same way)
// into metric name → the lines under it, without pminfo's own
// pmNameIndom complaints about unnamed instances.
func PminfoBlocks(s string) map[string]string {
	out := map[string]string{}
	for _, b := range strings.Split(s, "\n\n") {
		var kept []string
		for _, l := range strings.Split(b, "\n") {
			if !strings.HasPrefix(l, "pmNameIndom:") {
				kept = append(kept, l)
			}
		}
		name, rest, _ := strings.Cut(strings.TrimSpace(strings.Join(kept, "\n")), "\n")
		out[name] = rest
	}
	return out
}

// SameValues compares two blocks of values word by word, numbers to
// 1e-9 relative (libpcp and we print doubles the same way, but a last
// digit may differ after float arithmetic in another order).
func SameValues(a, b string) bool {
	if a == b {
		return true
	}
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if fa[i] == fb[i] {
			continue
		}
		x, err1 := strconv.ParseFloat(fa[i], 64)
		y, err2 := strconv.ParseFloat(fb[i], 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if math.Abs(x-y) > 1e-9*max(math.Abs(x), math.Abs(y)) {
			return false
		}
	}
	return true
}

// SteadyMetrics are metrics of the test pmcd whose values never change,
// so one sample of ours and one of libpcp's, taken apart, can be compared.
var SteadyMetrics = []string{
	"sample.long.one", "sample.long.ten", "sample.long.hundred", "sample.long.million", "sample.ulong.one",
	"sample.ulong.hundred", "sample.longlong.one", "sample.longlong.million", "sample.ulonglong.ten",
	"sample.float.one", "sample.float.hundred", "sample.double.one", "sample.double.million", "sample.bin",
	"sample.part_bin", "sample.bogus_bin", "sample.long.bin", "sample.ulong.bin", "sample.double.bin",
	"sample.float.bin", "sample.longlong.bin", "sample.ulong.count.kilo",
	"sample.ulong.count.mega", "sample.ulong.count.base", "hinv.ncpu",
}

// KnownCrash reports expressions that crash or hang libpcp 6.0.3 at fetch
// ((expr)[inst], scalar(), anon()): value comparisons
// with releases before 6.1.1 leave them out.
func KnownCrash(e string) bool {
	return parenFilter.MatchString(e) || strings.Contains(e, "scalar(") || strings.Contains(e, "anon(")
}

// parenFilter is (expr)[inst], however spaced (the generator writes
// "( x )  [i]" too).
var parenFilter = regexp.MustCompile(`\)\s*\[`)
