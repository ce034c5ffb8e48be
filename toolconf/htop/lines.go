package htop

import "bytes"

// readStep is String_readLine's chunk: it reads a line with fgets 1024
// bytes at a time.
const readStep = 1024

// line is one line as htop's String_readLine returns it: the C string
// src[Off:End] (up to the line's "\n", or to a NUL byte, where the C string
// ends), starting a read at Start and leaving the next read at Next. NUL
// says a NUL byte cut the line, and fgets' chunks went on over the
// following physical lines until one held a "\n" in its C string.
type line struct {
	Start, Off, End, Next int
	NUL                   bool
}

// readLine reads the line at pos as String_readLine does. ok is false when
// the read returns NULL: at the end of the file, and also when a line's
// last chunk ended exactly at the end of the file without a "\n" (1024
// bytes, or the chunks after a NUL), which drops that line.
func readLine(src []byte, pos int) (l line, ok bool) {
	l = line{Start: pos, Off: pos, End: -1}
	for {
		if pos >= len(src) {
			return l, false // fgets read nothing: NULL, the line is lost
		}
		n := min(readStep, len(src)-pos)
		chunk := src[pos : pos+n]
		newline := false
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			chunk, n, newline = chunk[:i+1], i+1, true
		}
		start := pos
		pos += n
		c := chunk
		if z := bytes.IndexByte(c, 0); z >= 0 {
			c = c[:z]
			if l.End < 0 {
				l.End, l.NUL = start+z, true
			}
		}
		// strrchr(at, '\n') sees the chunk's C string only.
		if len(c) > 0 && c[len(c)-1] == '\n' {
			if l.End < 0 {
				l.End = pos - 1
			}
			l.Next = pos
			return l, true
		}
		if !newline && n < readStep { // fgets met the end of the file: feof
			if l.End < 0 {
				l.End = pos
			}
			l.Next = pos
			return l, true
		}
	}
}

// isTrim is what htop's String_trim strips: blank, tab, newline (not
// "\r": a CRLF file keeps a "\r" at the end of every value).
func isTrim(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// trim returns the bounds of src[a:b] without String_trim's characters
// at either end.
func trim(src []byte, a, b int) (int, int) {
	for a < b && isTrim(src[a]) {
		a++
	}
	for b > a && isTrim(src[b-1]) {
		b--
	}
	return a, b
}

// split is one trimmed line cut as htop's String_split or
// String_splitFirst cuts it at "=" and then trims: the key, and the value
// when there is one (value false: htop skips the line).
type split struct {
	keyOff, keyEnd int
	value          bool
	valOff, valEnd int
	// rawOff, rawEnd is the value before trimming (config[1], which the
	// meter "type" compares untrimmed).
	rawOff, rawEnd int
	// cut is the offset of the "=" where an every-"=" split dropped the
	// rest of the line (-1: nothing dropped).
	cut int
}

// splitLine cuts the trimmed line src[a:b] (not empty).
func splitLine(src []byte, a, b int, first bool) split {
	s := split{cut: -1}
	eq := bytes.IndexByte(src[a:b], '=')
	if eq < 0 {
		s.keyOff, s.keyEnd = trim(src, a, b)
		return s
	}
	eq += a
	s.keyOff, s.keyEnd = trim(src, a, eq)
	s.rawOff, s.rawEnd = eq+1, b
	if first {
		// String_splitFirst: the rest is a piece when not empty.
		s.value = s.rawEnd > s.rawOff
	} else if eq2 := bytes.IndexByte(src[eq+1:b], '='); eq2 >= 0 {
		// String_split: every "=" ends a piece, empty ones included.
		s.rawEnd, s.value, s.cut = eq+1+eq2, true, eq+1+eq2
	} else {
		s.value = s.rawEnd > s.rawOff
	}
	if s.value {
		s.valOff, s.valEnd = trim(src, s.rawOff, s.rawEnd)
	}
	return s
}
