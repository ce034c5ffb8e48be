package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/choose"
)

// Options configure a server.
type Options struct {
	Logger *zap.Logger
	// Getenv reads the environment for source selection (os.Getenv).
	Getenv func(string) string
	// Version is reported to the client.
	Version string
}

// Settings are what a client may set in initializationOptions or
// workspace/didChangeConfiguration (under the key "pcpDerive" or bare).
type Settings struct {
	Dialect string `json:"dialect"` // "pcp6", "pcp7" (default) or "auto"
	Source  struct {
		Host, Socket, Archive, Metadata string
	} `json:"source"`
	// IndomConfig names a file of equivalent instance domains (pcp7);
	// default $PCP_INDOM_CONFIG, else $PCP_ETC_DIR/pcp/indom.conf.
	IndomConfig string `json:"indomConfig"`
}

// document is one open config file and its latest analysis.
type document struct {
	uri     uri.URI
	version int32
	text    string
	file    *grammar.File
	report  *checker.Report
	diags   []grammar.Diagnostic
}

type server struct {
	protocol.UnimplementedServer
	client protocol.Client
	opts   Options
	log    *zap.Logger

	mu        sync.Mutex
	docs      map[uri.URI]*document
	settings  Settings
	dialect   grammar.Dialect
	source    pmclient.Source
	sourceErr error
	indoms    *pmapi.InDomEquivalence
}

func newServer(client protocol.Client, opts Options) *server {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	return &server{client: client, opts: opts, log: opts.Logger, docs: map[uri.URI]*document{}, dialect: grammar.PCP7}
}

func (s *server) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.source.(interface{ Close() error }); ok {
		c.Close()
	}
}

func decodeSettings(raw []byte) (Settings, error) {
	var st Settings
	if len(raw) == 0 || string(raw) == "null" {
		return st, nil
	}
	var wrapped struct {
		PCPDerive *Settings `json:"pcpDerive"`
	}
	if err := json.Unmarshal(raw, &wrapped); err == nil && wrapped.PCPDerive != nil {
		return *wrapped.PCPDerive, nil
	}
	err := json.Unmarshal(raw, &st)
	return st, err
}

// applySettings opens the metadata source the settings name.
func (s *server) applySettings(ctx context.Context, st Settings) {
	dialect := grammar.PCP7
	if st.Dialect == "pcp6" {
		dialect = grammar.PCP6
	}
	src, err := choose.Open(ctx, choose.Spec{Host: st.Source.Host, Socket: st.Source.Socket,
		Archive: st.Source.Archive, Metadata: st.Source.Metadata, Getenv: s.opts.Getenv})
	if err == nil {
		// Metadata is asked for on every keystroke: answer from memory,
		// flushed when pmcd reports that its namespace changed.
		src = pmclient.NewCache(src)
	}
	indoms, problems, ierr := choose.Equivalence(st.IndomConfig, s.opts.Getenv)
	if ierr != nil {
		s.log.Warn("indom config", zap.Error(ierr))
	}
	for _, p := range problems {
		s.log.Warn("indom config", zap.String("file", p.File), zap.Int("line", p.Line), zap.String("problem", p.Msg), zap.Bool("warning", p.Warning))
	}
	if st.Dialect == "auto" && err == nil {
		if v, verr := src.Version(ctx); verr == nil && len(v) > 0 && v[0] < '7' {
			dialect = grammar.PCP6
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.source.(interface{ Close() error }); ok && s.source != src {
		c.Close()
	}
	s.settings, s.dialect, s.source, s.sourceErr, s.indoms = st, dialect, src, err, indoms
	if err != nil {
		s.log.Warn("no metadata source: syntax checks only", zap.Error(err))
	} else {
		s.log.Info("metadata source", zap.String("source", src.Describe()), zap.Stringer("dialect", dialect))
	}
}

// detach returns a context safe to derive from: jsonrpc2 recycles request
// contexts when a handler returns, so contexts derived from them (by the
// pmcd client's timeouts) must hang off the connection's instead. The
// deadline bounds how long one request may wait for metadata.
func detach(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(jsonrpc2.DetachContext(ctx), 15*time.Second)
}

func (s *server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	ctx, cancel := detach(ctx)
	defer cancel()
	st, err := decodeSettings(params.InitializationOptions)
	if err != nil {
		s.log.Warn("ignoring initializationOptions", zap.Error(err))
	}
	s.applySettings(ctx, st)
	yes := true
	full := protocol.TextDocumentSyncKindFull
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{OpenClose: &yes, Change: &full},
			HoverProvider:    protocol.Boolean(true),
			CompletionProvider: &protocol.CompletionOptions{
				TriggerCharacters: []string{".", "[", "(", ",", "="},
			},
			DocumentSymbolProvider:     protocol.Boolean(true),
			DocumentFormattingProvider: protocol.Boolean(true),
			CodeActionProvider:         protocol.Boolean(true),
			DefinitionProvider:         protocol.Boolean(true),
		},
		ServerInfo: protocol.ServerInfo{Name: "pcp-derive-lsp", Version: protocol.NewOptional(s.opts.Version)},
	}, nil
}

func (s *server) Initialized(ctx context.Context, _ *protocol.InitializedParams) error {
	s.mu.Lock()
	src, err := s.source, s.sourceErr
	s.mu.Unlock()
	msg := ""
	if err != nil {
		msg = "pcp-derive-lsp: no metric metadata (" + err.Error() + "): syntax checks only"
	} else if src != nil {
		msg = "pcp-derive-lsp: metric metadata from " + src.Describe()
	}
	if msg != "" {
		return s.client.LogMessage(ctx, &protocol.LogMessageParams{Type: protocol.MessageTypeInfo, Message: msg})
	}
	return nil
}

func (s *server) Shutdown(context.Context) error { return nil }
func (s *server) Exit(context.Context) error     { return nil }

func (s *server) DidChangeConfiguration(ctx context.Context, params *protocol.DidChangeConfigurationParams) error {
	ctx, cancel := detach(ctx)
	defer cancel()
	st, err := decodeSettings(params.Settings)
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	s.applySettings(ctx, st)
	s.mu.Lock()
	docs := make([]*document, 0, len(s.docs))
	for _, d := range s.docs {
		docs = append(docs, d)
	}
	s.mu.Unlock()
	for _, d := range docs {
		s.update(ctx, d.uri, d.version, d.text)
	}
	return nil
}

func (s *server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	td := params.TextDocument
	return s.update(ctx, td.URI, td.Version, td.Text)
}

func (s *server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	s.mu.Lock()
	d := s.docs[params.TextDocument.URI]
	s.mu.Unlock()
	if d == nil {
		return fmt.Errorf("didChange for %s, which is not open", params.TextDocument.URI)
	}
	text := d.text
	for _, ch := range params.ContentChanges {
		switch c := ch.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			text = c.Text
		case *protocol.TextDocumentContentChangePartial:
			f := grammar.ParseConfig("", []byte(text), grammar.Options{Dialect: s.dialect})
			start := f.Offset(int(c.Range.Start.Line), int(c.Range.Start.Character))
			end := f.Offset(int(c.Range.End.Line), int(c.Range.End.Character))
			text = text[:start] + c.Text + text[end:]
		}
	}
	return s.update(ctx, params.TextDocument.URI, params.TextDocument.Version, text)
}

func (s *server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	delete(s.docs, params.TextDocument.URI)
	s.mu.Unlock()
	return s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{URI: params.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
}

// update analyses a document and publishes its diagnostics.
func (s *server) update(ctx context.Context, u uri.URI, version int32, text string) error {
	ctx, cancel := detach(ctx)
	defer cancel()
	s.mu.Lock()
	dialect, src, indoms := s.dialect, s.source, s.indoms
	s.mu.Unlock()
	d := &document{uri: u, version: version, text: text}
	d.file = grammar.ParseConfig(fileName(u), []byte(text), grammar.Options{Dialect: dialect})
	d.diags = append(d.diags, d.file.Diagnostics...)
	if src != nil {
		rep, err := checker.Check(ctx, []*grammar.File{d.file}, src, checker.Options{Dialect: dialect, InDoms: indoms})
		if err != nil {
			s.log.Warn("semantic checks failed; syntax only", zap.Error(err))
		} else {
			d.report = rep
			d.diags = append(d.diags, rep.Diagnostics[d.file]...)
		}
	}
	s.mu.Lock()
	if old := s.docs[u]; old != nil && old.version > version {
		s.mu.Unlock()
		return nil // an older analysis finished late
	}
	s.docs[u] = d
	s.mu.Unlock()
	diags := make([]protocol.Diagnostic, 0, len(d.diags))
	for _, g := range d.diags {
		diags = append(diags, toProtocolDiagnostic(u, g))
	}
	return s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{
		URI: u, Version: protocol.NewOptional(version), Diagnostics: diags,
	})
}

func (s *server) doc(u uri.URI) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[u]
}

func toRange(r grammar.Range) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: uint32(max(r.Start.Line-1, 0)), Character: uint32(r.Start.Col16)},
		End:   protocol.Position{Line: uint32(max(r.End.Line-1, 0)), Character: uint32(r.End.Col16)},
	}
}

func toProtocolDiagnostic(u uri.URI, g grammar.Diagnostic) protocol.Diagnostic {
	d := protocol.Diagnostic{
		Range:    toRange(g.Range),
		Severity: protocol.DiagnosticSeverity(g.Severity),
		Code:     protocol.String(g.Code),
		Source:   protocol.NewOptional("pcp-derive-lsp"),
		Message:  protocol.String(g.Message),
	}
	for _, r := range g.Related {
		d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: u, Range: toRange(r.Range)}, Message: r.Message,
		})
	}
	return d
}

// fileName is a document's path for messages ("[FILE:LINE]" in libpcp's).
func fileName(u uri.URI) string {
	if u.Scheme() == "file" {
		return u.FsPath()
	}
	return string(u)
}
