// Package editdist is the one edit distance of the module: how many
// bytes to insert, delete or replace to turn one name into another
// (Levenshtein distance). "Did you mean" for metric names and instances
// (package checker) and for finding codes (package codes) both ask it.
package editdist

// Distance is the edit distance between a and b.
func Distance(a, b string) int { return New(a).Distance(b) }

// Name is a name prepared to be compared with many others (a namespace
// scanned for the names nearest an unknown one). A name of at most 64
// bytes keeps a column of the distance table in a machine word (Myers'
// bit-parallel algorithm, in Hyyrö's form for whole strings): thousands
// of names are scanned again on every keystroke that leaves one unknown.
// A longer one fills the table a row at a time.
type Name struct {
	name string
	// match[c] has bit i set where the name's byte i is c (64 bytes or
	// fewer); last is the bit of its last byte.
	match     *[256]uint64
	last      uint64
	prev, cur []int // the rows of a longer name's table, reused
}

// New prepares name.
func New(name string) *Name {
	n := &Name{name: name}
	if len(name) == 0 || len(name) > 64 {
		return n
	}
	n.match, n.last = new([256]uint64), 1<<(len(name)-1)
	for i := 0; i < len(name); i++ {
		n.match[name[i]] |= 1 << i
	}
	return n
}

// Distance is the edit distance from the name to b.
func (n *Name) Distance(b string) int {
	switch {
	case len(n.name) == 0:
		return len(b)
	case n.match != nil:
		return n.bits(b)
	}
	return n.table(b)
}

// bits keeps the table's column for each byte of b as bit vectors of its
// vertical differences (+1 in pv, -1 in mv); the distance moves with the
// difference in the last row.
func (n *Name) bits(b string) int {
	pv, mv, score := ^uint64(0), uint64(0), len(n.name)
	for j := 0; j < len(b); j++ {
		eq := n.match[b[j]]
		xv := eq | mv
		xh := (((eq & pv) + pv) ^ pv) | eq
		ph := mv | ^(xh | pv)
		mh := pv & xh
		switch {
		case ph&n.last != 0:
			score++
		case mh&n.last != 0:
			score--
		}
		ph = ph<<1 | 1 // row 0 grows by one a byte of b
		mh <<= 1
		pv = mh | ^(xv | ph)
		mv = ph & xv
	}
	return score
}

// table fills the distance table a row (a byte of the name) at a time.
func (n *Name) table(b string) int {
	if cap(n.prev) < len(b)+1 {
		n.prev, n.cur = make([]int, len(b)+1), make([]int, len(b)+1)
	}
	prev, cur := n.prev[:len(b)+1], n.cur[:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	a := n.name
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
