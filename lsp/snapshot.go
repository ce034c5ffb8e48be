package lsp

import (
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// snapshot is what one request reads: one version of a document, the
// shared analysis of it (package analysis) and the session configuration
// that analysis followed (settings, source, release, equivalent instance
// domains). Nothing in it changes once made. A request takes one
// snapshot and reads nothing else of the session, so it can never answer
// from one configuration's source about another's analysis; the
// features are functions of a snapshot (gopls's model).
type snapshot struct {
	cfg     *config
	uri     uri.URI
	version int32
	seq     uint64 // the document's edit count at text (document.edits)
	text    *grammar.Text
	res     *analysis.Result
	file    *grammar.File   // res.Files[0].File
	report  *checker.Report // nil when the syntax only was analysed, or no source answered
	// findings are the document's findings as check reports them:
	// sorted, suppression comments and the project's rules applied.
	findings analysis.Findings
	// occ is the document's index of names (occurrences.go), made on
	// the first request about a name: derived from the rest, not a change.
	occ indexCell
	// replies are the JSON of the replies that grow with the document
	// (replycache.go), made on their first request.
	replies replyCell
}

// newSnapshot wraps the shared analysis of one version of a document.
func newSnapshot(cfg *config, u uri.URI, version int32, seq uint64, text *grammar.Text, res *analysis.Result) *snapshot {
	s := &snapshot{cfg: cfg, uri: u, version: version, seq: seq, text: text, res: res, report: res.Report}
	if len(res.Files) > 0 {
		s.file, s.findings = res.Files[0].File, res.Files[0].Findings
	} else {
		s.file = grammar.ParseConfig(fileName(u), nil, grammar.Options{Version: s.release()})
	}
	return s
}

// release is the PCP release the analysis followed.
func (s *snapshot) release() pcpver.Version { return s.res.Config.Version.Version }

// source is the metadata source of the snapshot's configuration (nil for
// none).
func (s *snapshot) source() pmclient.Source { return s.cfg.source }

// settings are the snapshot's configuration's settings.
func (s *snapshot) settings() Settings { return s.cfg.settings }

// metric is the checker's verdict on a derived metric of the document.
func (s *snapshot) metric(name string) (*checker.Metric, bool) {
	if s.report == nil {
		return nil, false
	}
	m, ok := s.report.ByName.Lookup(name)
	return m, ok
}

// fileName is a document's path for messages ("[FILE:LINE]" in libpcp's).
func fileName(u uri.URI) string {
	if u.Scheme() == "file" {
		return u.FsPath()
	}
	return string(u)
}
