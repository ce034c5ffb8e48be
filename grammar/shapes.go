package grammar

import (
	"sync"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// Shapes shares participle's parse between expressions of the same
// shape: the same sequence of token kinds (and, for a function word, the
// same family of function). What participle matches depends on nothing
// else (tokenStream makes its tokens from the kinds alone, the text of a
// punctuation token is fixed by its kind), and the builder reads a parse
// only for its structure and the indexes of its tokens, taking names,
// numbers and offsets from each expression's own tokens. So a generated
// config of a million definitions of a few forms (one per disk, per
// container) is parsed by participle a few times, and each definition
// still gets a tree of its own. Only short expressions are remembered,
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
	// shapeMaxTokens is the longest expression, in tokens, remembered:
	// long ones rarely repeat.
	shapeMaxTokens = 96
	// shapeEntries bounds the parses remembered (each a few hundred
	// bytes to a few KB).
	shapeEntries = 4096
)

// NewShapes makes an empty cache of parses by shape.
func NewShapes() *Shapes { return &Shapes{m: map[string]*pExpr{}} }

// shapeKey writes the shape of toks into buf and returns it, or false
// when the expression is too long to remember. Our token kinds and the
// function families both fit in a byte.
func shapeKey(buf []byte, toks []Token) ([]byte, bool) {
	if len(toks) > shapeMaxTokens {
		return nil, false
	}
	for _, t := range toks {
		buf = append(buf, byte(t.Kind))
		if t.Kind == TokFunc {
			buf = append(buf, byte(funcTypes[t.Value]))
		}
	}
	return buf, true
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
