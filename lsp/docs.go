package lsp

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"time"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// docState is one open document: its latest text, and the latest
// analysis, which may be of an older version while a new one is pending.
//
// Edits only record the text and schedule an analysis (debounced), so a
// burst of keystrokes costs one analysis and a slow metadata source never
// holds up the messages that follow.
type docState struct {
	version int32
	text    string
	a       *analysis
	syntax  *analysis     // the parse of the latest text, before its check
	gen     int           // bumped by every edit; an analysis of an older gen is dropped
	timer   *time.Timer   // the pending debounced analysis
	done    chan struct{} // closed when the analysis of gen is stored
	closed  bool          // done is closed
	memo    *grammar.Memo // parses of the lines, reused across versions
}

// analysis is what the grammar and the checker made of one version.
type analysis struct {
	uri     uri.URI
	version int32
	text    string
	file    *grammar.File
	report  *checker.Report // nil when no source answered
	// checked are the checker's findings (the report's own slice); the
	// syntax findings are file.Diagnostics. Neither is copied: with a
	// finding per line, copies cost several times a large document.
	checked []grammar.Diagnostic
	pcp     pcpver.Version // the release the analysis followed
}

// diagnostics are the analysis' findings: syntax, then checks.
func (a *analysis) diagnostics() iter.Seq[grammar.Diagnostic] {
	return func(yield func(grammar.Diagnostic) bool) {
		for _, list := range [][]grammar.Diagnostic{a.file.Diagnostics, a.checked} {
			for _, d := range list {
				if !yield(d) {
					return
				}
			}
		}
	}
}

func (s *server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	td := params.TextDocument
	s.mu.Lock()
	s.docs[td.URI] = &docState{version: td.Version, text: td.Text, done: make(chan struct{}), memo: grammar.NewMemo()}
	s.mu.Unlock()
	s.schedule(td.URI, 0)
	return nil
}

func (s *server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	u := params.TextDocument.URI
	s.mu.Lock()
	d := s.docs[u]
	if d == nil {
		s.mu.Unlock()
		return fmt.Errorf("didChange for %s, which is not open", u)
	}
	text := d.text
	for _, ch := range params.ContentChanges {
		switch c := ch.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			text = c.Text
		case *protocol.TextDocumentContentChangePartial:
			start := offsetIn(text, c.Range.Start)
			end := max(offsetIn(text, c.Range.End), start)
			text = text[:start] + c.Text + text[end:]
		}
	}
	d.text, d.version = text, params.TextDocument.Version
	delay := s.settings.debounce()
	s.mu.Unlock()
	s.schedule(u, delay)
	return nil
}

func (s *server) DidSave(ctx context.Context, params *protocol.DidSaveTextDocumentParams) error {
	s.schedule(params.TextDocument.URI, 0)
	return nil
}

func (s *server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	u := params.TextDocument.URI
	s.mu.Lock()
	if d := s.docs[u]; d != nil {
		if d.timer != nil {
			d.timer.Stop()
		}
		d.gen++ // drops an analysis in flight
		if !d.closed {
			close(d.done)
			d.closed = true
		}
	}
	delete(s.docs, u)
	s.mu.Unlock()
	return s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}})
}

// schedule (re)starts the analysis of a document after delay.
func (s *server) schedule(u uri.URI, delay time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[u]
	if d == nil {
		return
	}
	d.gen++
	if !d.closed {
		close(d.done) // wake waiters: they wait again for the new gen
	}
	d.done, d.closed = make(chan struct{}), false
	if d.timer != nil {
		d.timer.Stop()
	}
	gen := d.gen
	d.timer = time.AfterFunc(delay, func() { s.analyse(u, gen) })
}

// analyse checks the text of generation gen and publishes its diagnostics,
// unless an edit made it obsolete meanwhile.
func (s *server) analyse(u uri.URI, gen int) {
	defer s.survive("analysis of " + string(u))
	s.mu.Lock()
	d := s.docs[u]
	if d == nil || d.gen != gen {
		s.mu.Unlock()
		return
	}
	text, version, memo := d.text, d.version, d.memo
	pcp, src, indoms, down := s.pcp.Version, s.source, s.indoms, s.sourceDown
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(s.bg, 30*time.Second)
	defer cancel()
	a := &analysis{uri: u, version: version, text: text, pcp: pcp}
	a.file = grammar.ParseConfig(fileName(u), []byte(text), grammar.Options{Version: pcp, Memo: memo})
	memo.Trim()
	syntax := *a
	s.mu.Lock()
	if d := s.docs[u]; d != nil && d.gen == gen {
		d.syntax = &syntax // enough for symbols, folding, tokens, formatting
		s.workspace.update(u, a.file)
	}
	s.mu.Unlock()
	if src != nil && !down {
		// A slow source must not hide syntax errors: publish them alone
		// if the check takes a while.
		slow := time.AfterFunc(500*time.Millisecond, func() { s.publish(u, gen, &syntax) })
		defer slow.Stop()
		rep, err := checker.Check(ctx, []*grammar.File{a.file}, src, checker.Options{Version: pcp, InDoms: indoms})
		switch {
		case err == nil:
			a.report = rep
			a.checked = rep.Diagnostics[a.file]
		case unreachable(err):
			s.sourceFailed(err)
		default:
			s.log.Warn("semantic checks failed; syntax only", zap.Error(err))
		}
	}
	s.mu.Lock()
	if d := s.docs[u]; d == nil || d.gen != gen {
		s.mu.Unlock()
		return // edited or closed meanwhile: a newer analysis will publish
	}
	d.a = a
	if !d.closed {
		close(d.done)
		d.closed = true
	}
	s.mu.Unlock()

	s.publish(u, gen, a)
}

// publish sends an analysis' diagnostics unless the document moved on.
func (s *server) publish(u uri.URI, gen int, a *analysis) {
	s.mu.Lock()
	d := s.docs[u]
	current := d != nil && d.gen == gen
	s.mu.Unlock()
	if !current {
		return
	}
	diags := make([]protocol.Diagnostic, 0, len(a.file.Diagnostics)+len(a.checked))
	for g := range a.diagnostics() {
		diags = append(diags, toProtocolDiagnostic(u, g))
	}
	diags = append(diags, s.fleetDiagnostics(u, a)...)
	if err := s.client.PublishDiagnostics(s.bg, &protocol.PublishDiagnosticsParams{
		URI: u, Version: protocol.NewOptional(a.version), Diagnostics: diags,
	}); err != nil {
		s.log.Debug("publishing diagnostics", zap.Error(err))
	}
}

// parsed returns the parse of a document's latest text, for features that
// need no metadata; it never waits for the metadata source.
func (s *server) parsed(ctx context.Context, u uri.URI) *analysis {
	s.mu.Lock()
	d := s.docs[u]
	if d == nil {
		s.mu.Unlock()
		return nil
	}
	for _, a := range []*analysis{d.a, d.syntax} {
		if a != nil && a.version == d.version && a.text == d.text {
			s.mu.Unlock()
			return a
		}
	}
	s.mu.Unlock()
	// Not parsed yet (within the debounce): parse now, without
	// disturbing the scheduled analysis.
	return s.parseNow(u)
}

func (s *server) parseNow(u uri.URI) *analysis {
	s.mu.Lock()
	d := s.docs[u]
	if d == nil {
		s.mu.Unlock()
		return nil
	}
	a := &analysis{uri: u, version: d.version, text: d.text, pcp: s.pcp.Version}
	memo := d.memo
	s.mu.Unlock()
	a.file = grammar.ParseConfig(fileName(u), []byte(a.text), grammar.Options{Version: a.pcp, Memo: memo})
	return a
}

// current returns the analysis of a document's latest text, waiting for
// a pending one (started at once) up to a bound; after that, or when ctx
// ends, the latest finished analysis is better than none.
func (s *server) current(ctx context.Context, u uri.URI) *analysis {
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		d := s.docs[u]
		if d == nil {
			s.mu.Unlock()
			return nil
		}
		if d.a != nil && d.a.version == d.version && d.a.text == d.text {
			a := d.a
			s.mu.Unlock()
			return a
		}
		if d.timer != nil && d.timer.Stop() {
			gen := d.gen
			go s.analyse(u, gen) // a request needs it now: skip the debounce
		}
		done, stale := d.done, d.a
		s.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return stale
		case <-deadline.C:
			return stale
		}
	}
}

// offsetIn converts an LSP position (UTF-16 columns) to a byte offset.
func offsetIn(text string, p protocol.Position) int {
	line, off := uint32(0), 0
	for line < p.Line {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
		line++
	}
	col := uint32(0)
	for off < len(text) && text[off] != '\n' && col < p.Character {
		r, size := utf8.DecodeRuneInString(text[off:])
		if r >= 0x10000 {
			col += 2
		} else {
			col++
		}
		off += size
	}
	return off
}
