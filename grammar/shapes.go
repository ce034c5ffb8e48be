package grammar

import (
	"sync"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// Shapes shares participle's parse between expressions of the same
// shape: the same sequence of participle tokens (tokenStream), each of the
// same type and, where the grammar matches a token's text, standing for
// the same kind of our token (shapeKey). What participle matches depends
// on nothing else, and the builder reads a parse only for its structure and
// the indexes of its tokens, taking names, numbers and offsets from each
// expression's own tokens. Shapes are of one level of parentheses at a
// time (tokenStream.groups): what a parenthesised operand or a call holds
// is a parse of its own. So a generated config of a million definitions
// of a few forms (one per disk, per container) is parsed by participle a
// few times, and each definition still gets a tree of its own. Only short expressions are remembered,
// and at most shapeEntries of them. Safe for concurrent use; a nil
// *Shapes shares nothing.
type Shapes struct {
	mu sync.Mutex
	m  map[string]*pExpr
	// tokens are token buffers for the trees built through the Shapes
	// (Definition.TreeWith), reused: a tree keeps none of its tokens,
	// and a check of 100,000 definitions allocated 83 MB of them.
	tokens sync.Pool
}

// lex lexes expr into a buffer from the pool; done gives it back.
func (s *Shapes) lex(expr string, v pcpver.Version) (toks []Token, done func()) {
	if s == nil {
		return Tokens(expr, v, false), func() {}
	}
	bp, _ := s.tokens.Get().(*[]Token)
	if bp == nil {
		bp = new([]Token)
	}
	toks = appendTokens((*bp)[:0], expr, v, false)
	return toks, func() {
		clear(toks) // no strings of the text kept alive by the pool
		*bp = toks[:0]
		s.tokens.Put(bp)
	}
}

const (
	// shapeMaxTokens is the longest expression, in participle's tokens,
	// remembered: long ones rarely repeat.
	shapeMaxTokens = 96
	// shapeEntries bounds the parses remembered (each a few hundred
	// bytes to a few KB).
	shapeEntries = 4096
)

// NewShapes makes an empty cache of parses by shape.
func NewShapes() *Shapes { return &Shapes{m: map[string]*pExpr{}} }

// shapeKey runs the stream to its end, writing the shape of what
// participle would be given into buf: each participle token's type and,
// for punctuation and prefix operators, which the grammar matches by
// their text ('(' or ',', matchinst's '!'), the kind of our token it
// starts with. Everything else is matched by its type alone: an atom's
// inside and a binary operator are the builder's to read, so "a.b + 1",
// "-x[i] * y" and "rate(c) < 2" share a parse. It returns false when the
// expression is too long to remember. Our token kinds and participle's
// token types both fit in a byte.
func shapeKey(buf []byte, s *tokenStream) ([]byte, bool) {
	for n := 0; ; n++ {
		if n > shapeMaxTokens {
			return nil, false
		}
		pt, _ := s.Next() // never fails
		buf = append(buf, byte(pt.Type))
		if pt.Type == ptPunctuation || pt.Type == ptPrefix {
			buf = append(buf, byte(s.toks[s.spans[pt.Pos.Line].start].Kind))
		}
		if pt.EOF() {
			return buf, true
		}
	}
}

// parse is participle's parse of the stream, which must not have been
// read yet: the parse remembered for its shape, or participle's own,
// then remembered. The stream's spans are those of the tokens parsed.
func (s *Shapes) parse(stream *tokenStream) (*pExpr, error) {
	var keyBuf [2*shapeMaxTokens + 2]byte
	var key []byte
	keyed := false
	fresh := *stream
	if s != nil {
		key, keyed = shapeKey(keyBuf[:0], stream)
	}
	if keyed {
		if e := s.get(key); e != nil {
			return e, nil
		}
	}
	// participle's own run of the stream (the key's may have stopped
	// short).
	*stream = fresh
	stream.spans = stream.spans[:0]
	e, err := participleParse(stream)
	if err != nil {
		return nil, err
	}
	if keyed {
		s.put(key, e)
	}
	return e, nil
}

// get returns the parse remembered for a shape, or nil.
func (s *Shapes) get(key []byte) *pExpr {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[string(key)]
}

// put remembers a parse of a shape while there is room.
func (s *Shapes) put(key []byte, e *pExpr) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.m) < shapeEntries {
		s.m[string(key)] = e
	}
}
