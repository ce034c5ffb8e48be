package lsp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/choose"
)

// config is one configuration of the session: the settings and what they
// resolved to. It never changes once made; new settings make a new one,
// and every analysis records the one it followed, so a request reads the
// source, release and settings its document's analysis was made with,
// never a mix of two.
type config struct {
	gen       int // bumped by every new configuration
	settings  Settings
	pcp       analysis.VersionChoice // the release the analysis follows, and why
	source    pmclient.Source        // nil: syntax checks only
	sourceErr error                  // why there is no source
	indoms    *pmapi.InDomEquivalence
	// derivedControl is $PCP_DERIVED_CONTROL as the analysis has it
	// (Settings.DerivedControl, else the server's), nil when unset.
	derivedControl *string
}

// clientSession is the server's state besides the documents: the current
// configuration, what the client said about settings and can do, and the
// metadata source's lifecycle (down, retrying), under its own lock.
type clientSession struct {
	mu          sync.Mutex
	cfg         *config
	layer       settingsLayer // everything the client said about settings, merged
	caps        clientCaps
	sourceDown  bool // the last analysis could not reach the source
	retrying    bool
	names       *nameIndex // the source's namespace, for completion
	previewStop context.CancelFunc
	// told are the setting problems already shown to the user: a bad
	// value is reported once, not at every settings message that keeps it.
	told map[settingProblem]bool
}

func newSession() *clientSession {
	return &clientSession{cfg: &config{pcp: analysis.VersionChoice{Version: pcpver.Latest, Reason: "latest release: no settings yet"}}}
}

// initialize records what the client said at initialize: its
// capabilities and initializationOptions (the first settings). problems
// are the settings of the wrong type not reported before.
func (se *clientSession) initialize(params *protocol.InitializeParams) (_ Settings, problems []settingProblem, _ error) {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.caps = readClientCaps(params)
	st, problems, err := se.layer.merge(params.InitializationOptions)
	return st, se.untold(problems), err
}

// untold keeps the problems not reported before, and marks them told.
// The caller holds se.mu.
func (se *clientSession) untold(problems []settingProblem) []settingProblem {
	if se.told == nil {
		se.told = map[settingProblem]bool{}
	}
	var out []settingProblem
	for _, p := range problems {
		if !se.told[p] {
			se.told[p] = true
			out = append(out, p)
		}
	}
	return out
}

// config is the current configuration.
func (se *clientSession) config() *config {
	se.mu.Lock()
	defer se.mu.Unlock()
	return se.cfg
}

// clientCaps are what the client said it can do.
func (se *clientSession) clientCaps() clientCaps {
	se.mu.Lock()
	defer se.mu.Unlock()
	return se.caps
}

// down says whether the source was found unreachable and not yet back.
func (se *clientSession) down() bool {
	se.mu.Lock()
	defer se.mu.Unlock()
	return se.sourceDown
}

// nameIndex is the namespace index of the current source, if loading.
func (se *clientSession) nameIndex() *nameIndex {
	se.mu.Lock()
	defer se.mu.Unlock()
	return se.names
}

// install makes cfg the current configuration (a new generation) and
// closes the source it replaces; requests that hold the old one get
// errors from it, never another configuration's answers.
func (se *clientSession) install(cfg *config) {
	se.mu.Lock()
	old := se.cfg
	cfg.gen = old.gen + 1
	se.cfg, se.sourceDown = cfg, false
	se.mu.Unlock()
	if c, ok := old.source.(interface{ Close() error }); ok && old.source != cfg.source {
		c.Close()
	}
}

// close stops the session's background work and closes its source.
func (se *clientSession) close() {
	se.mu.Lock()
	defer se.mu.Unlock()
	if se.previewStop != nil {
		se.previewStop()
	}
	if c, ok := se.cfg.source.(interface{ Close() error }); ok {
		c.Close()
	}
}

// versionRequest is the release the settings ask to follow, resolved as
// check resolves its flags: pcpVersion wins; when it is unset or auto,
// an explicit older dialect setting still counts.
func (st Settings) versionRequest() analysis.VersionRequest {
	return analysis.VersionRequest{PCPVersion: st.PCPVersion, Dialect: st.Dialect, PCPVersionName: "pcpVersion", DialectName: "dialect"}
}

// applySettings makes the configuration the settings ask for: it opens
// the metadata source they name, resolves the PCP release (as check does,
// analysis.VersionRequest) and reads the equivalent instance domains.
func (s *server) applySettings(ctx context.Context, st Settings) {
	if s.opts.Level != nil && st.LogLevel != "" {
		if lvl, err := zap.ParseAtomicLevel(st.LogLevel); err == nil {
			s.opts.Level.SetLevel(lvl.Level())
		}
	}
	cfg := &config{settings: st}
	src, err := choose.Open(ctx, st.Source, choose.Options{Getenv: s.opts.Getenv, Lazy: true})
	s.fleet.reset()
	if err != nil {
		cfg.sourceErr = err
	} else {
		// Metadata is asked for on every keystroke: answer from memory,
		// flushed when pmcd reports that its namespace changed.
		cfg.source = pmclient.NewCache(src)
	}
	req := st.versionRequest()
	// A pmcd that stalls must not hold up initialize: past a bound, the
	// version is resolved as if the source did not say.
	vctx, cancel := context.WithTimeout(ctx, versionTimeout)
	choice, verr := req.Resolve(vctx, cfg.source)
	if verr != nil {
		s.log.Warn("PCP version setting", zap.Error(verr))
		_, what := req.Pick()
		choice, _ = analysis.ResolveVersion(vctx, analysis.Auto, what, cfg.source)
	}
	cancel()
	cfg.pcp = choice
	indoms, problems, ierr := choose.Equivalence(st.IndomConfig, s.opts.Getenv)
	if ierr != nil {
		s.log.Warn("indom config", zap.Error(ierr))
	}
	for _, p := range problems {
		s.log.Warn("indom config", zap.String("file", p.File), zap.Int("line", p.Line), zap.String("problem", p.Msg), zap.Bool("warning", p.Warning))
	}
	cfg.indoms = indoms
	cfg.derivedControl = derivedControl(st.DerivedControl, s.opts.Getenv)
	s.session.install(cfg)
	if err != nil {
		s.log.Warn("no metadata source: syntax checks only", zap.Error(err))
	} else {
		s.log.Info("metadata source", zap.String("source", cfg.source.Describe()), zap.Stringer("pcpVersion", choice.Version), zap.String("why", choice.Reason))
	}
	s.restartPreview()
}

// versionTimeout bounds asking the source for its PCP version.
const versionTimeout = 2 * time.Second

// mergeSettings folds a settings message into the layer; changed says
// whether the effective settings moved (eglot's empty change does not, and
// must not reconnect to pmcd). Settings of the wrong type are shown to
// the user, once each; the others apply.
func (s *server) mergeSettings(msg []byte) (_ Settings, changed bool, _ error) {
	se := s.session
	se.mu.Lock()
	before := se.layer.snapshot()
	st, problems, err := se.layer.merge(msg)
	changed = se.layer.snapshot() != before
	problems = se.untold(problems)
	se.mu.Unlock()
	s.reportSettings(problems)
	return st, changed, err
}

// reportSettings tells the user about settings of the wrong type: a
// typo in settings.json must not pass silently, nor stop the others.
func (s *server) reportSettings(problems []settingProblem) {
	for _, p := range problems {
		s.log.Warn("setting ignored", zap.String("setting", p.key), zap.String("value", p.value), zap.String("takes", p.want))
		s.client.ShowMessage(s.bg, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: "pcp-derive-lsp: " + p.String()})
	}
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
	if !s.session.clientCaps().configuration {
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

// startNameLoad indexes the current source's namespace in the background
// (after initialize: it may report $/progress to the client).
func (s *server) startNameLoad() {
	if src := s.session.config().source; src != nil {
		go s.loadNames(src)
	}
}

// sourceFailed records that the source of cfg could not be reached: one
// notice to the user, then retries in the background until it answers
// again. A failure of a configuration already replaced is old news.
func (s *server) sourceFailed(cfg *config, err error) {
	se := s.session
	se.mu.Lock()
	if se.cfg != cfg {
		se.mu.Unlock()
		return
	}
	first := !se.sourceDown
	se.sourceDown = true
	start := !se.retrying
	se.retrying = true
	se.mu.Unlock()
	if first {
		s.sendStatus()
		s.log.Warn("metadata source unreachable: syntax checks only", zap.Error(err))
		s.client.ShowMessage(s.bg, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning,
			Message: fmt.Sprintf("pcp-derive-lsp: %s is not answering (%v): syntax checks only until it is back", cfg.source.Describe(), err)})
	}
	if start {
		go s.retry(cfg)
	}
}

// retry polls the source of cfg until it answers, then re-checks every
// document; it gives up when new settings replace cfg.
func (s *server) retry(cfg *config) {
	defer s.survive("source retry")
	se := s.session
	t := time.NewTicker(s.opts.RetryInterval)
	defer t.Stop()
	for {
		select {
		case <-s.bg.Done():
			return
		case <-t.C:
		}
		if se.config() != cfg {
			se.mu.Lock()
			se.retrying = false // new settings replaced the source
			se.mu.Unlock()
			return
		}
		ctx, cancel := context.WithTimeout(s.bg, 5*time.Second)
		_, err := cfg.source.Version(ctx)
		cancel()
		if err == nil {
			break
		}
	}
	// The notice goes out before the source is marked up: an analysis
	// already scheduled may publish full checks as soon as it is, and the
	// user should read why before seeing them.
	s.log.Info("metadata source answers again", zap.String("source", cfg.source.Describe()))
	s.client.ShowMessage(s.bg, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo,
		Message: "pcp-derive-lsp: " + cfg.source.Describe() + " answers again: full checks resumed"})
	se.mu.Lock()
	se.retrying, se.sourceDown = false, false
	se.mu.Unlock()
	s.sendStatus()
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
	se := s.session
	se.mu.Lock()
	cfg, down := se.cfg, se.sourceDown
	se.mu.Unlock()
	st := Status{State: "ok", PCPVersion: cfg.pcp.Version.String(), PCPVersionReason: cfg.pcp.Reason, Dialect: dialectName(cfg.pcp.Version)}
	switch {
	case cfg.source == nil:
		st.State, st.Source = "none", analysis.NoSource
		if cfg.sourceErr != nil {
			st.Message = cfg.sourceErr.Error()
		}
	case down:
		st.State, st.Source, st.Message = "unreachable", cfg.source.Describe(), "syntax checks only until it answers"
	default:
		st.Source = cfg.source.Describe()
	}
	if s.notify != nil {
		s.notify(s.bg, "pcp/status", st)
	}
}

// dialectName is the older name of a release's language: pcp6 before
// novalue() (6.2.2), pcp7 from it on.
func dialectName(v pcpver.Version) string {
	if v.Has(pcpver.Novalue) {
		return "pcp7"
	}
	return "pcp6"
}

// derivedControl is the setting's $PCP_DERIVED_CONTROL, else the
// server's own (an empty one reads as unset), else nil.
func derivedControl(setting string, getenv func(string) string) *string {
	if setting == "" && getenv != nil {
		setting = getenv("PCP_DERIVED_CONTROL")
	}
	if setting == "" {
		return nil
	}
	return &setting
}
