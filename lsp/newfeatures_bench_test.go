package lsp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// benchNewFeatures measures each request of issue #39's features in the
// middle of a realistic document of n lines, after its analysis, through
// the wire as an editor asks: documentHighlight, selectionRange, call
// hierarchy (prepare, incoming and outgoing calls), documentLink,
// rangeFormatting of two lines, a document pull and a workspace pull
// (a closed config beside the document; the client has its last result).
// The goal (issue #39): at 100,000 lines at most twice the 1,000-line
// figure. Two answers grow with the document by nature: documentLink
// lists every function call (links), and a full pull every finding
// (pullfull), as the push does: these two take the answer as the JSON
// the server sent (the server's work to answer, and the bytes through the
// pipe, not the client's decoding of a megabyte into Go values, which is
// the client's own work and grows with the answer), and report as
// ns-floor the same requests to a stand-in that only sends that JSON
// (startReplyStandIn). index is what the first highlight or
// call hierarchy request after an edit costs for a document checked
// against no source (a checked one reads the analysis's own indexes).
func benchNewFeatures(b *testing.B, lines int) {
	srv, rec, ctx, conn := benchSessionConn(b, `{"source": {"metadata": "embedded"}, "debounce": 0, "preview": {"enabled": false}}`)
	dir := filepath.Join(b.TempDir(), "derived")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "zclosed.conf"), []byte("bench.closed = bench.base + 1\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	u := uri.File(filepath.Join(dir, "features.conf"))
	all := strings.SplitAfter(realisticConfig(lines), "\n")
	mid := lines / 2
	all[mid-1] = "bench.base = disk.dev.read + disk.dev.write\n"
	all[mid] = "bench.used = rate(bench.base) * 2\n"
	srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: strings.Join(all, "")}})
	rec.next(b, "the first diagnostics of the document")
	doc := protocol.TextDocumentIdentifier{URI: u}
	waitAnalysed(ctx, b, srv, doc) // the complete analysis
	at := protocol.TextDocumentPositionParams{TextDocument: doc, Position: protocol.Position{Line: uint32(mid), Character: len32("bench.used = rate(bench.")}}
	var wsPrevious []protocol.PreviousResultId

	// run measures op; then, untimed, each of after.
	run := func(name string, op func(b *testing.B), after ...func(b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			op(b)        // warm: the index of names, the workspace's analysis
			runtime.GC() // not the setup's garbage
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				op(b)
			}
			b.StopTimer()
			for _, f := range after {
				f(b)
			}
		})
	}
	run("highlight", func(b *testing.B) {
		hs, err := srv.DocumentHighlight(ctx, &protocol.DocumentHighlightParams{TextDocumentPositionParams: at})
		if err != nil || len(hs) != 2 {
			b.Fatalf("highlight: %v, %v", hs, err)
		}
	})
	run("selection", func(b *testing.B) {
		sels, err := srv.SelectionRange(ctx, &protocol.SelectionRangeParams{TextDocument: doc, Positions: []protocol.Position{at.Position}})
		if err != nil || len(sels) != 1 || sels[0].Parent == nil {
			b.Fatalf("selection: %v, %v", sels, err)
		}
	})
	run("callhierarchy", func(b *testing.B) {
		items, err := srv.PrepareCallHierarchy(ctx, &protocol.CallHierarchyPrepareParams{TextDocumentPositionParams: at})
		if err != nil || len(items) != 1 {
			b.Fatalf("prepare: %v, %v", items, err)
		}
		in, err := srv.IncomingCalls(ctx, &protocol.CallHierarchyIncomingCallsParams{Item: items[0]})
		if err != nil || len(in) != 2 { // bench.used, and bench.closed once the scan has it
			if len(in) != 1 {
				b.Fatalf("incoming: %v, %v", in, err)
			}
		}
		out, err := srv.OutgoingCalls(ctx, &protocol.CallHierarchyOutgoingCallsParams{Item: items[0]})
		if err != nil || len(out) != 2 {
			b.Fatalf("outgoing: %v, %v", out, err)
		}
	})
	// A reply that grows with the document is also measured from a
	// stand-in that only sends the same JSON (ns-floor): the floor under
	// the server's time that no server work lowers.
	runReply := func(name, method string, params any, check func(b *testing.B, reply json.RawMessage)) {
		var reply json.RawMessage
		run(name, func(b *testing.B) {
			if _, err := conn.Call(ctx, method, params, &reply); err != nil {
				b.Fatalf("%s: %v", name, err)
			}
			check(b, reply)
			b.ReportMetric(float64(len(reply))/1e3, "kB-reply")
		}, func(b *testing.B) {
			b.ReportMetric(float64(standInFloor(b, b.N, method, params, reply).Nanoseconds()), "ns-floor")
		})
	}
	runReply("links", protocol.MethodTextDocumentDocumentLink, &protocol.DocumentLinkParams{TextDocument: doc}, func(b *testing.B, links json.RawMessage) {
		if len(links) < lines/2 {
			b.Fatalf("links: %d bytes", len(links))
		}
	})
	run("rangeformat", func(b *testing.B) {
		rg := protocol.Range{Start: protocol.Position{Line: uint32(mid - 1)}, End: protocol.Position{Line: uint32(mid), Character: 5}}
		edits, err := srv.RangeFormatting(ctx, &protocol.DocumentRangeFormattingParams{TextDocument: doc, Range: rg})
		if err != nil || len(edits) != 0 {
			b.Fatalf("range formatting: %v, %v", edits, err)
		}
	})
	// An editor pulls after each change; between changes (another
	// document edited, a refresh) the answer is "unchanged", and the
	// full one is proportional to the findings, as a push is.
	var previous *string
	run("pull", func(b *testing.B) {
		rep, err := srv.Diagnostic(ctx, &protocol.DocumentDiagnosticParams{TextDocument: doc, PreviousResultID: previous})
		if err != nil {
			b.Fatal(err)
		}
		if full, ok := rep.(*protocol.RelatedFullDocumentDiagnosticReport); ok {
			previous = full.ResultID
		}
	})
	runReply("pullfull", protocol.MethodTextDocumentDiagnostic, &protocol.DocumentDiagnosticParams{TextDocument: doc}, func(b *testing.B, full json.RawMessage) {
		if !bytes.Contains(full, []byte(`"kind":"full"`)) {
			b.Fatalf("full pull: %.100s", full)
		}
	})
	run("wspull", func(b *testing.B) {
		rep, err := srv.DiagnosticWorkspace(ctx, &protocol.WorkspaceDiagnosticParams{PreviousResultIds: wsPrevious})
		if err != nil || len(rep.Items) == 0 {
			b.Fatalf("workspace pull: %v, %v", rep, err)
		}
		if full, ok := rep.Items[0].(*protocol.WorkspaceFullDocumentDiagnosticReport); ok {
			wsPrevious = []protocol.PreviousResultId{{URI: full.URI, Value: *full.ResultID}}
		}
	})
	// After each keystroke (a digit typed at the end of a comment line a
	// quarter down the file, then removed): highlight, call hierarchy and
	// a workspace pull read what the analysis of that keystroke keeps,
	// and nothing made per version from the whole file. The keystroke's
	// own analysis (BenchmarkKeystroke*) is in the figure too.
	version := int32(1)
	comment := uint32(lines / 4 / 50 * 50) // realisticConfig's "# section N" lines
	n := len32(strings.TrimSuffix(all[comment], "\n"))
	edit := func(b *testing.B, rg protocol.Range, text string) {
		version++
		srv.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: doc, Version: version},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{Range: rg, Text: text}},
		})
	}
	run("afteredit", func(b *testing.B) {
		end := protocol.Position{Line: comment, Character: n}
		edit(b, protocol.Range{Start: end, End: end}, "7")
		hs, err := srv.DocumentHighlight(ctx, &protocol.DocumentHighlightParams{TextDocumentPositionParams: at})
		if err != nil || len(hs) != 2 {
			b.Fatalf("highlight: %v, %v", hs, err)
		}
		if items, err := srv.PrepareCallHierarchy(ctx, &protocol.CallHierarchyPrepareParams{TextDocumentPositionParams: at}); err != nil || len(items) != 1 {
			b.Fatalf("prepare: %v, %v", items, err)
		}
		rep, err := srv.DiagnosticWorkspace(ctx, &protocol.WorkspaceDiagnosticParams{PreviousResultIds: wsPrevious})
		if err != nil || len(rep.Items) == 0 {
			b.Fatalf("workspace pull: %v, %v", rep, err)
		}
		edit(b, protocol.Range{Start: end, End: protocol.Position{Line: comment, Character: n + 1}}, "")
	})
	// A keystroke and then the links of its version, as an editor asks
	// for them after each change: the definitions the keystroke did not
	// touch keep their links' JSON (definitionLinks), the reply is made
	// of it (its bytes still grow with the document).
	var links json.RawMessage
	linksParams := &protocol.DocumentLinkParams{TextDocument: doc}
	run("linksafteredit", func(b *testing.B) {
		end := protocol.Position{Line: comment, Character: n}
		edit(b, protocol.Range{Start: end, End: end}, "7")
		if _, err := conn.Call(ctx, protocol.MethodTextDocumentDocumentLink, linksParams, &links); err != nil || len(links) < lines/2 {
			b.Fatalf("links: %d bytes, %v", len(links), err)
		}
		edit(b, protocol.Range{Start: end, End: protocol.Position{Line: comment, Character: n + 1}}, "")
	}, func(b *testing.B) {
		// The stand-in sends the reply alone: the floor under the links
		// of each version, not under the edits (editsonly).
		b.ReportMetric(float64(standInFloor(b, b.N, protocol.MethodTextDocumentDocumentLink, linksParams, links).Nanoseconds()), "ns-floor")
	})
	// afteredit's baseline: the same keystrokes, and a hover that waits
	// for their analysis. afteredit less this is what the features cost.
	run("editsonly", func(b *testing.B) {
		end := protocol.Position{Line: comment, Character: n}
		edit(b, protocol.Range{Start: end, End: end}, "7")
		if _, err := srv.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: at}); err != nil {
			b.Fatal(err)
		}
		edit(b, protocol.Range{Start: end, End: protocol.Position{Line: comment, Character: n + 1}}, "")
	})
	b.Run("index", func(b *testing.B) {
		f := grammar.ParseConfig(u.FsPath(), []byte(strings.Join(all, "")), grammar.Options{Version: pcpver.Latest})
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			indexFile(f).lookupByName()
		}
	})
}

func BenchmarkNewFeatures1000Lines(b *testing.B)   { benchNewFeatures(b, 1000) }
func BenchmarkNewFeatures100000Lines(b *testing.B) { benchNewFeatures(b, 100000) }
