// Package toolconf knows the kinds of file where PCP users write derived
// metrics besides derived configs: the INI files of pmrep and pcp-dstat
// (package toolconf/pmconfig) and pcp-htop's. It tells them apart by path
// and content, for check, describe and the language server alike.
package toolconf

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// Kind is what reads a file.
type Kind string

// Kinds of file.
const (
	Auto    Kind = "auto"    // detect (Detect)
	Derived Kind = "derived" // pmLoadDerivedConfig's name = expression lines
	Pmrep   Kind = "pmrep"   // pmrep's (pmconfig) INI files
	Dstat   Kind = "dstat"   // pcp-dstat's plugin files
	Htop    Kind = "htop"    // pcp-htop's meters, columns and screens
)

// Kinds lists the kinds a user may name (--kind).
var Kinds = []Kind{Auto, Derived, Pmrep, Dstat, Htop}

// ParseKind reads a --kind value.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown kind %q: want one of auto, derived, pmrep, dstat, htop", s)
}

// Detect tells a file's kind from its path (pmrep/, dstat/ and htop/
// directories, pmrep.conf) and, failing that, its content: a file whose
// first line that is not empty or a comment is a [section] header is
// INI, which a derived config never is (the line has no "="). An INI file
// outside the tools' directories is pmrep's, the common case
// (pmrep -c FILE).
func Detect(path string, src []byte) Kind {
	p := "/" + filepath.ToSlash(path) // a relative path too: htop/meters/load
	base := filepath.Base(p)
	switch {
	case strings.Contains(p, "/htop/meters/"), strings.Contains(p, "/htop/columns/"), strings.Contains(p, "/htop/screens/"):
		return Htop
	case strings.Contains(p, "/dstat/"):
		if isINI(src) {
			return Dstat
		}
	case strings.Contains(p, "/pmrep/"), base == "pmrep.conf", base == ".pmrep.conf":
		if isINI(src) {
			return Pmrep
		}
	}
	if isINI(src) {
		return Pmrep
	}
	return Derived
}

// isINI reports whether the first line that is not blank or a comment
// ("#" or ";") is a [section] header.
func isINI(src []byte) bool {
	line, found, _ := firstContentLine(src)
	return found && len(line) >= 3 && line[0] == '[' && bytes.LastIndexByte(line, ']') >= 2
}

// HeadDecides reports whether Detect of a text that starts with head says
// what Detect of head says: head holds the whole of the first line that is
// not blank or a comment, the one line Detect reads. An editor's buffer
// is classified from its first 4 KB this way, not copied out 64 KB a
// keystroke.
func HeadDecides(head []byte) bool {
	_, found, complete := firstContentLine(head)
	return found && complete
}

// firstContentLine is src's first line that is not blank or a comment,
// trimmed: found says there is one, complete that a line break ends it
// in src.
func firstContentLine(src []byte) (line []byte, found, complete bool) {
	for len(src) > 0 {
		line, complete = src, false
		if k := bytes.IndexAny(src, "\r\n"); k >= 0 {
			line, src, complete = src[:k], src[k+1:], true
		} else {
			src = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' || line[0] == ';' {
			continue
		}
		return line, true, complete
	}
	return nil, false, false
}
