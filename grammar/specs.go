package grammar

import (
	"strconv"
	"strings"
)

// validTypeSpec accepts mkconst/novalue "type=" values (case-insensitive).
func validTypeSpec(v string) bool {
	switch strings.ToUpper(v) {
	case "32", "U32", "64", "U64", "FLOAT", "DOUBLE":
		return true
	}
	return false
}

// validSemSpec accepts "semantics=" values (case-insensitive).
func validSemSpec(v string) bool {
	switch strings.ToLower(v) {
	case "counter", "instant", "discrete":
		return true
	}
	return false
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
