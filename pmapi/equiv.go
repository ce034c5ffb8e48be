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
	const (
		atEOL = iota
		inComment
		inDomain
		inSerial
		skipping
	)
	data, err := io.ReadAll(r)
	if err != nil {
		return &InDomEquivalence{}, []*IndomConfigError{{File: name, Msg: err.Error()}}
	}
	var (
		e        InDomEquivalence
		problems []*IndomConfigError
		failed   bool
		state    = atEOL
		line     = 1
		setLine  int
		runOn    bool
		cur      []equivMember
		buf      []byte
		domain   uint64
	)
	fail := func(format string, args ...any) {
		problems = append(problems, &IndomConfigError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)})
		failed, cur, state = true, nil, skipping
	}
	for _, c := range data {
		isDigit := c >= '0' && c <= '9'
		switch state {
		case atEOL:
			switch {
			case c == ' ' || c == '\t':
			case c == '\n':
				line++
			case c == '#':
				state = inComment
			case isDigit:
				if cur == nil {
					setLine, runOn = line, false
				} else if line != setLine && !runOn {
					runOn = true
					problems = append(problems, &IndomConfigError{File: name, Line: setLine, Warning: true,
						Msg: "this set runs on into the next line: libpcp ends a set only at a newline right after an indom (not after a blank or a comment)"})
				}
				state, buf = inDomain, append(buf[:0], c)
			default:
				fail("<domain> expected, found '%c'", c)
			}
		case inComment:
			if c == '\n' {
				line++
				state = atEOL
			}
		case inDomain:
			switch {
			case isDigit && len(buf) >= 3:
				fail("<domain> %s%c... too long", buf, c)
			case isDigit:
				buf = append(buf, c)
			case c == '.':
				domain, _ = strconv.ParseUint(string(buf), 10, 32)
				if domain > 511 {
					fail("<domain> %d too big", domain)
					continue
				}
				state, buf = inSerial, buf[:0]
			default:
				fail("'.' expected after <domain> %s, found '%c'", buf, c)
			}
		case inSerial:
			switch {
			case len(buf) == 0 && (isDigit || c == '*'):
				buf = append(buf, c)
			case len(buf) == 0:
				fail("digit or '*' expected after <domain> %d, found '%c'", domain, c)
			case isDigit && buf[0] != '*' && len(buf) >= 7:
				fail("<serial> %s%c... too long", buf, c)
			case isDigit && buf[0] != '*':
				buf = append(buf, c)
			case c == '\n' || c == ' ' || c == '\t':
				m := equivMember{domain: uint32(domain), all: buf[0] == '*'}
				if !m.all {
					serial, _ := strconv.ParseUint(string(buf), 10, 32)
					if serial > 4194303 {
						fail("<serial> %d too big", serial)
						if c == '\n' {
							line++
						}
						continue
					}
					m.serial = uint32(serial)
				}
				cur = append(cur, m)
				state = atEOL
				if c == '\n' {
					line++
					e.sets = append(e.sets, cur)
					cur = nil
				}
			default:
				fail("newline or whitespace expected after <serial> %s, found '%c'", buf, c)
			}
		case skipping:
			if c == '\n' {
				line++
				state = atEOL
			}
		}
	}
	if cur != nil || state == inDomain || state == inSerial {
		problems = append(problems, &IndomConfigError{File: name, Line: setLine, Warning: true,
			Msg: "this set is not ended by a newline right after an indom: libpcp ignores it"})
	}
	if failed {
		return &InDomEquivalence{}, problems
	}
	return &e, problems
}
