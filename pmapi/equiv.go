package pmapi

import (
	"fmt"
	"io"
	"strconv"
)

// InDomEquivalence holds the sets of instance domains PCP 6.0.4+ treats as
// the same in binary operators, read from $PCP_INDOM_CONFIG or
// $PCP_ETC_DIR/pcp/indom.conf. The zero value declares nothing equivalent.
type InDomEquivalence struct {
	sets [][]equivMember
}

// equivMember is "domain.serial" or, with all set, "domain.*".
type equivMember struct {
	domain, serial uint32
	all            bool
}

// Equivalent reports whether a and b are listed in one set (a "domain.*"
// entry stands for every indom of its domain).
func (e *InDomEquivalence) Equivalent(a, b InDom) bool {
	if e == nil {
		return false
	}
	for _, set := range e.sets {
		hasA, hasB := false, false
		for _, m := range set {
			hasA = hasA || m.matches(a)
			hasB = hasB || m.matches(b)
		}
		if hasA && hasB {
			return true
		}
	}
	return false
}

func (m equivMember) matches(i InDom) bool {
	return i.Domain() == m.domain && (m.all || i.Serial() == m.serial)
}

// Len is the number of sets.
func (e *InDomEquivalence) Len() int {
	if e == nil {
		return 0
	}
	return len(e.sets)
}

// IndomConfigError is a problem in an indom config file, with its line.
type IndomConfigError struct {
	File    string
	Line    int
	Msg     string
	Warning bool // libpcp accepts the file; the finding says what it did
}

func (e *IndomConfigError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ParseIndomConfig reads an indom config the way libpcp's __pmEquivInDom
// does: sets of indoms "domain.serial" or "domain.*" separated by blanks,
// "#" comments. A set ends only at a newline directly after an indom, so a
// line ending in a blank or a comment runs on into the next line, and a
// set still open at the end of the file is dropped. Any error voids the
// whole file (the returned equivalence is empty). Warnings (Warning set)
// report the run-on and dropped cases, which libpcp does silently.
func ParseIndomConfig(r io.Reader, name string) (*InDomEquivalence, []*IndomConfigError) {
	data, err := io.ReadAll(r)
	if err != nil {
		return &InDomEquivalence{}, []*IndomConfigError{{File: name, Msg: err.Error()}}
	}
	sc := indomScanner{name: name, line: 1}
	for _, c := range data {
		sc.step(c)
	}
	if sc.cur != nil || sc.state == inDomain || sc.state == inSerial {
		sc.problems = append(sc.problems, &IndomConfigError{File: name, Line: sc.setLine, Warning: true,
			Msg: "this set is not ended by a newline right after an indom: libpcp ignores it"})
	}
	if sc.failed {
		return &InDomEquivalence{}, sc.problems
	}
	return &sc.e, sc.problems
}

// indomState is where the scanner is in a line of an indom config.
type indomState int

const (
	atEOL     indomState = iota // between indoms
	inComment                   // after '#', to the newline
	inDomain                    // in "domain" of "domain.serial"
	inSerial                    // in "serial" or '*' after the dot
	skipping                    // after an error, to the newline
)

// indomScanner reads an indom config a byte at a time, as
// __pmEquivInDom does.
type indomScanner struct {
	name     string
	e        InDomEquivalence
	problems []*IndomConfigError
	failed   bool
	state    indomState
	line     int
	setLine  int  // where the open set began
	runOn    bool // the open set has been warned of running on
	cur      []equivMember
	buf      []byte // the digits of the domain or the serial so far
	domain   uint64
}

// fail reports an error on the current line: it voids the file, and the
// rest of the line is skipped.
func (sc *indomScanner) fail(format string, args ...any) {
	sc.problems = append(sc.problems, &IndomConfigError{File: sc.name, Line: sc.line, Msg: fmt.Sprintf(format, args...)})
	sc.failed, sc.cur, sc.state = true, nil, skipping
}

func (sc *indomScanner) step(c byte) {
	switch sc.state {
	case atEOL:
		sc.between(c)
	case inComment, skipping:
		if c == '\n' {
			sc.line++
			sc.state = atEOL
		}
	case inDomain:
		sc.inDomain(c)
	case inSerial:
		sc.inSerial(c)
	}
}

// between reads a byte between indoms: blanks, a comment or the start
// of a domain.
func (sc *indomScanner) between(c byte) {
	switch {
	case c == ' ' || c == '\t':
	case c == '\n':
		sc.line++
	case c == '#':
		sc.state = inComment
	case isDigit(c):
		if sc.cur == nil {
			sc.setLine, sc.runOn = sc.line, false
		} else if sc.line != sc.setLine && !sc.runOn {
			sc.runOn = true
			sc.problems = append(sc.problems, &IndomConfigError{File: sc.name, Line: sc.setLine, Warning: true,
				Msg: "this set runs on into the next line: libpcp ends a set only at a newline right after an indom (not after a blank or a comment)"})
		}
		sc.state, sc.buf = inDomain, append(sc.buf[:0], c)
	default:
		sc.fail("<domain> expected, found '%c'", c)
	}
}

// inDomain reads a byte of the domain, up to its dot.
func (sc *indomScanner) inDomain(c byte) {
	switch {
	case isDigit(c) && len(sc.buf) >= 3:
		sc.fail("<domain> %s%c... too long", sc.buf, c)
	case isDigit(c):
		sc.buf = append(sc.buf, c)
	case c == '.':
		sc.domain, _ = strconv.ParseUint(string(sc.buf), 10, 32)
		if sc.domain > 511 {
			sc.fail("<domain> %d too big", sc.domain)
			return
		}
		sc.state, sc.buf = inSerial, sc.buf[:0]
	default:
		sc.fail("'.' expected after <domain> %s, found '%c'", sc.buf, c)
	}
}

// inSerial reads a byte of the serial or '*'; a blank ends the indom,
// and a newline the set too.
func (sc *indomScanner) inSerial(c byte) {
	switch {
	case len(sc.buf) == 0 && (isDigit(c) || c == '*'):
		sc.buf = append(sc.buf, c)
	case len(sc.buf) == 0:
		sc.fail("digit or '*' expected after <domain> %d, found '%c'", sc.domain, c)
	case isDigit(c) && sc.buf[0] != '*' && len(sc.buf) >= 7:
		sc.fail("<serial> %s%c... too long", sc.buf, c)
	case isDigit(c) && sc.buf[0] != '*':
		sc.buf = append(sc.buf, c)
	case c == '\n' || c == ' ' || c == '\t':
		sc.endIndom(c)
	default:
		sc.fail("newline or whitespace expected after <serial> %s, found '%c'", sc.buf, c)
	}
}

// endIndom adds the indom just read to the open set, and ends the set
// at a newline.
func (sc *indomScanner) endIndom(c byte) {
	m := equivMember{domain: uint32(sc.domain), all: sc.buf[0] == '*'}
	if !m.all {
		serial, _ := strconv.ParseUint(string(sc.buf), 10, 32)
		if serial > 4194303 {
			sc.fail("<serial> %d too big", serial)
			if c == '\n' {
				sc.line++
			}
			return
		}
		m.serial = uint32(serial)
	}
	sc.cur = append(sc.cur, m)
	sc.state = atEOL
	if c == '\n' {
		sc.line++
		sc.e.sets = append(sc.e.sets, sc.cur)
		sc.cur = nil
	}
}

// isDigit is C's isdigit in the "C" locale (internal/ascii's, which
// pmapi does not import: it stays at the bottom of the module).
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
