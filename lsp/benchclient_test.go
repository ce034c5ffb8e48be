package lsp

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestUnreadPublicationsDoNotHoldTheSession is issue 39's wedge of make
// bench: BenchmarkNewFeatures1000Lines read the first of its session's
// publications and typed on (about 1,200 edits, each published), its
// client's recorder had room for 1,000, and the session's cleanup then
// waited for ever for the client handlers blocked on the full channel
// (go.lsp.dev/jsonrpc2's Close waits for every handler), the process
// idle. Here the recorder has room for two and the edits publish more:
// the client still closes at once.
func TestUnreadPublicationsDoNotHoldTheSession(t *testing.T) {
	const room = 2
	rec := newVersionRecorder(room)
	srv, ctx, conn := benchSessionWith(t, `{"source": {"metadata": "embedded"}, "debounce": 0, "preview": {"enabled": false}}`, rec)
	doc := protocol.TextDocumentIdentifier{URI: uri.File("/tmp/unread.conf")}
	srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: doc.URI, Version: 1, Text: "m.a = kernel.all.load\n"}})
	for v := int32(2); v <= 4*room; v++ {
		srv.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: doc, Version: v},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "m.a = kernel.all.load + " + strconv.Itoa(int(v)) + "\n"}},
		})
		// A hover answers from the analysis of version v: one
		// publication per version, none of them read.
		if _, err := srv.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: doc, Position: protocol.Position{Character: 8}}}); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); rec.published.Load() <= room; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d publications for %d versions: the recorder's room was never exceeded", rec.published.Load(), 4*room)
		}
	}
	// The server's publications are read from their head, as the
	// benchmarks' client expects, not decoded whole.
	if n := rec.decodedWhole.Load(); n != 0 {
		t.Errorf("%d of %d publications decoded whole: no version before the findings", n, rec.published.Load())
	}
	closed := make(chan error, 1)
	go func() { closed <- conn.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("closing the client: %v", err)
		}
	case <-time.After(10 * time.Second):
		// Unblock the handlers, for the session to end, and fail.
		for {
			select {
			case <-rec.versions:
			case <-closed:
				t.Fatalf("closing the client hung after %d publications with room for %d unread", rec.published.Load(), room)
			}
		}
	}
}

// TestOfferDroppingOldest: an offer never blocks; a full channel keeps
// the newest values, in order.
func TestOfferDroppingOldest(t *testing.T) {
	tests := []struct {
		room   int
		offers []int
		keep   []int
	}{
		{room: 3, offers: []int{1, 2}, keep: []int{1, 2}},
		{room: 3, offers: []int{1, 2, 3}, keep: []int{1, 2, 3}},
		{room: 2, offers: []int{1, 2, 3, 4, 5}, keep: []int{4, 5}},
		{room: 1, offers: []int{7, 8, 9}, keep: []int{9}},
	}
	for _, tt := range tests {
		ch := make(chan int, tt.room)
		dropped := 0
		for _, v := range tt.offers {
			dropped += offerDroppingOldest(ch, v)
		}
		close(ch)
		var got []int
		for v := range ch {
			got = append(got, v)
		}
		if !slices.Equal(got, tt.keep) || dropped != len(tt.offers)-len(tt.keep) {
			t.Errorf("room %d, offers %v: kept %v, dropped %d; want %v, %d", tt.room, tt.offers, got, dropped, tt.keep, len(tt.offers)-len(tt.keep))
		}
	}
}

// TestPublishedVersion: the benchmarks' client reads a publication's
// version from its head as the server writes it, and says when it cannot
// (the params are then decoded whole).
func TestPublishedVersion(t *testing.T) {
	for _, tc := range []struct {
		params string
		want   int32
		ok     bool
	}{
		{`{"uri":"file:///a.conf","version":42,"diagnostics":[{"message":"\"version\":7"}]}`, 42, true},
		{`{"uri":"file:///a.conf","version":0,"diagnostics":[]}`, 0, true},
		{`{"uri":"file:///a.conf","diagnostics":[],"version":3}`, 0, false},
		{`{"uri":"file:///a.conf","diagnostics":[]}`, 0, false},
		{`{"uri":"file:///a.conf","version":,"diagnostics":[]}`, 0, false},
		{`{"uri":"file:///a.conf","version":99999999999,"diagnostics":[]}`, 0, false},
	} {
		v, ok := publishedVersion([]byte(tc.params))
		if ok != tc.ok || (ok && v != tc.want) {
			t.Errorf("publishedVersion(%s) = %d, %v; want %d, %v", tc.params, v, ok, tc.want, tc.ok)
		}
	}
}
