package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
)

// DiagnosticWorkspace answers a pull of the findings of the workspace's
// configs that are not open (an open one's come with its own pull): each
// directory holding any is analysed as one config path (pulldiag.go
// says why), again only when one of its files or open documents changed.
func (s *server) DiagnosticWorkspace(ctx context.Context, params *protocol.WorkspaceDiagnosticParams) (*protocol.WorkspaceDiagnosticReport, error) {
	ctx, cancel := detach(ctx)
	defer cancel()
	open := map[uri.URI]bool{}
	for _, u := range s.docs.uris() {
		open[u] = true
	}
	previous := map[uri.URI]string{}
	for _, p := range params.PreviousResultIds {
		previous[p.URI] = p.Value
	}
	// The directories of the closed configs the scan found, and of the
	// open documents (whose closed neighbours their edits can break).
	dirs := map[string]bool{}
	for _, wf := range s.workspace.snapshot() {
		if wf.uri.Scheme() == "file" && !open[wf.uri] {
			dirs[filepath.Dir(wf.uri.FsPath())] = true
		}
	}
	for u := range open {
		if u.Scheme() == "file" {
			dirs[filepath.Dir(u.FsPath())] = true
		}
	}
	report := &protocol.WorkspaceDiagnosticReport{Items: []protocol.WorkspaceDocumentDiagnosticReport{}}
	reported := map[uri.URI]bool{}
	for _, dir := range sortedSet(dirs) {
		if ctx.Err() != nil {
			break
		}
		da := s.analyseDir(ctx, dir, open)
		for _, u := range da.order {
			reported[u] = true
			report.Items = append(report.Items, workspaceItem(u, da.id, da.files[u], previous[u]))
		}
	}
	// A config the client was told about that is gone (deleted, or
	// opened meanwhile): an empty report clears what it shows.
	for u := range previous {
		if !reported[u] && !open[u] {
			report.Items = append(report.Items, workspaceItem(u, 0, nil, ""))
		}
	}
	return report, nil
}

// workspaceItem is one closed config's report: "unchanged" when the
// client has result id id already.
func workspaceItem(u uri.URI, id uint64, items []protocol.Diagnostic, previous string) protocol.WorkspaceDocumentDiagnosticReport {
	rid := "w" + strconv.FormatUint(id, 10)
	if id != 0 && previous == rid {
		return &protocol.WorkspaceUnchangedDocumentDiagnosticReport{URI: u,
			UnchangedDocumentDiagnosticReport: protocol.UnchangedDocumentDiagnosticReport{Kind: "unchanged", ResultID: rid}}
	}
	if items == nil {
		items = []protocol.Diagnostic{}
	}
	return &protocol.WorkspaceFullDocumentDiagnosticReport{URI: u,
		FullDocumentDiagnosticReport: protocol.FullDocumentDiagnosticReport{Kind: "full", ResultID: &rid, Items: items}}
}

// closedFindings are the findings of a config that is not open, from its
// directory's analysis (a document pull of a closed file).
func (s *server) closedFindings(ctx context.Context, u uri.URI) []protocol.Diagnostic {
	ctx, cancel := detach(ctx)
	defer cancel()
	if u.Scheme() != "file" {
		return []protocol.Diagnostic{}
	}
	open := map[uri.URI]bool{}
	for _, o := range s.docs.uris() {
		open[o] = true
	}
	if items := s.analyseDir(ctx, filepath.Dir(u.FsPath()), open).files[u]; items != nil {
		return items
	}
	return []protocol.Diagnostic{}
}

// dirDiagnostics caches the analyses of the workspace's directories.
type dirDiagnostics struct {
	mu   sync.Mutex
	dirs map[string]*dirAnalysis
	next uint64 // the last result id given
}

func newDirDiagnostics() *dirDiagnostics { return &dirDiagnostics{dirs: map[string]*dirAnalysis{}} }

// dirAnalysis is one analysis of a directory's configs.
type dirAnalysis struct {
	key   string // what it read: each file's size and time, each open document's version
	id    uint64 // its result id, the same for every file of it
	order []uri.URI
	files map[uri.URI][]protocol.Diagnostic // the closed configs' findings
}

// analyseDir analyses the configs of dir (as the workspace scan finds
// configs: isConfigPath) as one config path in libpcp's order, open
// documents by their latest text; the findings of the closed ones are
// kept. The last analysis is reused while nothing it read changed.
func (s *server) analyseDir(ctx context.Context, dir string, open map[uri.URI]bool) *dirAnalysis {
	// The directory's files, and open documents in it not saved yet.
	names := map[string]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() {
			names[e.Name()] = true
		}
	}
	for u := range open {
		if u.Scheme() == "file" && filepath.Dir(u.FsPath()) == dir {
			names[filepath.Base(u.FsPath())] = true
		}
	}
	cfg := s.session.config()
	down := s.session.down()
	type member struct {
		path string
		u    uri.URI
		snap *snapshot // an open document's latest parse, nil for a file
	}
	var members []member
	var total int64 // bytes of the files read
	var key strings.Builder
	fmt.Fprintf(&key, "%p %v|", cfg, down)
	for _, name := range sortedSet(names) {
		path := filepath.Join(dir, name)
		if !isConfigPath(path) || len(members) >= maxScannedFiles {
			continue
		}
		m := member{path: path, u: uri.File(path)}
		if open[m.u] {
			if m.snap = s.parsed(ctx, m.u); m.snap == nil {
				continue // closed meanwhile
			}
			fmt.Fprintf(&key, "%s %d %d|", path, m.snap.version, m.snap.seq)
		} else {
			info, err := os.Stat(path) // follows a link, as libpcp does
			if err != nil || !info.Mode().IsRegular() || total+info.Size() > maxScannedTotal {
				continue // (the scan's bound on the bytes read applies to each directory)
			}
			total += info.Size()
			fmt.Fprintf(&key, "%s %d %d|", path, info.Size(), info.ModTime().UnixNano())
		}
		members = append(members, m)
	}
	var ac analysis.Config
	if len(members) > 0 {
		ac = analysis.Config{Version: cfg.pcp, Source: cfg.source, InDoms: cfg.indoms, Rules: s.rulesFor(members[0].u), MaxPerCode: analysis.DefaultMaxPerCode}
		fmt.Fprintf(&key, "%v", ac.Rules)
	}
	if down {
		ac.Source = nil // syntax only until the source answers again, as for the open documents
	}
	c := s.dirDiags
	c.mu.Lock()
	if da := c.dirs[dir]; da != nil && da.key == key.String() {
		c.mu.Unlock()
		return da
	}
	c.mu.Unlock()

	var inputs []analysis.Input
	for _, m := range members {
		if m.snap != nil {
			inputs = append(inputs, analysis.BufferText(m.path, m.snap.text))
		} else {
			inputs = append(inputs, analysis.ReadInputs([]string{m.path}, nil, analysis.DefaultMaxSize)...)
		}
	}
	da := &dirAnalysis{key: key.String(), files: map[uri.URI][]protocol.Diagnostic{}}
	for _, m := range members {
		if m.snap == nil {
			da.order = append(da.order, m.u)
			da.files[m.u] = []protocol.Diagnostic{}
		}
	}
	if len(inputs) > 0 {
		res := analysis.Run(ctx, inputs, ac, analysis.Options{})
		if ctx.Err() != nil {
			return da // cancelled: not kept, nor a result id given
		}
		for _, f := range res.Files {
			u := uri.File(f.File.Path)
			if _, closed := da.files[u]; !closed {
				continue
			}
			for g := range f.Findings.All() {
				da.files[u] = append(da.files[u], toProtocolDiagnostic(u, *g, s.opts.DocsURL))
			}
		}
	}
	c.mu.Lock()
	c.next++
	da.id = c.next
	c.dirs[dir] = da
	c.mu.Unlock()
	return da
}

// sortedSet are a set's members in order.
func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
