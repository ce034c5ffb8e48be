package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// Pull diagnostics (LSP 3.17): a client that declares
// textDocument.diagnostic asks for each document's findings
// (textDocument/diagnostic) and for the workspace's configs that are not
// open (workspace/diagnostic), and gets none pushed: an editor showing
// both would list every finding twice. Both answers come from the same
// analysis as the push (package analysis): an open document's is its
// snapshot's, a closed config's is its directory's analysed as one
// config path, as libpcp loads a directory and `check DIR` reads it, with
// the open documents' unsaved text in place of their files; so a rename
// in an open document that leaves a closed one using the old name shows
// in the closed one at the next pull.
//
// Findings can change without an edit (the preview's empty-now, a fleet
// host answering, new settings); the client is then asked to pull again
// (workspace/diagnostic/refresh), unless it already pulled what changed.

// pullState tracks, for each open document, the findings last made for
// it and those last answered to a pull, to tell when the client must be
// asked to pull again.
type pullState struct {
	mu      sync.Mutex
	docs    map[uri.URI]*pulledDoc
	next    uint64      // the last result id given
	refresh *time.Timer // a pending refresh check, nil for none
}

// pulledDoc is one document's result ids: a new one for every change of
// its snapshot or of the findings added to it.
type pulledDoc struct {
	snap     *snapshot
	extra    uint64 // a hash of the added findings (fleet, empty-now)
	id       uint64 // the findings as they are now
	answered uint64 // the findings the client last pulled
}

func newPullState() *pullState { return &pullState{docs: map[uri.URI]*pulledDoc{}} }

// resultID is the result id of snap's findings plus extra, a new one when
// either changed since the last call for the document.
func (p *pullState) resultID(snap *snapshot, extra []protocol.Diagnostic) uint64 {
	h := hashDiagnostics(extra)
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.docs[snap.uri]
	if d == nil {
		d = &pulledDoc{}
		p.docs[snap.uri] = d
	}
	if d.snap != nil && snap.seq < d.snap.seq {
		// A pull answered from an older version than the one published
		// since: its id is not the document's, so the client is still
		// stale for it (and asked to pull again).
		p.next++
		return p.next
	}
	if d.snap != snap || d.extra != h || d.id == 0 {
		p.next++
		d.snap, d.extra, d.id = snap, h, p.next
	}
	return d.id
}

// answered records the result a pull answered for a document.
func (p *pullState) answered(u uri.URI, id uint64) {
	p.mu.Lock()
	if d := p.docs[u]; d != nil && id > d.answered {
		d.answered = id
	}
	p.mu.Unlock()
}

// forget drops a closed document.
func (p *pullState) forget(u uri.URI) {
	p.mu.Lock()
	delete(p.docs, u)
	p.mu.Unlock()
}

// stale says whether any document's findings changed since its last pull.
func (p *pullState) stale() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range p.docs {
		if d.id != d.answered {
			return true
		}
	}
	return false
}

// refreshDelay is how long the findings of an analysis may wait for the
// client's own pull (it pulls after each edit) before it is asked to.
const refreshDelay = 300 * time.Millisecond

// published takes the place of a push for a pulling client: the
// findings are recorded, and if the client has not pulled them within
// refreshDelay, it is asked to (when it can be).
func (s *server) published(snap *snapshot, extra []protocol.Diagnostic) {
	p := s.pulls
	id := p.resultID(snap, extra)
	if !s.session.clientCaps().diagnosticRefresh {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if d := p.docs[snap.uri]; d.answered == id || p.refresh != nil {
		return
	}
	p.refresh = time.AfterFunc(refreshDelay, func() {
		p.mu.Lock()
		p.refresh = nil
		p.mu.Unlock()
		if !p.stale() {
			return
		}
		ctx, cancel := context.WithTimeout(s.bg, refreshTimeout)
		defer cancel()
		if err := s.client.DiagnosticRefresh(ctx); err != nil {
			s.log.Debug("workspace/diagnostic/refresh", zap.Error(err))
		}
	})
}

// hashDiagnostics fingerprints a short list of diagnostics.
func hashDiagnostics(list []protocol.Diagnostic) uint64 {
	if len(list) == 0 {
		return 0
	}
	h := fnv.New64a()
	json.NewEncoder(h).Encode(list)
	return h.Sum64() | 1
}

// pullsDiagnostics says whether the client pulls diagnostics rather than
// taking them pushed.
func (s *server) pullsDiagnostics() bool { return s.session.clientCaps().pullDiagnostics }

// Diagnostic answers a pull of one document's findings, for a caller in
// the process: the connection answers textDocument/diagnostic with
// diagnosticReply's JSON (encodedReplies), which this decodes.
func (s *server) Diagnostic(ctx context.Context, params *protocol.DocumentDiagnosticParams) (protocol.DocumentDiagnosticReport, error) {
	raw, err := s.diagnosticReply(ctx, params)
	if err != nil {
		return nil, err
	}
	var kind struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &kind); err != nil {
		return nil, fmt.Errorf("decoding a diagnostic report: %w", err)
	}
	if kind.Kind == "unchanged" {
		var rep protocol.RelatedUnchangedDocumentDiagnosticReport
		return &rep, protocol.Unmarshal(raw, &rep)
	}
	var rep protocol.RelatedFullDocumentDiagnosticReport
	return &rep, protocol.Unmarshal(raw, &rep)
}

// diagnosticReply is the JSON of the answer to a pull of one document's
// findings: the analysis of its latest text, with what the preview and
// the fleet add, as a push would send them; "unchanged" when the client
// has them already. An open document's findings are encoded once per
// version (snapshot.findingsJSON), so a pull of a version pulled before
// copies their JSON, and a pull after an edit encodes only the findings
// that changed.
func (s *server) diagnosticReply(ctx context.Context, params *protocol.DocumentDiagnosticParams) (jsonrpc2.RawMessage, error) {
	u := params.TextDocument.URI
	snap := s.current(ctx, u)
	if snap == nil {
		// Not open: the workspace's analysis of its directory.
		items := s.closedFindings(ctx, u)
		return protocol.Marshal(&protocol.RelatedFullDocumentDiagnosticReport{FullDocumentDiagnosticReport: protocol.FullDocumentDiagnosticReport{Kind: "full", Items: items}})
	}
	extra := slices.Concat(s.fleetDiagnostics(snap), s.emptyNowDiagnostics(snap))
	id := s.pulls.resultID(snap, extra)
	s.pulls.answered(u, id)
	rid := strconv.FormatUint(id, 10)
	var related map[uri.URI]protocol.FullDocumentDiagnosticReportOrUnchangedDocumentDiagnosticReport
	if s.session.clientCaps().relatedDocuments && u.Scheme() == "file" {
		// The closed configs beside it, which an edit of it may break:
		// shown at once by a client that takes them (Neovim).
		related = s.relatedFindings(ctx, u)
	}
	if previous := params.PreviousResultID; previous != nil && *previous == rid {
		return protocol.Marshal(&protocol.RelatedUnchangedDocumentDiagnosticReport{
			UnchangedDocumentDiagnosticReport: protocol.UnchangedDocumentDiagnosticReport{Kind: "unchanged", ResultID: rid},
			RelatedDocuments:                  related,
		})
	}
	items, err := snap.findingsJSON(&s.pullJSON, s.opts.DocsURL)
	if err != nil {
		return nil, err
	}
	return fullReportJSON(rid, items, extra, related)
}

// relatedFindings are the findings of the closed configs in the
// directory of open document u, from the directory's analysis
// (wsdiag.go); nil for none.
func (s *server) relatedFindings(ctx context.Context, u uri.URI) map[uri.URI]protocol.FullDocumentDiagnosticReportOrUnchangedDocumentDiagnosticReport {
	ctx, cancel := detach(ctx)
	defer cancel()
	da := s.analyseDir(ctx, filepath.Dir(u.FsPath()), s.openDocs())
	if da == nil || len(da.order) == 0 {
		return nil
	}
	out := make(map[uri.URI]protocol.FullDocumentDiagnosticReportOrUnchangedDocumentDiagnosticReport, len(da.order))
	rid := "w" + strconv.FormatUint(da.id, 10)
	for _, c := range da.order {
		out[c] = &protocol.FullDocumentDiagnosticReport{Kind: "full", ResultID: &rid, Items: da.findings[c]}
	}
	return out
}
