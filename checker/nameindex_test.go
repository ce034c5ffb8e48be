package checker

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
)

// TestNameIndexSuggestsAsTheScan: the "did you mean" names found through
// the index of bigrams are those a scan of the whole namespace finds, for
// names a few edits from a real one, short names and names of nothing.
func TestNameIndexSuggestsAsTheScan(t *testing.T) {
	src, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	names, err := src.AllNames(context.Background())
	if err != nil || len(names) < indexMinNames {
		t.Fatalf("%d names, %v", len(names), err)
	}
	rng := rand.New(rand.NewPCG(39, 1))
	mutate := func(s string) string {
		b := []byte(s)
		for range rng.IntN(6) {
			at := rng.IntN(len(b) + 1)
			switch rng.IntN(3) {
			case 0:
				b = slices.Insert(b, at, byte('a'+rng.IntN(26)))
			case 1:
				if at < len(b) {
					b = slices.Delete(b, at, at+1)
				}
			default:
				if at < len(b) {
					b[at] = byte('.' + rng.IntN(60))
				}
			}
		}
		return string(b)
	}
	indexed := newSuggester(func() []string { return names })
	indexed.scans = indexAfter // the next suggestion builds the index
	var unknown []string
	for range 1500 { // (under maxSuggestedNames)
		unknown = append(unknown, mutate(names[rng.IntN(len(names))]))
	}
	unknown = append(unknown, "", "a", "m1", "kernel", "no.such.metric.anywhere", "disk.dev.read_12345")
	found := 0
	for _, u := range unknown {
		scan := newSuggester(func() []string { return names })
		want := scan.suggest(u)
		got := indexed.suggest(u)
		if !slices.Equal(got, want) {
			t.Fatalf("%q: the index suggests %v, the scan %v", u, got, want)
		}
		if len(want) > 0 {
			found++
		}
	}
	if indexed.index == nil {
		t.Fatal("the suggester never built its index")
	}
	if found < len(unknown)/4 {
		t.Errorf("only %d of %d names had suggestions: the comparison tells little", found, len(unknown))
	}
}
