package lsp

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	pipeline "github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"

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

// analysis is what the shared analysis (package analysis) made of one
// version of a document.
type analysis struct {
	uri     uri.URI
	version int32
	text    string
	res     *pipeline.Result
	file    *grammar.File   // res.Files[0].File
	report  *checker.Report // nil when no source answered
	// findings are the document's findings, as check reports them:
	// sorted, suppression comments and the project's rules applied.
	findings []grammar.Diagnostic
	pcp      pcpver.Version // the release the analysis followed
}

// newAnalysis wraps a result of the shared analysis of one document.
func newAnalysis(u uri.URI, version int32, text string, res *pipeline.Result) *analysis {
	a := &analysis{uri: u, version: version, text: text, res: res, report: res.Report, pcp: res.Config.Version.Version}
	if len(res.Files) > 0 {
		a.file, a.findings = res.Files[0].File, res.Files[0].Findings
	} else {
		a.file = grammar.ParseConfig(fileName(u), nil, grammar.Options{Version: a.pcp})
	}
	return a
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
	cfg := pipeline.Config{Version: s.pcp, Source: s.source, InDoms: s.indoms}
	if s.sourceDown {
		cfg.Source = nil // syntax only until the source answers again
	}
	s.mu.Unlock()
	cfg.Rules = s.rulesFor(u)

	ctx, cancel := context.WithTimeout(s.bg, 30*time.Second)
	defer cancel()
	parsed := pipeline.Parse([]pipeline.Input{pipeline.Buffer(fileName(u), []byte(text))}, cfg, pipeline.Options{Memo: memo})
	memo.Trim()
	syntax := newAnalysis(u, version, text, parsed)
	s.mu.Lock()
	if d := s.docs[u]; d != nil && d.gen == gen {
		d.syntax = syntax // enough for symbols, folding, tokens, formatting
		s.workspace.update(u, syntax.file)
	}
	s.mu.Unlock()
	a := syntax
	if cfg.Source != nil {
		// A slow source must not hide syntax errors: publish them alone
		// if the check takes a while.
		slow := time.AfterFunc(500*time.Millisecond, func() { s.publish(u, gen, syntax) })
		defer slow.Stop()
		checked := pipeline.Check(ctx, parsed)
		switch err := checked.CheckErr; {
		case err == nil:
		case unreachable(err):
			s.sourceFailed(err)
		default:
			s.log.Warn("semantic checks failed; syntax only", zap.Error(err))
		}
		a = newAnalysis(u, version, text, checked)
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
	docsURL := s.settings.DocsURL
	s.mu.Unlock()
	if !current {
		return
	}
	diags := make([]protocol.Diagnostic, 0, len(a.findings))
	for _, g := range a.findings {
		diags = append(diags, toProtocolDiagnostic(u, g, docsURL))
	}
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
	version, text, memo := d.version, d.text, d.memo
	cfg := pipeline.Config{Version: s.pcp}
	s.mu.Unlock()
	cfg.Rules = s.rulesFor(u)
	res := pipeline.Parse([]pipeline.Input{pipeline.Buffer(fileName(u), []byte(text))}, cfg, pipeline.Options{Memo: memo})
	return newAnalysis(u, version, text, res)
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
