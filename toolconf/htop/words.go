package htop

import (
	"bytes"
	"fmt"
	"strings"
)

// linesWith counts the lines of src that hold c.
func linesWith(src []byte, c byte) int {
	n := 0
	for len(src) > 0 {
		i := bytes.IndexByte(src, c)
		if i < 0 {
			break
		}
		n++
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		src = src[i+j+1:]
	}
	return n
}

// short is s for a message: at most 60 bytes of it.
func short(s string) string {
	if len(s) <= 60 {
		return s
	}
	return s[:57] + "..."
}

// atoi reads n as C's atoi does (blanks, a sign, digits, stop at the
// first other byte); clean says the whole text was one integer.
func atoi(s string) (n int, clean bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\v' || s[i] == '\f' || s[i] == '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if n < 1<<31 {
			n = n*10 + int(s[i]-'0')
		}
		i++
		digits++
	}
	if neg {
		n = -n
	}
	return n, digits > 0 && i == len(s)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// suggest is ", did you mean X?" for the known word closest to s (case
// or one edit away), "" when none is.
func suggest(s string, known []string) string {
	if k := nearest(s, known); k != "" {
		return fmt.Sprintf(" (did you mean %q?)", k)
	}
	return ""
}

// nearest is the known word s is a case or one edit away from, "" for
// none.
func nearest(s string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(k, s) || editDistanceOne(strings.ToLower(s), k) {
			return k
		}
	}
	return ""
}

// editDistanceOne reports whether a and b differ by one insertion,
// deletion, substitution or swap of neighbours. It is a predicate, not
// internal/editdist's distance: that one counts a swap as two, and
// preparing its table costs 2 KiB on every unknown key of a file.
func editDistanceOne(a, b string) bool {
	if a == b || len(a) > 64 {
		return false
	}
	if len(a) == len(b) {
		diff := []int{}
		for i := range a {
			if a[i] != b[i] {
				diff = append(diff, i)
			}
		}
		if len(diff) == 1 {
			return true
		}
		return len(diff) == 2 && diff[1] == diff[0]+1 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]]
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a) != len(b)+1 {
		return false
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	return a[i+1:] == b[i:]
}
