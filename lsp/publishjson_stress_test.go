package lsp

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
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
				got, err := c.publishParams(nil, u, plainFile, int32(round), analysis.FindingsOf(list), extra, docs)
				if err != nil {
					t.Error(err)
					return
				}
				all := []protocol.Diagnostic{}
				for _, g := range list {
					all = append(all, toProtocolDiagnostic(u, plainFile, g, docs))
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

// TestPublishOneDocumentFromManyGoroutines: publishes of one document
// that overlap (the server makes them one at a time; the cache must not
// rely on it) each send the frame of their own list: a frame is never
// freed while it is written, nor handed to two publishes (run with
// -race).
func TestPublishOneDocumentFromManyGoroutines(t *testing.T) {
	const docs = "https://example.org/docs"
	u := uri.File("/tmp/one.conf")
	base := keystrokeFindings(200)
	var c diagnosticJSON
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 100 {
				list := slices.Clone(base)
				at := (g*37 + round*11) % len(list)
				list[at].Message = fmt.Sprintf("goroutine %d round %d", g, round)
				var frame []byte
				send := func(_ context.Context, f [][]byte) error { frame = bytes.Join(f, nil); return nil }
				if err := c.publish(context.Background(), send, u, plainFile, int32(round), analysis.FindingsOf(list), nil, docs); err != nil {
					errs <- err
					return
				}
				all := make([]protocol.Diagnostic, 0, len(list))
				for _, d := range list {
					all = append(all, toProtocolDiagnostic(u, plainFile, d, docs))
				}
				want, err := protocol.Marshal(&protocol.PublishDiagnosticsParams{URI: u, Version: protocol.NewOptional(int32(round)), Diagnostics: all})
				if err != nil {
					errs <- err
					return
				}
				_, body, _ := strings.Cut(string(frame), "\r\n\r\n")
				msg, err := jsonrpc2.DecodeMessage([]byte(body))
				if err != nil {
					errs <- fmt.Errorf("goroutine %d round %d: %w", g, round, err)
					return
				}
				if got := msg.(*jsonrpc2.Notification).Params(); string(got) != string(want) {
					errs <- fmt.Errorf("goroutine %d round %d: the frame sent is not its list's", g, round)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestSmallPublicationPinsNoLargeFrame: a document's publication keeps
// alive little more memory than its JSON, after a large document's
// publications (with large extra diagnostics) and after many edits of
// its own all over it, each of which leaves a run of new JSON in the
// rope: it is compacted, and stays a few runs.
func TestSmallPublicationPinsNoLargeFrame(t *testing.T) {
	const docs = "https://example.org/docs"
	var c diagnosticJSON
	send := func(context.Context, [][]byte) error { return nil }
	big := []protocol.Diagnostic{{Message: protocol.String(strings.Repeat("fleet ", 200_000)), Severity: protocol.DiagnosticSeverityInformation}}
	large, small := uri.File("/tmp/large.conf"), uri.File("/tmp/small.conf")
	for round := range 3 { // the large document's frames, replaced
		if err := c.publish(context.Background(), send, large, plainFile, int32(round), analysis.FindingsOf(keystrokeFindings(500)), big, docs); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.publish(context.Background(), send, small, plainFile, 1, analysis.FindingsOf(keystrokeFindings(1)), nil, docs); err != nil {
		t.Fatal(err)
	}
	p := c.last[small]
	if limit := 2*p.json.Len() + maxRopeSlack; p.json.held() > limit {
		t.Fatalf("a publication of %d bytes of JSON keeps %d bytes (at most %d)", p.json.Len(), p.json.held(), limit)
	}
	if js := p.json.appendTo(nil); !strings.Contains(string(js), "metric m0 is not defined") {
		t.Fatalf("the small publication's JSON is %.80q", js)
	}
	// Edits all over a document of 500 findings: one finding changed
	// each time, at a place that moves on.
	findings := keystrokeFindings(500)
	for round := range 200 {
		findings = slices.Clone(findings)
		at := round * 37 % len(findings)
		findings[at].Message = fmt.Sprintf("round %d: metric m%d is not defined before this line", round, at)
		if err := c.publish(context.Background(), send, large, plainFile, int32(round), analysis.FindingsOf(findings), nil, docs); err != nil {
			t.Fatal(err)
		}
		p := c.last[large]
		if limit := 2*p.json.Len() + maxRopeSlack; p.json.held() > limit || len(p.json.runs) > maxRopeRuns {
			t.Fatalf("round %d: a publication of %d bytes of JSON in %d runs keeps %d bytes (at most %d in %d runs)",
				round, p.json.Len(), len(p.json.runs), p.json.held(), limit, maxRopeRuns)
		}
	}
}
