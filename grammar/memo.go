package grammar

import (
	"strings"
	"sync"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// Memo remembers the parse of expressions across ParseConfig calls. The
// entries are shared read-only between files; Trim keeps it to what the
// latest file uses. Safe for concurrent use.
type Memo struct {
	mu   sync.Mutex
	m    map[memoKey]*memoEntry
	used map[memoKey]bool
}

type memoKey struct {
	expr    string
	version pcpver.Version
	leaked  bool
}

type memoEntry struct {
	// expr is the memo's own copy of the text (the key's): definitions
	// that share the entry use it as their Expr, so neither the entry nor
	// the tree built from it keeps a version of the document alive.
	expr    string
	verdict Verdict
	// The tree is built once, by whichever definition asks first.
	tree treeCell
}

// NewMemo makes an empty memo.
func NewMemo() *Memo { return &Memo{m: map[memoKey]*memoEntry{}, used: map[memoKey]bool{}} }

// get returns the entry of an expression and the memo's copy of its text,
// or nil.
func (m *Memo) get(expr string, v pcpver.Version, leaked bool) (*memoEntry, string) {
	if m == nil {
		return nil, ""
	}
	k := memoKey{expr, v, leaked}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.m[k]
	if e == nil {
		return nil, ""
	}
	m.used[k] = true
	return e, e.expr
}

// put remembers the definition's parse, under a copy of its text that the
// definition then uses.
func (m *Memo) put(d *Definition) {
	if m == nil {
		return
	}
	d.Expr = strings.Clone(d.Expr)
	k := memoKey{d.Expr, d.version(), d.leaked}
	e := &memoEntry{expr: d.Expr, verdict: d.Verdict}
	m.mu.Lock()
	m.m[k], m.used[k] = e, true
	m.mu.Unlock()
	e.share(d)
}

// share makes the definition build its tree through the entry.
func (e *memoEntry) share(d *Definition) { d.memo = e }

// Trim forgets the expressions not used since the last Trim.
func (m *Memo) Trim() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.m {
		if !m.used[k] {
			delete(m.m, k)
		}
	}
	m.used = map[memoKey]bool{}
}

// Len is the number of remembered expressions.
func (m *Memo) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}
