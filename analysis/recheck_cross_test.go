package analysis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
)

// TestRecheckAcrossDefinitions: edits that change what other definitions
// are told — a metric used elsewhere renamed or removed, the name an
// unknown operand's "did you mean" is about defined or no longer, a
// missing PMDA's first use (the warning the others' hints point at)
// added before it, moved or removed, a derived metric that has another
// checked first — each analysed from the previous version's analysis,
// equal a from-scratch analysis of the same text; and the edits that
// leave the other definitions' results as they were are analysed
// incrementally.
func TestRecheckAcrossDefinitions(t *testing.T) {
	src, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := Config{Version: VersionChoice{Version: pcpver.Latest, Reason: "test"}, Source: pmclient.NewCache(src), MaxPerCode: DefaultMaxPerCode}
	filler := func(from, n int) string {
		var b strings.Builder
		for i := from; i < from+n; i++ {
			fmt.Fprintf(&b, "f.m%d = kernel.all.load + %d\n", i, i)
		}
		return b.String()
	}
	type step struct {
		name string
		text string
		// incremental: the other definitions' results are kept (Recheck
		// did not check the whole file again).
		incremental bool
	}
	for _, tc := range []struct {
		name  string
		base  string
		steps []step
	}{{
		name: "rename and remove a metric used elsewhere",
		base: "a = kernel.all.load\n" + filler(0, 20) + "b = a + 1\nc = b * 2\n",
		steps: []step{
			{"rename a", "a2 = kernel.all.load\n" + filler(0, 20) + "b = a + 1\nc = b * 2\n", true},
			{"rename it back", "a = kernel.all.load\n" + filler(0, 20) + "b = a + 1\nc = b * 2\n", true},
			{"remove b", "a = kernel.all.load\n" + filler(0, 20) + "c = b * 2\n", true},
			{"b back, using an unknown name", "a = kernel.all.load\n" + filler(0, 20) + "b = kernel.all.lod + 1\nc = b * 2\n", true},
		},
	}, {
		name: "the name a did-you-mean is about appears and goes",
		base: filler(0, 10) + "x = kernel.all.lod + 1\n" + filler(10, 10) + "y = kernel.all.lod * 2\n",
		steps: []step{
			{"define it", "kernel.all.lod = kernel.all.load\n" + filler(0, 10) + "x = kernel.all.lod + 1\n" + filler(10, 10) + "y = kernel.all.lod * 2\n", true},
			{"misspell the definition", "kernel.all.lodd = kernel.all.load\n" + filler(0, 10) + "x = kernel.all.lod + 1\n" + filler(10, 10) + "y = kernel.all.lod * 2\n", true},
			{"the definition names what it suggests", "kernel.all.lodd = kernel.all.loa\n" + filler(0, 10) + "x = kernel.all.lod + 1\n" + filler(10, 10) + "y = kernel.all.lod * 2\n", true},
			{"a second misspelling, the same suggestion", "kernel.all.lodd = kernel.all.loa\n" + filler(0, 10) + "x = kernel.all.lod + 1\n" + filler(10, 10) + "y = kernel.all.lox * 2\n", true},
		},
	}, {
		name: "a missing PMDA's warning and its hints",
		base: filler(0, 5) + "r1 = redis.a + 1\n" + filler(5, 5) + "r2 = redis.b + 1\n" + filler(10, 5) + "r3 = rate(redis.c)\n",
		steps: []step{
			{"edit a hint", filler(0, 5) + "r1 = redis.a + 1\n" + filler(5, 5) + "r2 = redis.bb + 1\n" + filler(10, 5) + "r3 = rate(redis.c)\n", true},
			{"a use after the warning", filler(0, 5) + "r1 = redis.a + 1\n" + filler(5, 5) + "r2 = redis.bb + 1\n" + filler(10, 4) + "f.m14 = redis.d\n" + "r3 = rate(redis.c)\n", true},
			{"a use before the warning", "f.m0 = redis.e\n" + filler(1, 4) + "r1 = redis.a + 1\n" + filler(5, 5) + "r2 = redis.bb + 1\n" + filler(10, 4) + "f.m14 = redis.d\n" + "r3 = rate(redis.c)\n", false},
			{"the warning's use gone", filler(0, 5) + "r1 = redis.a + 1\n" + filler(5, 5) + "r2 = redis.bb + 1\n" + filler(10, 4) + "f.m14 = redis.d\n" + "r3 = rate(redis.c)\n", false},
			{"the first use gone", filler(0, 5) + "r1 = kernel.all.load\n" + filler(5, 5) + "r2 = redis.bb + 1\n" + filler(10, 4) + "f.m14 = redis.d\n" + "r3 = rate(redis.c)\n", false},
			{"a second PMDA", filler(0, 5) + "r1 = kernel.all.load\n" + filler(5, 5) + "r2 = redis.bb + 1\n" + filler(10, 4) + "f.m14 = mysql.q\n" + "r3 = rate(redis.c)\n", true},
		},
	}, {
		name: "a derived metric checked first by an earlier one",
		base: "early = f.m3 + 1\n" + filler(0, 10) + "late = redis.a\n" + filler(10, 10) + "last = redis.b\n",
		steps: []step{
			{"the earlier one uses the late one", "early = late + 1\n" + filler(0, 10) + "late = redis.a\n" + filler(10, 10) + "last = redis.b\n", false},
			{"and a later one", "early = late + 1\n" + filler(0, 10) + "late = redis.a\n" + filler(10, 10) + "last = redis.b + late\n", true},
			{"the earlier one gone", filler(0, 10) + "late = redis.a\n" + filler(10, 10) + "last = redis.b + late\n", false},
			{"the earlier one back, using the last", "early = last\n" + filler(0, 10) + "late = redis.a\n" + filler(10, 10) + "last = redis.b + late\n", false},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Memo: grammar.NewMemo(), Incremental: true}
			parsed := Parse([]Input{Buffer("t.conf", []byte(tc.base))}, cfg, opts)
			checked := Check(ctx, parsed)
			checked.Prepare()
			for _, st := range tc.steps {
				parsed, _ = Reparse(parsed, "t.conf", grammar.NewText([]byte(st.text)), cfg, opts)
				next := Recheck(ctx, checked, parsed)
				want := Run(ctx, []Input{Buffer("t.conf", []byte(st.text))}, cfg, Options{Incremental: true})
				if g, w := view(next), view(want); !reflect.DeepEqual(g, w) {
					t.Fatalf("%s: the analysis from the previous one differs from a fresh one\ntext:\n%s\n%s", st.name, st.text, viewDiff(g, w))
				}
				// Recheck leaves the index of uses unbuilt when it checks
				// the whole file (Check); it carries it on otherwise.
				if got := next.refs.load() != nil; got != st.incremental {
					t.Errorf("%s: analysed incrementally %v, want %v", st.name, got, st.incremental)
				}
				if next.refs.load() == nil {
					next.Prepare()
				}
				checked = next
			}
		})
	}
}

// TestRecheckMissingPMDAsEqualsRun: random edits of a config whose
// derived metrics use each other and metrics of PMDAs the metadata
// lacks, each analysed from the previous analysis, equal a fresh run.
func TestRecheckMissingPMDAsEqualsRun(t *testing.T) {
	src, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cache := pmclient.NewCache(src)
	operands := []string{"redis.a", "redis.b", "mysql.q", "kernel.all.load", "kernel.all.lod", "disk.dev.read", "m1", "m2", "m3"}
	line := func(rng *rand.Rand, i int) string {
		return fmt.Sprintf("m%d = %s + %s\n", i, operands[rng.IntN(len(operands))], operands[rng.IntN(len(operands))])
	}
	incremental, steps := 0, 0
	for seed := uint64(1); seed <= 6; seed++ {
		// Before 6.2.2 a derived metric may use another (and a cycle
		// crashes libpcp); from it, that is a semantic error.
		v := []pcpver.Version{pcpver.V6_0_3, pcpver.Latest}[seed%2]
		cfg := Config{Version: VersionChoice{Version: v, Reason: "test"}, Source: cache, MaxPerCode: DefaultMaxPerCode}
		rng := rand.New(rand.NewPCG(seed, 39))
		var lines []string
		for i := range 30 {
			lines = append(lines, line(rng, i))
		}
		opts := Options{Memo: grammar.NewMemo(), Incremental: true}
		text := strings.Join(lines, "")
		parsed := Parse([]Input{Buffer("t.conf", []byte(text))}, cfg, opts)
		checked := Check(ctx, parsed)
		checked.Prepare()
		for step := 0; step < 60; step++ {
			// One definition's expression replaced: a use added, moved
			// or gone.
			i := rng.IntN(len(lines))
			lines[i] = line(rng, i)
			text = strings.Join(lines, "")
			parsed, _ = Reparse(parsed, "t.conf", grammar.NewText([]byte(text)), cfg, opts)
			next := Recheck(ctx, checked, parsed)
			want := Run(ctx, []Input{Buffer("t.conf", []byte(text))}, cfg, Options{Incremental: true})
			if g, w := view(next), view(want); !reflect.DeepEqual(g, w) {
				t.Fatalf("seed %d step %d: the analysis from the previous one differs from a fresh one\ntext:\n%s\n%s", seed, step, text, viewDiff(g, w))
			}
			steps++
			if next.refs.load() != nil {
				incremental++
			} else {
				next.Prepare()
			}
			checked = next
		}
	}
	t.Logf("%d of %d edits analysed incrementally", incremental, steps)
	if incremental < steps/4 {
		t.Errorf("only %d of %d edits analysed incrementally", incremental, steps)
	}
}
