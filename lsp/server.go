package lsp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/choose"
)

// Options configure a server.
type Options struct {
	Logger *zap.Logger
	// Level, when set, is changed by the logLevel setting.
	Level *zap.AtomicLevel
	// Getenv reads the environment for source selection (os.Getenv).
	Getenv func(string) string
	// Version is reported to the client.
	Version string
	// RetryInterval is how often an unreachable source is retried
	// (default 5 s, PCP's first back-off step).
	RetryInterval time.Duration
	// MaxMessageSize is the largest message body read from the client
	// (default MaxMessageSize); a larger one is skipped and answered with
	// an error.
	MaxMessageSize int64
	// DocsURL is the base of the finding codes' pages each diagnostic
	// links to (codeDescription.href is BASE/CODE.md); "" for the
	// project's own (codes.DefaultDocsURL).
	DocsURL string
	// OpenDocuments, when set, is told the total size of the open
	// documents when it changes by more than a little, so the binary
	// can bound the server's memory to what they need (main sets a soft
	// memory limit proportional to it). Tests leave it nil.
	OpenDocuments func(bytes int64)
	// served, when set (by tests), is given the server Serve made, so a
	// test driving it over the protocol can look at what it holds.
	served func(*server)
}

// Settings are what a client may set in initializationOptions or
// workspace/didChangeConfiguration (under the key "pcpDerive" or bare).
type Settings struct {
	// PCPVersion is the PCP release whose libpcp the analysis follows
	// ("6.0.3", "6.2", "latest"), or "auto" (the default): the version the
	// metadata source reports, else the latest.
	PCPVersion string `json:"pcpVersion"`
	// Dialect is PCPVersion's older spelling: "pcp6", "pcp7" or "auto".
	Dialect string `json:"dialect"`
	// Source is where metadata comes from (empty: choose's default).
	Source choose.Spec `json:"source"`
	// Fleet names the hosts the config is deployed to; see FleetSettings.
	Fleet FleetSettings `json:"fleet"`
	// IndomConfig names a file of equivalent instance domains (pcp7);
	// default $PCP_INDOM_CONFIG, else $PCP_ETC_DIR/pcp/indom.conf.
	IndomConfig string `json:"indomConfig"`
	// DerivedControl is $PCP_DERIVED_CONTROL for the configs' analysis
	// (PCP 7.1.1+: option_novalue=1, ...); empty: the server's own
	// $PCP_DERIVED_CONTROL.
	DerivedControl string `json:"derivedControl"`
	// Preview shows live values (inlay hints, code lens, pcp/preview).
	Preview struct {
		Enabled  *bool   `json:"enabled"`  // default true
		Interval float64 `json:"interval"` // seconds between refreshes, default 10
	} `json:"preview"`
	// InlayHints shows each definition's inferred metadata (default true).
	InlayHints *bool `json:"inlayHints"`
	// Debounce is how long (ms) to wait after an edit before analysing,
	// default 150.
	Debounce *int `json:"debounce"`
	// LogLevel is debug, info, warn or error.
	LogLevel string `json:"logLevel"`
}

func (st Settings) previewOn() bool { return st.Preview.Enabled == nil || *st.Preview.Enabled }
func (st Settings) hintsOn() bool   { return st.InlayHints == nil || *st.InlayHints }

func (st Settings) previewInterval() time.Duration {
	if st.Preview.Interval <= 0 {
		return 10 * time.Second
	}
	return time.Duration(max(st.Preview.Interval, 1) * float64(time.Second))
}

func (st Settings) debounce() time.Duration {
	if st.Debounce == nil || *st.Debounce < 0 {
		return 150 * time.Millisecond
	}
	return time.Duration(*st.Debounce) * time.Millisecond
}

// server is the language server: the session (settings, source,
// status; session.go), the open documents (edits, debounce, analyses;
// documents.go), each under its own lock, and the features, which are
// functions of one snapshot (snapshot.go) a request takes.
type server struct {
	protocol.UnimplementedServer
	client protocol.Client
	// notify sends notifications outside the LSP's set (pcp/status).
	notify func(ctx context.Context, method string, params any) error
	// sendFrame writes a message the server framed itself (the
	// publishDiagnostics it composes from cached JSON), given as its
	// runs of bytes, whole and serialised with the connection's own
	// writes.
	sendFrame func(ctx context.Context, frame [][]byte) error
	opts      Options
	log       *zap.Logger
	// bg is the connection's context, for work that outlives a request.
	bg context.Context

	session   *clientSession
	docs      *documents
	workspace *workspace // the workspace's configs, for cross-file features
	previews  *previewStore
	rules     *projectRules
	fleet     fleetChecks    // the documents' checks across the fleet setting's hosts
	explains  *explainStore  // what the preview saw of every node, for hover and empty-now
	lenses    *lensFocus     // where the user is in each document, for its code lenses
	diagJSON  diagnosticJSON // the JSON of the findings published lately
	// pullJSON makes the findings' JSON of pulls (snapshot.findingsJSON):
	// never used to publish, so the JSON it made stays as it was.
	pullJSON diagnosticJSON
	links    documentLinkCaches // each open document's definitions' links as JSON (replycache.go)
	// publishing orders the publishes (publishIf).
	publishing sync.Mutex

	pulls    *pullState      // what a pulling client has of each document (pulldiag.go)
	dirDiags *dirDiagnostics // the analyses of the workspace's closed configs (wsdiag.go)
}

func newServer(bg context.Context, client protocol.Client, opts Options) *server {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.RetryInterval <= 0 {
		opts.RetryInterval = 5 * time.Second
	}
	return &server{client: client, opts: opts, log: opts.Logger, bg: bg, session: newSession(), docs: newDocuments(opts.OpenDocuments),
		workspace: newWorkspace(), previews: newPreviewStore(), rules: newProjectRules(), explains: newExplainStore(), lenses: newLensFocus(),
		pulls: newPullState(), dirDiags: newDirDiagnostics()}
}

func (s *server) close() {
	s.session.close()
	s.docs.stopAll()
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
	st, problems, err := s.session.initialize(params)
	if err != nil {
		s.log.Warn("ignoring initializationOptions", zap.Error(err))
	}
	s.reportSettings(problems)
	s.diagJSON.shape = s.session.clientCaps().diagnostic // before the first publish: none before initialize
	s.pullJSON.shape = s.diagJSON.shape
	folders, _ := params.WorkspaceFolders.Get()
	for _, f := range folders {
		s.workspace.addFolder(f.URI)
	}
	if len(folders) == 0 && params.RootURI != nil {
		s.workspace.addFolder(*params.RootURI)
	}
	s.applySettings(ctx, st)
	return &protocol.InitializeResult{Capabilities: capabilities(s.session.clientCaps()), ServerInfo: protocol.ServerInfo{Name: "pcp-derive-lsp", Version: protocol.NewOptional(s.opts.Version)}}, nil
}

// Commands the server executes (workspace/executeCommand).
const (
	cmdPreview = "pcp-derive.preview"
)

// capabilities are what the server offers a client that can do caps.
func capabilities(caps clientCaps) protocol.ServerCapabilities {
	yes := true
	// prepareRename only to a client that sends it (rename.prepareSupport).
	var rename protocol.RenameProvider = protocol.Boolean(true)
	if caps.prepareRename {
		rename = &protocol.RenameOptions{PrepareProvider: &yes}
	}
	// Ranged changes: a client then sends the characters typed, not the
	// whole document on each keystroke (3.4 MB of JSON at 100,000
	// lines). A whole document is still taken (documents.edit).
	incremental := protocol.TextDocumentSyncKindIncremental
	return protocol.ServerCapabilities{
		TextDocumentSync: &protocol.TextDocumentSyncOptions{OpenClose: &yes, Change: &incremental, Save: protocol.Boolean(true)},
		HoverProvider:    protocol.Boolean(true),
		CompletionProvider: &protocol.CompletionOptions{
			TriggerCharacters: []string{".", "[", "(", ",", "=", "\""},
			ResolveProvider:   &yes,
		},
		SignatureHelpProvider:      &protocol.SignatureHelpOptions{TriggerCharacters: []string{"(", ","}, RetriggerCharacters: []string{","}},
		DocumentSymbolProvider:     protocol.Boolean(true),
		WorkspaceSymbolProvider:    protocol.Boolean(true),
		DocumentFormattingProvider: protocol.Boolean(true),
		CodeActionProvider:         protocol.Boolean(true),
		DefinitionProvider:         protocol.Boolean(true),
		ReferencesProvider:         protocol.Boolean(true),
		RenameProvider:             rename,
		FoldingRangeProvider:       protocol.Boolean(true),
		InlayHintProvider:          protocol.Boolean(true),
		CodeLensProvider:           &protocol.CodeLensOptions{},
		ExecuteCommandProvider:     protocol.ExecuteCommandOptions{Commands: []string{cmdPreview, cmdExplain, cmdApplyFix}},

		// The features of highlight.go, selection.go, callhierarchy.go, links.go and rangeformat.go.
		DocumentHighlightProvider:       protocol.Boolean(true),
		SelectionRangeProvider:          protocol.Boolean(true),
		CallHierarchyProvider:           protocol.Boolean(true),
		DocumentLinkProvider:            &protocol.DocumentLinkOptions{},
		DocumentRangeFormattingProvider: protocol.Boolean(true),
		// Pulled by clients that declare it (pulldiag.go), pushed to others.
		DiagnosticProvider: &protocol.DiagnosticOptions{InterFileDependencies: true, WorkspaceDiagnostics: true},
		SemanticTokensProvider: &protocol.SemanticTokensOptions{
			Legend: protocol.SemanticTokensLegend{TokenTypes: tokenTypes, TokenModifiers: tokenModifiers},
			Full:   protocol.Boolean(true),
		},
	}
}

func (s *server) Initialized(ctx context.Context, _ *protocol.InitializedParams) error {
	go s.pullAndApply()
	cfg := s.session.config()
	msg := ""
	if cfg.sourceErr != nil {
		msg = "pcp-derive-lsp: no metric metadata (" + cfg.sourceErr.Error() + "): syntax checks only"
	} else if cfg.source != nil {
		msg = "pcp-derive-lsp: metric metadata from " + cfg.source.Describe()
	}
	go func() { // other config files, for references and rename
		defer s.survive("workspace scan")
		s.workspace.scan(s.bg, s.log)
	}()
	s.startNameLoad()
	s.sendStatus()
	go s.watchRulesFiles()
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
	st, changed, err := s.mergeSettings(params.Settings)
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	if changed {
		s.settingsChanged(ctx, st)
	}
	go s.pullAndApply()
	return nil
}

// survive keeps a panic in background work (an analysis, the preview
// loop) from taking the server down: it is logged with its stack, and the
// editor keeps its session.
func (s *server) survive(what string) {
	if r := recover(); r != nil {
		s.log.Error("internal error: please report it", zap.String("in", what), zap.Any("panic", r), zap.Stack("stack"))
	}
}

// unreachable tells a failed source (the checker only returns an error
// when a whole request failed; per-metric errors are findings) from a
// cancelled check.
func unreachable(err error) bool {
	return err != nil && !errors.Is(err, context.Canceled)
}

// toRange converts a range of f, in libpcp's lines, to the client's:
// lines as LSP counts them ("\n", "\r\n" or a lone "\r"), UTF-16
// columns. Every range the server sends is made here or by spanRange
// (grammar.File.Position is the conversion).
func toRange(f *grammar.File, r grammar.Range) protocol.Range {
	return protocol.Range{Start: toPosition(f, r.Start), End: toPosition(f, r.End)}
}

// toPosition converts a position of f to the client's (toRange).
func toPosition(f *grammar.File, p grammar.Pos) protocol.Position {
	line, col16 := f.Position(p)
	return protocol.Position{Line: uint32(line), Character: uint32(col16)}
}

// spanRange is the client's range of f's bytes [from, to).
func spanRange(f *grammar.File, from, to int) protocol.Range {
	return protocol.Range{Start: offsetPosition(f, from), End: offsetPosition(f, to)}
}

// offsetPosition is the client's position of a byte offset of f.
func offsetPosition(f *grammar.File, offset int) protocol.Position {
	line, col16 := f.Text.Position(offset)
	return protocol.Position{Line: uint32(line), Character: uint32(col16)}
}

// diagnostics renders a snapshot's findings for the client, their codes
// linked to their pages under docsURL.
func diagnostics(snap *snapshot, docsURL string) []protocol.Diagnostic {
	out := make([]protocol.Diagnostic, 0, snap.findings.Len())
	for g := range snap.findings.All() {
		out = append(out, toProtocolDiagnostic(snap.uri, snap.file, *g, docsURL))
	}
	return out
}

// toProtocolDiagnostic renders a finding of f (the document u) for the
// client, its code linked to the code's page under docsURL
// (codes.DocURL).
func toProtocolDiagnostic(u uri.URI, f *grammar.File, g grammar.Diagnostic, docsURL string) protocol.Diagnostic {
	d := protocol.Diagnostic{
		Range:           toRange(f, g.Range),
		Severity:        protocol.DiagnosticSeverity(g.Severity),
		Code:            protocol.String(g.Code),
		CodeDescription: protocol.CodeDescription{Href: uri.URI(codes.DocURL(docsURL, g.Code))},
		Source:          protocol.NewOptional("pcp-derive-lsp"),
		Message:         protocol.String(g.Message),
	}
	switch g.Code {
	case codes.Masked, codes.DuplicateName, codes.NoFinalNewline:
		d.Tags = protocol.NewDiagnosticTags(protocol.DiagnosticTagUnnecessary)
	}
	for _, r := range g.Related {
		d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: u, Range: toRange(f, r.Range)}, Message: r.Message,
		})
	}
	return d
}
