package grammar

import (
	"strconv"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// validTypeSpec accepts mkconst/novalue "type=" values (case-insensitive).
// They are the arithmetic types.
func validTypeSpec(v string) bool {
	t, ok := pmapi.ParseType(strings.ToUpper(v))
	return ok && t.Arithmetic()
}

// validSemSpec accepts "semantics=" values (case-insensitive).
func validSemSpec(v string) bool {
	_, ok := pmapi.ParseSem(strings.ToLower(v))
	return ok
}

// validInDomSpec accepts "indom=" values: null, or domain.serial with a
// domain below 511 and a serial below 2^22.
func validInDomSpec(v string) bool {
	if strings.EqualFold(v, "null") {
		return true
	}
	dom, serial, ok := strings.Cut(v, ".")
	if !ok {
		return false
	}
	d, err1 := strconv.ParseUint(dom, 10, 32)
	s, err2 := strconv.ParseUint(serial, 10, 32)
	return err1 == nil && err2 == nil && d < 511 && s < 1<<22
}
