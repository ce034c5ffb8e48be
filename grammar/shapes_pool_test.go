package grammar

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestTreeWithPooledTokens: trees built concurrently through one Shapes
// (buildTrees' way, token buffers from its pool) equal trees built alone.
func TestTreeWithPooledTokens(t *testing.T) {
	var b strings.Builder
	exprs := []string{
		"a.b + %d", "count(x.y[\"i %d\"])", "(a.c * %d) / (b.d - 2) ? rate(e.f) : novalue()",
		"mkconst(%d, type=u32, semantics=counter) + z.z", "defined(q.r) ? q.r + %d : 0", "-a.b + !c.d * %d",
		"instant(sample.long.ten) + %d", "rescale(x.y, \"Kbyte\") * %d + delta(y.z) - anon(u64)",
	}
	n := 4000
	for i := range n {
		fmt.Fprintf(&b, "m%d = "+exprs[i%len(exprs)]+"\n", i, i)
	}
	f := ParseConfig("c.conf", []byte(b.String()), Options{Version: pcpver.Latest})
	alone := ParseConfig("c.conf", []byte(b.String()), Options{Version: pcpver.Latest})
	defs, ref := f.Definitions.Slice(0, f.Definitions.Len()), alone.Definitions.Slice(0, alone.Definitions.Len())
	shapes := NewShapes()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(defs); i += 4 {
				defs[i].TreeWith(shapes)
			}
		}()
	}
	wg.Wait()
	for i, d := range defs {
		got, gerr := d.TreeWith(nil)
		want, werr := ref[i].buildTree(nil)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: pooled %s (%v), alone %s (%v)", d.Expr, Format(got), gerr, Format(want), werr)
		}
	}
}
