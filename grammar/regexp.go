package grammar

import "strings"

// glibc's regerror texts for the errors regcomp(REG_EXTENDED) reports.
const (
	reBadPattern   = "Invalid regular expression"
	reBadClass     = "Invalid character class name"
	reTrailingBS   = "Trailing backslash"
	reBadBackref   = "Invalid back reference"
	reUnmatchedBrk = "Unmatched [, [^, [:, [., or [="
	reUnmatchedPar = "Unmatched ( or \\("
	reUnmatchedBr  = "Unmatched \\{"
	reBadInterval  = "Invalid content of \\{\\}"
	reBadRange     = "Invalid range end"
	reBadRepeat    = "Invalid preceding regular expression"
	reTooBig       = "Regular expression too big"
)

var posixClasses = map[string]bool{
	"alpha": true, "upper": true, "lower": true, "digit": true, "xdigit": true,
	"space": true, "print": true, "punct": true, "graph": true, "cntrl": true,
	"blank": true, "alnum": true,
}

// checkPOSIXRegexp reports the message glibc's regcomp gives for a POSIX
// extended regular expression libpcp would reject, or "" when it compiles.
// libpcp compiles matchinst patterns at parse time, so a bad pattern is a
// syntax error; Go's RE2 syntax differs, hence this small checker.
func checkPOSIXRegexp(re string) string {
	groups, closed := 0, 0
	var open []int
	canRepeat := false // is there something a repetition operator applies to
	for i := 0; i < len(re); i++ {
		switch c := re[i]; c {
		case '\\':
			if i+1 >= len(re) {
				return reTrailingBS
			}
			i++
			if d := re[i]; d >= '1' && d <= '9' && int(d-'0') > closed {
				return reBadBackref
			}
			canRepeat = true
		case '[':
			end, msg := scanBracket(re, i)
			if msg != "" {
				return msg
			}
			i = end
			canRepeat = true
		case '(':
			groups++
			open = append(open, groups)
			canRepeat = false
		case ')':
			if len(open) == 0 {
				canRepeat = true // a lone ")" is an ordinary character
				continue
			}
			open = open[:len(open)-1]
			closed++
			canRepeat = true
		case '|':
			canRepeat = false
		case '*', '+', '?':
			if !canRepeat && i == 0 {
				return reBadRepeat
			}
		case '{':
			if !canRepeat && i == 0 {
				return reBadRepeat
			}
			end, msg := scanInterval(re, i)
			if msg != "" {
				return msg
			}
			i = end
		case '^', '$':
			canRepeat = c == '$'
		default:
			canRepeat = true
		}
	}
	if len(open) > 0 {
		return reUnmatchedPar
	}
	return ""
}

// scanBracket checks a bracket expression starting at re[start] == '['
// and returns the index of its closing ']'.
func scanBracket(re string, start int) (int, string) {
	i := start + 1
	if i < len(re) && re[i] == '^' {
		i++
	}
	if i >= len(re) {
		return 0, reBadPattern
	}
	first := true
	prev := -1 // previous single character, for ranges
	for i < len(re) {
		c := re[i]
		switch {
		case c == ']' && !first:
			return i, ""
		case c == '[' && i+1 < len(re) && strings.IndexByte(":.=", re[i+1]) >= 0:
			kind := re[i+1]
			end := strings.Index(re[i+2:], string(kind)+"]")
			if end < 0 {
				return 0, reUnmatchedBrk
			}
			name := re[i+2 : i+2+end]
			if kind == ':' && !posixClasses[name] {
				return 0, reBadClass
			}
			i += 2 + end + 2
			prev = -1
		case c == '-' && prev >= 0 && i+1 < len(re) && re[i+1] != ']':
			hi := int(re[i+1])
			if hi < prev {
				return 0, reBadRange
			}
			i += 2
			prev = -1
		default:
			prev = int(c)
			i++
		}
		first = false
	}
	return 0, reUnmatchedBrk
}

// scanInterval checks "{n}", "{n,}" or "{n,m}" starting at re[start] == '{'.
func scanInterval(re string, start int) (int, string) {
	end := strings.IndexByte(re[start:], '}')
	if end < 0 {
		return 0, reUnmatchedBr
	}
	body := re[start+1 : start+end]
	lo, hi, comma := body, "", false
	if k := strings.IndexByte(body, ','); k >= 0 {
		lo, hi, comma = body[:k], body[k+1:], true
	}
	n, okLo := atoiBounded(lo)
	m, okHi := atoiBounded(hi)
	if !okLo || (hi != "" && !okHi) {
		return 0, reBadInterval
	}
	const dupMax = 0x7fff
	if n > dupMax || (comma && hi != "" && m > dupMax) {
		return 0, reTooBig
	}
	if comma && hi != "" && m < n {
		return 0, reBadInterval
	}
	return start + end, ""
}

func atoiBounded(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n < 1<<20 {
			n = n*10 + int(c-'0')
		}
	}
	return n, true
}
