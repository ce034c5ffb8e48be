package lsp

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// TestPublishConcurrentDocuments: four goroutines publish, at once,
// lists that change at random (findings inserted, dropped, replaced,
// losing their related information, the list emptied and grown back) for
// documents of their own, some past lastPublications: every publication
// is byte for byte protocol.Marshal's (run with -race).
func TestPublishConcurrentDocuments(t *testing.T) {
	const docs = "https://example.org/docs"
	finding := func(n int, rel bool) grammar.Diagnostic {
		g := grammar.Diagnostic{Range: grammar.Range{Start: grammar.Pos{Line: int32(n % 13), Col: 1}, End: grammar.Pos{Line: int32(n % 13), Col: 5}},
			Severity: grammar.Severity(1 + n%3), Code: []string{"unknown-metric", "masked", "syntax"}[n%3], Message: fmt.Sprint("m", n%11)}
		if rel {
			g.Related = []grammar.Related{{Range: grammar.Range{Start: grammar.Pos{Line: int32(n % 5), Col: 1}}, Message: fmt.Sprint("r", n)}}
		}
		return g
	}
	var c diagnosticJSON
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			lists := map[uri.URI][]grammar.Diagnostic{}
			for round := range 5000 {
				u := uri.File(fmt.Sprintf("/tmp/w%d-%d.conf", w, rng.IntN(1+w%2*7)))
				list := slices.Clone(lists[u])
				for range rng.IntN(4) {
					at := rng.IntN(len(list) + 1)
					switch rng.IntN(6) {
					case 0, 1:
						list = slices.Insert(list, at, finding(rng.IntN(40), rng.IntN(5) == 0))
					case 2:
						if at < len(list) {
							list = slices.Delete(list, at, at+1)
						}
					case 3:
						if at < len(list) {
							list[at] = finding(rng.IntN(40), rng.IntN(5) == 0)
						}
					case 4:
						list = nil
					case 5:
						if at < len(list) {
							list[at].Related = nil
						}
					}
				}
				lists[u] = list
				var extra []protocol.Diagnostic
				if rng.IntN(4) == 0 {
					extra = []protocol.Diagnostic{{Message: protocol.String("fleet")}}
				}
				got, err := c.publishParams(nil, u, int32(round), list, extra, docs)
				if err != nil {
					t.Error(err)
					return
				}
				all := []protocol.Diagnostic{}
				for _, g := range list {
					all = append(all, toProtocolDiagnostic(u, g, docs))
				}
				all = append(all, extra...)
				want, _ := protocol.Marshal(&protocol.PublishDiagnosticsParams{URI: u, Version: protocol.NewOptional(int32(round)), Diagnostics: all})
				if string(got) != string(want) {
					t.Errorf("w%d round %d %s:\ngot  %s\nwant %s", w, round, u, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(c.last) > lastPublications {
		t.Errorf("%d kept", len(c.last))
	}
}
