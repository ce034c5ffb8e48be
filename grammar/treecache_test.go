package grammar

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestTreeCacheShares: definitions of one short text get one tree, the
// same as each would build (also when asked from several goroutines at
// once, under -race); a long text is built for each definition.
func TestTreeCacheShares(t *testing.T) {
	long := "sample.long.one + " + strings.Repeat("sample.long.ten * ", 5) + "hinv.ncpu"
	var sb strings.Builder
	for i := range 400 {
		expr := []string{"sample.long.one", "rate(hinv.ncpu) * 2", long}[i%3]
		fmt.Fprintf(&sb, "m%d = %s\n", i, expr)
	}
	f := ParseConfig("a.conf", []byte(sb.String()), Options{Version: pcpver.V6_0_3})
	c := NewTreeCache()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < f.Definitions.Len(); i += 4 {
				if _, err := c.Tree(f.Definitions.At(i)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	// The tree the cache kept for each short text: whichever racing
	// goroutine finished building first, not necessarily m0's or m1's.
	cached := map[string]Node{}
	for k, r := range c.m {
		cached[k.expr] = r.tree
	}
	first := map[string]Node{}
	for _, d := range f.Definitions.All() {
		tree, err := d.Tree()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ParseExpr(d.Expr, pcpver.V6_0_3)
		if !reflect.DeepEqual(tree, want) {
			t.Fatalf("%s: the cached tree differs from the one built", d.Name)
		}
		prev, seen := first[d.Expr]
		switch {
		case !seen:
			first[d.Expr] = tree
		case len(d.Expr) <= treeCacheMaxExpr && tree != cached[d.Expr]:
			// Each of the 4 goroutines may build its own tree for its
			// first definition of a text, before one is kept; every
			// later definition shares the kept one.
			if d.Line > 4*3 {
				t.Errorf("%s: a short text's tree is not shared", d.Name)
			}
		case len(d.Expr) > treeCacheMaxExpr && prev == tree:
			t.Errorf("%s: a long text's tree is shared", d.Name)
		}
	}
	if n := len(c.m); n != 2 {
		t.Errorf("the cache holds %d trees, want the 2 short texts'", n)
	}
}
