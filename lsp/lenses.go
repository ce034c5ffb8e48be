package lsp

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// maxCodeLenses is how many definitions of a document get a code lens.
// A client asks for a whole document's lenses after every edit, and the
// protocol gives it no way to ask for a part: past this many
// definitions, the lenses are those of the maxCodeLenses definitions
// around where the user is (lensFocus), so that a request costs about
// what it costs at 1,000 lines: most of a lens's cost is encoding and
// decoding its JSON, and a lens on each definition of a 100,000-line
// config is hundreds of milliseconds (docs/limits.md).
const maxCodeLenses = 1000

// maxScreenLines is the tallest inlay hint range taken for a screen:
// VS Code asks for three screens and 60 lines, 250 lines and more on a
// tall one; a client that asks for a whole document's hints at once
// (Neovim does) says nothing of where the user is, and a document of
// more than maxCodeLenses definitions is longer than this.
const maxScreenLines = maxCodeLenses / 2

// refreshTimeout bounds the wait for a client's answer to
// workspace/codeLens/refresh and workspace/inlayHint/refresh.
const refreshTimeout = 5 * time.Second

// lensFocus keeps, per open document, where the user is and which
// definitions got code lenses last. Where the user is comes from what
// the client asks about: the middle of a screen-sized inlay hint range,
// the position of a hover, completion, signature help or code action,
// the start of an edit. It matters only to documents of more than
// maxCodeLenses definitions.
type lensFocus struct {
	mu   sync.Mutex
	docs map[uri.URI]*docFocus
}

type docFocus struct {
	line    uint32 // where the user is, 0-based
	located bool   // line is known
	// sent: the client has lenses for the definitions from index first,
	// and has not been asked to refresh them since.
	sent  bool
	first int
}

func newLensFocus() *lensFocus { return &lensFocus{docs: map[uri.URI]*docFocus{}} }

// open starts u afresh: nothing known of where the user is.
func (f *lensFocus) open(u uri.URI) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.docs[u] = &docFocus{}
}

// move records that the user is at line of u, an open document (a
// request answered after u closed moves nothing).
func (f *lensFocus) move(u uri.URI, line uint32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d := f.docs[u]; d != nil {
		d.line, d.located = line, true
	}
}

// lens picks the window of a's lenses where the user is and records it
// as sent, all at once: a move that comes between would otherwise be
// lost, its refresh pending for a window it never got.
func (f *lensFocus) lens(a *snapshot) (first, end int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.docs[a.uri]
	if d == nil {
		return lensWindowAt(a, 0, false)
	}
	first, end = lensWindowAt(a, d.line, d.located)
	d.sent, d.first = end-first < a.file.Definitions.Len(), first
	return first, end
}

// refreshFailed undoes stale for a refresh the client did not answer:
// the window it has is still the one sent, and a later move may ask
// again.
func (f *lensFocus) refreshFailed(u uri.URI, first int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d := f.docs[u]; d != nil && !d.sent {
		d.sent, d.first = true, first
	}
}

// stale reports, once until lenses are sent again, whether the window
// from index first (where the user is now) has moved from the one sent
// by more than a quarter of its size; sent is where that one starts.
func (f *lensFocus) stale(u uri.URI, first int) (sent int, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.docs[u]
	if d == nil || !d.sent || abs(first-d.first) <= maxCodeLenses/4 {
		return 0, false
	}
	d.sent = false
	return d.first, true
}

// forget drops a closed document.
func (f *lensFocus) forget(u uri.URI) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.docs, u)
}

func abs(x int) int { return max(x, -x) }

// lensWindowAt is the range of definition indexes [first, end) of a
// snapshot that get a lens when the user is at line (0-based), or at its
// top when located is false (an editor opens a file there): every
// definition, or the maxCodeLenses centred on the one at line.
func lensWindowAt(a *snapshot, line uint32, located bool) (first, end int) {
	defs := a.file.Definitions
	n := defs.Len()
	if n <= maxCodeLenses {
		return 0, n
	}
	center := 0
	if located {
		center = defs.Search(func(d *grammar.Definition) bool { return toPosition(a.file, d.Range.End).Line >= line })
	}
	first = min(max(center-maxCodeLenses/2, 0), n-maxCodeLenses)
	return first, first + maxCodeLenses
}

// noteFocus records that the user is at line of a document, and asks a
// client that can to refresh its code lenses when that moves their
// window (past maxCodeLenses definitions) far from the one it has.
func (s *server) noteFocus(a *snapshot, line uint32) {
	s.lenses.move(a.uri, line)
	if a.file.Definitions.Len() <= maxCodeLenses || !s.session.clientCaps().codeLensRefresh {
		return
	}
	first, _ := lensWindowAt(a, line, true)
	if sent, ok := s.lenses.stale(a.uri, first); ok {
		go func() {
			if err := s.refreshLenses(s.bg); err != nil {
				s.log.Debug("codeLens/refresh", zap.Error(err))
				s.lenses.refreshFailed(a.uri, sent)
			}
		}()
	}
}

// refreshLenses asks the client to ask for code lenses again, waiting
// refreshTimeout at most for its answer.
func (s *server) refreshLenses(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	return s.client.CodeLensRefresh(ctx)
}

// CodeLens offers "preview values" above every valid definition, or
// above those of the maxCodeLenses definitions around where the user is
// in a bigger document.
func (s *server) CodeLens(ctx context.Context, params *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	snap := s.current(ctx, params.TextDocument.URI)
	if snap == nil || snap.report == nil {
		return nil, nil
	}
	first, end := s.lenses.lens(snap)
	return codeLenses(snap, s.previews.get(snap.uri, snap.version), first, end), nil
}

// codeLenses offer a preview above each valid definition of the
// definitions [first, end), titled with its latest values when there are
// some.
func codeLenses(a *snapshot, values map[string]shownValues, first, end int) []protocol.CodeLens {
	var out []protocol.CodeLens
	quotedURI, _ := json.Marshal(string(a.uri))
	for i := first; i < end; i++ {
		def := a.file.Definitions.At(i)
		m, ok := a.report.ByName.Lookup(def.Name)
		if !ok || m.Def != def || m.Status != checker.Valid {
			continue
		}
		title := "preview values"
		if v, ok := values[def.Name]; ok {
			title = "= " + v.short
		}
		at := toRange(a.file, def.NameRange)
		out = append(out, protocol.CodeLens{Range: at,
			Command: protocol.Command{Title: title, Command: cmdPreview, Arguments: []protocol.LSPAny{previewArgument(quotedURI, at.Start)}}})
	}
	return out
}

// previewArgument is the preview command's argument for a position in
// the document whose URI is quotedURI (a JSON string): the JSON of
// previewParams, written directly (json.Marshal of each lens's argument
// was most of a code lens request's time).
func previewArgument(quotedURI []byte, p protocol.Position) protocol.LSPAny {
	b := make([]byte, 0, len(quotedURI)+64)
	b = append(b, `{"textDocument":{"uri":`...)
	b = append(b, quotedURI...)
	b = append(b, `},"position":{"line":`...)
	b = strconv.AppendUint(b, uint64(p.Line), 10)
	b = append(b, `,"character":`...)
	b = strconv.AppendUint(b, uint64(p.Character), 10)
	return append(b, `}}`...)
}
