package lsp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/fleet"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// FleetSettings name the hosts a config is deployed to (the fleet
// setting): each document is also checked against every one of them,
// and a definition that does not work on all of them gets a diagnostic
// saying where: "fleet: valid on 37 of 40 hosts; fails on h3, h9, h12:
// operand x: Unknown operand metric".
type FleetSettings struct {
	// Hosts are as check --hosts takes them: HOST[:PORT],
	// http://PROXY:PORT?hostspec=HOST, archive:PATH, NAME=any of these.
	Hosts []string `json:"hosts"`
	// HostsFile lists more, one per line (check --hosts-file).
	HostsFile string `json:"hostsFile"`
	// ArchiveDir is a pmlogger farm: each folder's latest archive.
	ArchiveDir string `json:"archiveDir"`
	// PMProxy reaches the bare hosts through this pmproxy.
	PMProxy string `json:"pmproxy"`
	// Concurrency and HostTimeout (seconds) as check's flags; defaults
	// 16 and 10.
	Concurrency int     `json:"concurrency"`
	HostTimeout float64 `json:"hostTimeout"`
}

func (f FleetSettings) active() bool {
	return len(f.Hosts) > 0 || f.HostsFile != "" || f.ArchiveDir != ""
}

// targets lists the fleet's hosts.
func (f FleetSettings) targets() ([]fleet.Target, error) {
	hosts := fleet.Hosts{List: f.Hosts, File: f.HostsFile, ArchiveDir: f.ArchiveDir, PMProxy: f.PMProxy}
	return hosts.Targets(fleet.HostsNames{List: "fleet.hosts", File: "fleet.hostsFile", ArchiveDir: "fleet.archiveDir"})
}

// fleetChecks keeps each document's latest fleet check. A check runs in
// the background, one at a time per document: edits made meanwhile are
// checked when it ends, so a slow fleet never queues up checks.
type fleetChecks struct {
	mu   sync.Mutex
	gen  int // bumped when the fleet settings change
	docs map[uri.URI]*fleetDoc
}

// fleetDoc is one document's fleet check. Its texts are compared by
// content (grammar.Text.Equal), not identity: an edit undone makes a new
// Text of the bytes res is for.
type fleetDoc struct {
	text    *grammar.Text // the text res is for
	res     *fleet.Result // nil until a check of text ends
	running bool
	next    *grammar.Text // text to check when the running check ends, or nil
	gen     int
}

// reset forgets every result: the fleet changed.
func (f *fleetChecks) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gen++
	f.docs = nil
}

// fleetTimeout bounds one fleet check as a whole.
const fleetTimeout = 5 * time.Minute

// fleetDiagnostics are a's fleet diagnostics when its text has been
// checked across the fleet; otherwise they start that check (the
// diagnostics are published again when it ends) and are empty.
func (s *server) fleetDiagnostics(snap *snapshot) []protocol.Diagnostic {
	u, st := snap.uri, snap.settings()
	if !st.Fleet.active() {
		return nil
	}
	f := &s.fleet
	f.mu.Lock()
	if f.docs == nil {
		f.docs = map[uri.URI]*fleetDoc{}
	}
	fd := f.docs[u]
	if fd == nil {
		fd = &fleetDoc{gen: f.gen}
		f.docs[u] = fd
	}
	switch {
	case fd.res != nil && fd.text.Equal(snap.text):
		res := fd.res
		f.mu.Unlock()
		return fleetDiagnosticsOf(res, snap.file)
	case fd.running:
		fd.next = snap.text
	default:
		fd.running, fd.next = true, nil
		go s.runFleet(u, fd, snap.text, snap.cfg)
	}
	f.mu.Unlock()
	return nil
}

// runFleet checks text across the fleet, stores the result and publishes
// the document's diagnostics again if the text is still the current one.
func (s *server) runFleet(u uri.URI, fd *fleetDoc, text *grammar.Text, cfg *config) {
	defer s.survive("fleet check of " + string(u))
	for {
		res, err := s.checkFleet(u, text, cfg)
		if err != nil {
			s.log.Warn("fleet check", zap.Error(err))
		}
		f := &s.fleet
		f.mu.Lock()
		if f.gen != fd.gen || f.docs[u] != fd {
			f.mu.Unlock()
			return // the fleet settings changed meanwhile
		}
		fd.text, fd.res = text, res
		if fd.next == nil || fd.next.Equal(text) {
			fd.running, fd.next = false, nil
			f.mu.Unlock()
			break
		}
		text, fd.next = fd.next, nil
		f.mu.Unlock()
	}
	s.docs.mu.Lock()
	d := s.docs.m[u]
	var gen int
	var snap *snapshot
	if d != nil && d.checked != nil && d.checked.text.Equal(text) {
		gen, snap = d.gen, d.checked
	}
	s.docs.mu.Unlock()
	if snap != nil {
		s.publish(u, gen, snap)
	}
}

func (s *server) checkFleet(u uri.URI, text *grammar.Text, cfg *config) (*fleet.Result, error) {
	st := cfg.settings
	targets, err := st.Fleet.targets()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(s.bg, fleetTimeout)
	defer cancel()
	indoms, rl := cfg.indoms, s.rulesFor(u)
	timeout := time.Duration(st.Fleet.HostTimeout * float64(time.Second))
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	// Each host's own release, unless one is asked for, and the
	// project's rules: decided as for the document's own analysis.
	return fleet.Check(ctx, []analysis.Input{analysis.BufferText(fileName(u), text)}, targets, fleet.Options{
		Concurrency: st.Fleet.Concurrency, HostTimeout: timeout, Version: st.versionRequest(),
		InDoms: indoms, Rules: rl, Getenv: s.opts.Getenv,
	}), nil
}

// fleetDiagnosticsOf turns a fleet result into diagnostics on file (the
// same text): one on each definition's name that does not work
// everywhere, an error when it works nowhere, and one at the top naming
// the hosts that could not be checked.
func fleetDiagnosticsOf(res *fleet.Result, file *grammar.File) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	defs := map[fleet.Definition]*grammar.Definition{}
	for _, d := range file.Definitions.All() {
		defs[fleet.Definition{Path: file.Path, Line: int(d.Range.Start.Line), Name: d.Name}] = d
	}
	for _, row := range res.Rows() {
		def := defs[row.Definition]
		if def == nil || row.Counts[fleet.Invalid]+row.Counts[fleet.Absent]+row.Counts[fleet.Masked] == 0 {
			continue
		}
		severity := protocol.DiagnosticSeverityWarning
		if row.Counts[fleet.Valid] == 0 {
			severity = protocol.DiagnosticSeverityError
		}
		code := codes.Semantic
	groups:
		for _, g := range row.Groups {
			if g.Class() == fleet.Valid {
				continue
			}
			for _, f := range g.Findings {
				if f.Severity <= grammar.SeverityWarning {
					code = f.Code
					break groups
				}
			}
		}
		out = append(out, protocol.Diagnostic{
			Range: toRange(file, def.NameRange), Severity: severity, Code: protocol.String(code),
			Source: protocol.NewOptional("pcp-derive-lsp fleet"), Message: protocol.String("fleet: " + row.Summary()),
		})
	}
	var down []string
	for _, h := range res.Hosts {
		if h.State != fleet.Checked {
			down = append(down, fmt.Sprintf("%s (%s: %s)", h.Name, h.State, h.Err))
		}
	}
	if len(down) > 0 {
		msg := fmt.Sprintf("fleet: %d of %d hosts not checked: %s", len(down), len(res.Hosts), down[0])
		if len(down) > 1 {
			msg += fmt.Sprintf(" and %d more", len(down)-1)
		}
		out = append(out, protocol.Diagnostic{
			Severity: protocol.DiagnosticSeverityInformation, Code: protocol.String(codes.HostUnreachable),
			Source: protocol.NewOptional("pcp-derive-lsp fleet"), Message: protocol.String(msg),
		})
	}
	return out
}
