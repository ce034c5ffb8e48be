package grammar

import (
	"runtime"
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
	verdict Verdict
	// The tree is built once, by whichever definition asks first.
	once sync.Once
	tree Node
	err  error
}

// NewMemo makes an empty memo.
func NewMemo() *Memo { return &Memo{m: map[memoKey]*memoEntry{}, used: map[memoKey]bool{}} }

func (m *Memo) get(expr string, v pcpver.Version, leaked bool) *memoEntry {
	if m == nil {
		return nil
	}
	k := memoKey{expr, v, leaked}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.m[k]
	if e != nil {
		m.used[k] = true
	}
	return e
}

func (m *Memo) put(d *Definition) {
	if m == nil {
		return
	}
	k := memoKey{d.Expr, d.version, d.leaked}
	e := &memoEntry{verdict: d.Verdict}
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

// prefetch lexes and parses, on all CPUs, the text after the first "=" of
// every line, as the one-line definition libpcp would see (matchinst flag
// down, the usual case). Reading the files then finds most definitions
// done; any other line, or a line read in another state, simply misses.
func (m *Memo) prefetch(srcs []Source, v pcpver.Version) {
	seen := map[string]bool{}
	var exprs []string
	for _, s := range srcs {
		for _, line := range strings.Split(string(s.Src), "\n") {
			eq := strings.IndexByte(line, '=')
			if eq < 0 || strings.HasPrefix(strings.TrimLeft(line, " \t"), "#") {
				continue
			}
			expr := strings.TrimLeft(line[eq+1:], " \t")
			if expr != "" && !seen[expr] {
				seen[expr] = true
				exprs = append(exprs, expr)
			}
		}
	}
	entries := make([]*memoEntry, len(exprs))
	workers := min(runtime.NumCPU(), len(exprs)/256+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var vs verdictScratch
			for i := w; i < len(exprs); i += workers {
				entries[i] = &memoEntry{verdict: vs.verdict(exprs[i], v, false)}
			}
		}()
	}
	wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, e := range exprs {
		m.m[memoKey{e, v, false}] = entries[i]
	}
}
