// Package ascii holds the byte classes the module's readers share, as
// C's <ctype.h> has them in the "C" locale: PCP's readers are C, and a
// Unicode class (unicode.IsDigit) would accept what they refuse.
package ascii

// IsDigit reports whether c is '0' to '9'.
func IsDigit(c byte) bool { return c >= '0' && c <= '9' }

// IsDigits reports whether s is one or more of '0' to '9' and nothing
// else.
func IsDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsDigit(s[i]) {
			return false
		}
	}
	return true
}
