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
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// DiagnosticWorkspace answers a pull of the findings of the workspace's
// configs that are not open (an open one's come with its own pull): each
// directory holding any is analysed as one config path (pulldiag.go
// says why), again only when one of its files or open documents changed.
func (s *server) DiagnosticWorkspace(ctx context.Context, params *protocol.WorkspaceDiagnosticParams) (*protocol.WorkspaceDiagnosticReport, error) {
	ctx, cancel := detach(ctx)
	defer cancel()
	open := s.openDocs()
	previous := map[uri.URI]string{}
	for _, p := range params.PreviousResultIds {
		previous[p.URI] = p.Value
	}
	// The directories of the closed configs the scan found, and of the
	// open documents (whose closed neighbours their edits can break).
	dirs := map[string]bool{}
	for _, wf := range s.workspace.closedFiles(open) { // (not snapshot: it would index the open documents)
		if wf.uri.Scheme() == "file" {
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
		if da == nil {
			break // out of time: what the client has stays
		}
		for _, u := range da.order {
			reported[u] = true
			report.Items = append(report.Items, workspaceItem(u, da.id, da.findings[u], previous[u]))
		}
	}
	// A config the client was told about that is gone (deleted, or
	// opened meanwhile): an empty report clears what it shows.
	for u := range previous {
		if !reported[u] && !open[u] && ctx.Err() == nil {
			report.Items = append(report.Items, workspaceItem(u, 0, nil, ""))
		}
	}
	return report, nil
}

// openDocs are the open documents.
func (s *server) openDocs() map[uri.URI]bool {
	open := map[uri.URI]bool{}
	for _, u := range s.docs.uris() {
		open[u] = true
	}
	return open
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
	if da := s.analyseDir(ctx, filepath.Dir(u.FsPath()), s.openDocs()); da != nil && da.findings[u] != nil {
		return da.findings[u]
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
	// files is what it read of the closed configs (sizes and times), the
	// configuration and the rules; seen the names the closed configs
	// mention; open what the closed configs see of the open documents
	// (openPrint over seen). A change of any is a new analysis.
	files, open string
	seen        []string
	id          uint64 // its result id, the same for every file of it
	order       []uri.URI
	findings    map[uri.URI][]protocol.Diagnostic // the closed configs'
}

// dirMember is a config of a directory: a file, or an open document.
type dirMember struct {
	path string
	u    uri.URI
	snap *snapshot // an open document's latest parse, nil for a file
}

// analyseDir analyses the configs of dir (as the workspace scan finds
// configs: isConfigPath) as one config path in libpcp's order, open
// documents by their latest text; the findings of the closed ones are
// kept. The last analysis is reused while nothing it read changed; an
// open document counts only by what the closed configs can see of it, so
// typing in it elsewhere costs no new analysis. nil when ctx ended first.
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
	var members []dirMember
	var total int64 // bytes of the files read
	var files strings.Builder
	fmt.Fprintf(&files, "%p %v|", cfg, down)
	for _, name := range sortedSet(names) {
		path := filepath.Join(dir, name)
		if !isConfigPath(path) || len(members) >= maxScannedFiles {
			continue
		}
		m := dirMember{path: path, u: uri.File(path)}
		if open[m.u] {
			if m.snap = s.parsed(ctx, m.u); m.snap == nil {
				continue // closed meanwhile
			}
			fmt.Fprintf(&files, "%s open|", path)
		} else {
			info, err := os.Stat(path) // follows a link, as libpcp does
			if err != nil || !info.Mode().IsRegular() || total+info.Size() > maxScannedTotal {
				continue // (the scan's bound on the bytes read applies to each directory)
			}
			total += info.Size()
			fmt.Fprintf(&files, "%s %d %d|", path, info.Size(), info.ModTime().UnixNano())
		}
		members = append(members, m)
	}
	var ac analysis.Config
	if len(members) > 0 {
		ac = analysis.Config{Version: cfg.pcp, Source: cfg.source, InDoms: cfg.indoms, DerivedControl: cfg.derivedControl, Rules: s.rulesFor(members[0].u), MaxPerCode: analysis.DefaultMaxPerCode}
		fmt.Fprintf(&files, "%v", ac.Rules)
	}
	if down {
		ac.Source = nil // syntax only until the source answers again, as for the open documents
	}
	c := s.dirDiags
	c.mu.Lock()
	prev := c.dirs[dir]
	c.mu.Unlock()
	if prev != nil && prev.files == files.String() && prev.open == openPrints(members, prev.seen) {
		return prev
	}

	var inputs []analysis.Input
	for _, m := range members {
		if m.snap != nil {
			inputs = append(inputs, analysis.BufferText(m.path, m.snap.text))
		} else {
			inputs = append(inputs, analysis.ReadInputs([]string{m.path}, nil, analysis.DefaultMaxSize)...)
		}
	}
	da := &dirAnalysis{files: files.String(), findings: map[uri.URI][]protocol.Diagnostic{}}
	for _, m := range members {
		if m.snap == nil {
			da.order = append(da.order, m.u)
			da.findings[m.u] = []protocol.Diagnostic{}
		}
	}
	if len(inputs) > 0 {
		res := analysis.Run(ctx, inputs, ac, analysis.Options{})
		if ctx.Err() != nil {
			return nil // cancelled: nothing to report, nor to keep
		}
		mentioned := map[string]bool{}
		for _, f := range res.Files {
			u := uri.File(f.File.Path)
			if _, closed := da.findings[u]; !closed {
				continue
			}
			for g := range f.Findings.All() {
				da.findings[u] = append(da.findings[u], toProtocolDiagnostic(u, f.File, *g, s.opts.DocsURL))
			}
			mentionNames(f.File, mentioned)
		}
		da.seen = sortedSet(mentioned)
	}
	da.open = openPrints(members, da.seen)
	c.mu.Lock()
	c.next++
	da.id = c.next
	c.dirs[dir] = da
	c.mu.Unlock()
	return da
}

// mentionNames adds the names f defines or uses to set.
func mentionNames(f *grammar.File, set map[string]bool) {
	for _, d := range f.Definitions.All() {
		set[d.Name] = true
		for _, t := range d.Tokens() {
			if t.Kind == grammar.TokName {
				set[t.Value(d.Expr)] = true
			}
		}
	}
	for _, at := range f.Attributes {
		set[at.Metric] = true
	}
}

// openPrints are the open members' openPrint, in order.
func openPrints(members []dirMember, seen []string) string {
	var b strings.Builder
	for _, m := range members {
		if m.snap != nil {
			b.WriteString(m.path)
			b.WriteString(openPrint(m.snap, seen))
		}
	}
	return b.String()
}

// openPrint is what the configs after an open document in a config path
// can see of it, as far as names go: for each name they mention, the
// definition it registers and the attribute lines of it applied (by
// identity: an edit elsewhere keeps them, as the incremental parse
// shares unchanged definitions), and the lexer and #control state it
// leaves. An edit that changes none of them changes no finding of theirs.
func openPrint(snap *snapshot, seen []string) string {
	f := snap.file
	var b strings.Builder
	fmt.Fprintf(&b, "(%v %v", f.Leak, f.OptionNovalue != nil && *f.OptionNovalue)
	for _, name := range seen {
		def, attrs := f.Registration(name)
		fmt.Fprintf(&b, " %p", def)
		for _, at := range attrs {
			fmt.Fprintf(&b, ",%p", at)
		}
	}
	b.WriteString(")")
	return b.String()
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
