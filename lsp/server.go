package lsp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	pipeline "github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
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
	Source  struct {
		Host, Socket, Archive, Metadata string
	} `json:"source"`
	// IndomConfig names a file of equivalent instance domains (pcp7);
	// default $PCP_INDOM_CONFIG, else $PCP_ETC_DIR/pcp/indom.conf.
	IndomConfig string `json:"indomConfig"`
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
	// DocsURL is the base of the finding codes' pages each diagnostic
	// links to (codeDescription.href: BASE/CODE.md); default the
	// project's docs (codes.DefaultDocsURL).
	DocsURL string `json:"docsURL"`
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

type server struct {
	protocol.UnimplementedServer
	client protocol.Client
	// notify sends notifications outside the LSP's set (pcp/status).
	notify func(ctx context.Context, method string, params any) error
	opts   Options
	log    *zap.Logger
	// bg is the connection's context, for work that outlives a request.
	bg context.Context

	mu          sync.Mutex
	docs        map[uri.URI]*docState
	settings    Settings
	layer       settingsLayer          // everything the client said about settings, merged
	pcp         pipeline.VersionChoice // the release the analysis follows, and why
	source      pmclient.Source
	sourceErr   error
	sourceDown  bool // the last analysis could not reach the source
	retrying    bool
	indoms      *pmapi.InDomEquivalence
	clientCaps  clientCaps
	workspace   *workspace
	previews    *previewStore
	previewStop context.CancelFunc
	names       *nameIndex // the source's namespace, for completion
	rules       *projectRules
}

// clientCaps are the client capabilities the server adapts to.
type clientCaps struct {
	inlayRefresh, codeLensRefresh, workDoneProgress bool
	// configuration: the client answers workspace/configuration, so
	// settings are pulled rather than taken from notifications alone.
	configuration bool
	// watchFiles: the client lets the server register file watchers
	// (for the project rules file).
	watchFiles bool
}

func newServer(bg context.Context, client protocol.Client, opts Options) *server {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.RetryInterval <= 0 {
		opts.RetryInterval = 5 * time.Second
	}
	return &server{client: client, opts: opts, log: opts.Logger, bg: bg, docs: map[uri.URI]*docState{},
		pcp:       pipeline.VersionChoice{Version: pcpver.Latest, Reason: "latest release: no settings yet"},
		workspace: newWorkspace(), previews: newPreviewStore(), rules: newProjectRules()}
}

func (s *server) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.previewStop != nil {
		s.previewStop()
	}
	for _, d := range s.docs {
		if d.timer != nil {
			d.timer.Stop()
		}
	}
	if c, ok := s.source.(interface{ Close() error }); ok {
		c.Close()
	}
}

// applySettings opens the metadata source the settings name.
func (s *server) applySettings(ctx context.Context, st Settings) {
	if s.opts.Level != nil && st.LogLevel != "" {
		if lvl, err := zap.ParseAtomicLevel(st.LogLevel); err == nil {
			s.opts.Level.SetLevel(lvl.Level())
		}
	}
	src, err := choose.Open(ctx, choose.Spec{Host: st.Source.Host, Socket: st.Source.Socket,
		Archive: st.Source.Archive, Metadata: st.Source.Metadata, Getenv: s.opts.Getenv, Lazy: true})
	if err != nil {
		src = nil
	} else {
		// Metadata is asked for on every keystroke: answer from memory,
		// flushed when pmcd reports that its namespace changed.
		src = pmclient.NewCache(src)
	}
	// pcpVersion wins; when it is unset or auto, an explicit older
	// dialect setting still counts: as check decides between its flags.
	req := pipeline.VersionRequest{PCPVersion: st.PCPVersion, Dialect: st.Dialect, PCPVersionName: "pcpVersion", DialectName: "dialect"}
	var versionSrc pmclient.Source
	if err == nil {
		versionSrc = src
	}
	// A pmcd that stalls must not hold up initialize: past a bound, the
	// version is resolved as if the source did not say.
	vctx, cancel := context.WithTimeout(ctx, versionTimeout)
	choice, verr := req.Resolve(vctx, versionSrc)
	if verr != nil {
		s.log.Warn("PCP version setting", zap.Error(verr))
		_, what := req.Pick()
		choice, _ = pipeline.ResolveVersion(vctx, pipeline.Auto, what, versionSrc)
	}
	cancel()
	indoms, problems, ierr := choose.Equivalence(st.IndomConfig, s.opts.Getenv)
	if ierr != nil {
		s.log.Warn("indom config", zap.Error(ierr))
	}
	for _, p := range problems {
		s.log.Warn("indom config", zap.String("file", p.File), zap.Int("line", p.Line), zap.String("problem", p.Msg), zap.Bool("warning", p.Warning))
	}
	s.mu.Lock()
	if c, ok := s.source.(interface{ Close() error }); ok && s.source != src {
		c.Close()
	}
	s.settings, s.pcp, s.source, s.sourceErr, s.indoms, s.sourceDown = st, choice, src, err, indoms, false
	s.mu.Unlock()
	if err != nil {
		s.log.Warn("no metadata source: syntax checks only", zap.Error(err))
	} else {
		s.log.Info("metadata source", zap.String("source", src.Describe()), zap.Stringer("pcpVersion", choice.Version), zap.String("why", choice.Reason))
	}
	s.restartPreview()
}

// startNameLoad indexes the current source's namespace in the background
// (after initialize: it may report $/progress to the client).
func (s *server) startNameLoad() {
	s.mu.Lock()
	src := s.source
	s.mu.Unlock()
	if src != nil {
		go s.loadNames(src)
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
	s.mu.Lock()
	st, err := s.layer.merge(params.InitializationOptions)
	s.clientCaps = readClientCaps(params)
	s.mu.Unlock()
	if err != nil {
		s.log.Warn("ignoring initializationOptions", zap.Error(err))
	}
	folders, _ := params.WorkspaceFolders.Get()
	for _, f := range folders {
		s.workspace.addFolder(f.URI)
	}
	if len(folders) == 0 && params.RootURI != nil {
		s.workspace.addFolder(*params.RootURI)
	}
	s.applySettings(ctx, st)
	return &protocol.InitializeResult{Capabilities: capabilities(), ServerInfo: protocol.ServerInfo{Name: "pcp-derive-lsp", Version: protocol.NewOptional(s.opts.Version)}}, nil
}

func readClientCaps(p *protocol.InitializeParams) clientCaps {
	var c clientCaps
	if ws := p.Capabilities.Workspace; ws != nil {
		if ws.InlayHint != nil && ws.InlayHint.RefreshSupport != nil {
			c.inlayRefresh = *ws.InlayHint.RefreshSupport
		}
		if ws.CodeLens != nil && ws.CodeLens.RefreshSupport != nil {
			c.codeLensRefresh = *ws.CodeLens.RefreshSupport
		}
		if ws.Configuration != nil {
			c.configuration = *ws.Configuration
		}
		if w := ws.DidChangeWatchedFiles; w != nil && w.DynamicRegistration != nil {
			c.watchFiles = *w.DynamicRegistration
		}
	}
	if w := p.Capabilities.Window; w != nil && w.WorkDoneProgress != nil {
		c.workDoneProgress = *w.WorkDoneProgress
	}
	return c
}

// Commands the server executes (workspace/executeCommand).
const (
	cmdPreview = "pcp-derive.preview"
)

func capabilities() protocol.ServerCapabilities {
	yes := true
	full := protocol.TextDocumentSyncKindFull
	return protocol.ServerCapabilities{
		TextDocumentSync: &protocol.TextDocumentSyncOptions{OpenClose: &yes, Change: &full, Save: protocol.Boolean(true)},
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
		RenameProvider:             &protocol.RenameOptions{PrepareProvider: &yes},
		FoldingRangeProvider:       protocol.Boolean(true),
		InlayHintProvider:          protocol.Boolean(true),
		CodeLensProvider:           &protocol.CodeLensOptions{},
		ExecuteCommandProvider:     protocol.ExecuteCommandOptions{Commands: []string{cmdPreview}},
		SemanticTokensProvider: &protocol.SemanticTokensOptions{
			Legend: protocol.SemanticTokensLegend{TokenTypes: tokenTypes, TokenModifiers: tokenModifiers},
			Full:   protocol.Boolean(true),
		},
	}
}

func (s *server) Initialized(ctx context.Context, _ *protocol.InitializedParams) error {
	go s.pullAndApply()
	s.mu.Lock()
	src, err := s.source, s.sourceErr
	s.mu.Unlock()
	msg := ""
	if err != nil {
		msg = "pcp-derive-lsp: no metric metadata (" + err.Error() + "): syntax checks only"
	} else if src != nil {
		msg = "pcp-derive-lsp: metric metadata from " + src.Describe()
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

// mergeSettings folds a settings message into the layer; changed says
// whether the effective settings moved (eglot's empty change does not, and
// must not reconnect to pmcd).
func (s *server) mergeSettings(msg []byte) (_ Settings, changed bool, _ error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	before := s.layer.snapshot()
	st, err := s.layer.merge(msg)
	return st, s.layer.snapshot() != before, err
}

// settingsChanged puts new settings to work: the source they name, its
// namespace, the status line and every open document's analysis.
func (s *server) settingsChanged(ctx context.Context, st Settings) {
	s.applySettings(ctx, st)
	s.startNameLoad()
	s.sendStatus()
	s.reanalyseAll()
}

// pullAndApply pulls the settings (pullSettings) in the background — the
// client answers a request of ours while it may be waiting on us — and
// applies them when the answer changed anything.
func (s *server) pullAndApply() {
	defer s.survive("workspace/configuration")
	st, changed := s.pullSettings(s.bg)
	if !changed {
		return
	}
	ctx, cancel := detach(s.bg)
	defer cancel()
	s.settingsChanged(ctx, st)
}

// pullSettings asks a client that answers workspace/configuration for our
// section and merges the answer over what it sent before. changed is
// false when the client cannot be asked, did not answer, or its answer
// changed nothing.
func (s *server) pullSettings(ctx context.Context) (_ Settings, changed bool) {
	s.mu.Lock()
	can := s.clientCaps.configuration
	s.mu.Unlock()
	if !can {
		return Settings{}, false
	}
	ctx, cancel := detach(ctx)
	defer cancel()
	section := settingsSection
	answers, err := s.client.Configuration(ctx, &protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{{Section: &section}}})
	if err != nil || len(answers) == 0 {
		if err != nil {
			s.log.Warn("workspace/configuration", zap.Error(err))
		}
		return Settings{}, false
	}
	st, changed, err := s.mergeSettings(answers[0])
	if err != nil {
		s.log.Warn("workspace/configuration answer", zap.Error(err))
		return Settings{}, false
	}
	return st, changed
}

// reanalyseAll re-checks every open document now (new settings, or the
// source is back).
func (s *server) reanalyseAll() {
	s.mu.Lock()
	var us []uri.URI
	for u := range s.docs {
		us = append(us, u)
	}
	s.mu.Unlock()
	for _, u := range us {
		s.schedule(u, 0)
	}
}

// sourceFailed records that the source could not be reached: one notice
// to the user, then retries in the background until it answers again.
func (s *server) sourceFailed(err error) {
	s.mu.Lock()
	first := !s.sourceDown
	s.sourceDown = true
	start := !s.retrying
	s.retrying = true
	src := s.source
	s.mu.Unlock()
	if first {
		s.sendStatus()
		s.log.Warn("metadata source unreachable: syntax checks only", zap.Error(err))
		s.client.ShowMessage(s.bg, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning,
			Message: fmt.Sprintf("pcp-derive-lsp: %s is not answering (%v): syntax checks only until it is back", src.Describe(), err)})
	}
	if start {
		go s.retry(src)
	}
}

// retry polls the source until it answers, then re-checks every document.
func (s *server) retry(src pmclient.Source) {
	defer s.survive("source retry")
	t := time.NewTicker(s.opts.RetryInterval)
	defer t.Stop()
	for {
		select {
		case <-s.bg.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		current := s.source
		s.mu.Unlock()
		if current != src {
			s.mu.Lock()
			s.retrying = false // new settings replaced the source
			s.mu.Unlock()
			return
		}
		ctx, cancel := context.WithTimeout(s.bg, 5*time.Second)
		_, err := src.Version(ctx)
		cancel()
		if err == nil {
			break
		}
	}
	s.mu.Lock()
	s.retrying, s.sourceDown = false, false
	s.mu.Unlock()
	s.sendStatus()
	s.log.Info("metadata source answers again", zap.String("source", src.Describe()))
	s.client.ShowMessage(s.bg, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo,
		Message: "pcp-derive-lsp: " + src.Describe() + " answers again: full checks resumed"})
	s.reanalyseAll()
}

// Status is the pcp/status notification: which source the server uses
// and whether it answers, for an editor's status bar.
type Status struct {
	Source string `json:"source"`
	State  string `json:"state"` // "ok", "unreachable" or "none"
	// PCPVersion is the release the analysis follows and
	// PCPVersionReason why; Dialect is its older name (pcp6 before 6.2.2,
	// pcp7 after), kept for clients that read it.
	PCPVersion       string `json:"pcpVersion"`
	PCPVersionReason string `json:"pcpVersionReason"`
	Dialect          string `json:"dialect"`
	Message          string `json:"message,omitempty"`
}

// sendStatus tells the client the source's state (pcp/status).
func (s *server) sendStatus() {
	s.mu.Lock()
	st := Status{State: "ok", PCPVersion: s.pcp.Version.String(), PCPVersionReason: s.pcp.Reason, Dialect: dialectName(s.pcp.Version)}
	switch {
	case s.source == nil:
		st.State, st.Source = "none", "none (syntax checks only)"
		if s.sourceErr != nil {
			st.Message = s.sourceErr.Error()
		}
	case s.sourceDown:
		st.State, st.Source, st.Message = "unreachable", s.source.Describe(), "syntax checks only until it answers"
	default:
		st.Source = s.source.Describe()
	}
	notify := s.notify
	s.mu.Unlock()
	if notify != nil {
		notify(s.bg, "pcp/status", st)
	}
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

func toRange(r grammar.Range) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: uint32(max(r.Start.Line-1, 0)), Character: uint32(r.Start.Col16)},
		End:   protocol.Position{Line: uint32(max(r.End.Line-1, 0)), Character: uint32(r.End.Col16)},
	}
}

// toProtocolDiagnostic renders a finding for the client, its code linked
// to the code's page under docsURL (codes.DocURL).
func toProtocolDiagnostic(u uri.URI, g grammar.Diagnostic, docsURL string) protocol.Diagnostic {
	d := protocol.Diagnostic{
		Range:           toRange(g.Range),
		Severity:        protocol.DiagnosticSeverity(g.Severity),
		Code:            protocol.String(g.Code),
		CodeDescription: protocol.CodeDescription{Href: uri.URI(codes.DocURL(docsURL, g.Code))},
		Source:          protocol.NewOptional("pcp-derive-lsp"),
		Message:         protocol.String(g.Message),
	}
	switch g.Code {
	case "masked", "duplicate-name", "no-final-newline":
		d.Tags = protocol.NewDiagnosticTags(protocol.DiagnosticTagUnnecessary)
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

// versionTimeout bounds asking the source for its PCP version.
const versionTimeout = 2 * time.Second

// dialectName is the older name of a release's language: pcp6 before
// novalue() (6.2.2), pcp7 from it on.
func dialectName(v pcpver.Version) string {
	if v.Has(pcpver.Novalue) {
		return "pcp7"
	}
	return "pcp6"
}
