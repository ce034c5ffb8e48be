package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/golden"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/txtar"
)

// TestMarkers runs every testdata/*.txtar: config files (*.conf; the
// first one, config.conf, is the document the commands address; a "path"
// section opens it at that path under the root instead), settings
// (settings.json, optional), commands (want) and their expected output
// (golden, rewritten by -update). A comment line "# ^name" puts marker
// name at the column of "^" on the line above. Commands: diag, hover M,
// complete M [N], signature M, inlay, symbols, wsymbols [Q], format,
// action M, definition M, references M, prepare M, rename M NEW,
// folding, tokens, lens, preview M, cycle (wait for the preview to
// publish an empty-now finding), explain M (times of day become HH:MM:SS
// there and in hovers); and those of markers_more_test.go. Sections
// closed/NAME are written to the folder as NAME and not opened.
func TestMarkers(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) < 3 {
		t.Fatalf("only %d marker tests", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ar, order := readArchiveOrdered(t, path)
			if strings.Contains(ar["settings.json"], "127.0.0.1") && os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
				t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
			}
			dir := t.TempDir()
			root := filepath.Join(dir, "derived")
			os.MkdirAll(root, 0o755)
			for _, name := range order { // configs on disk, never opened
				if rest, ok := strings.CutPrefix(name, "closed/"); ok {
					if err := os.WriteFile(filepath.Join(root, rest), []byte(ar[name]), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			srv, rec, ctx := sessionIn(t, strings.TrimSpace(ar["settings.json"]), dir)
			docs := map[string]uri.URI{}
			for _, name := range order {
				if !strings.HasSuffix(name, ".conf") || strings.HasPrefix(name, "closed/") {
					continue
				}
				file := filepath.Join(root, name)
				if p := strings.TrimSpace(ar["path"]); p != "" && name == "config.conf" {
					// The document's kind is told by its path (a pcp-htop meter).
					file = filepath.Join(root, filepath.FromSlash(p))
				}
				u := uri.File(file)
				docs[name] = u
				srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "pcp-derived", Version: 1, Text: ar[name]}})
				rec.wait(t, u)
			}
			u := docs["config.conf"]
			waitForScan(t, ctx, srv, root, order)
			r := &markerRun{t: t, srv: srv, ctx: ctx, u: u, marks: markerPos(ar["config.conf"]), diags: rec.latest(u), base: root, rec: rec}
			var out strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(ar["want"]), "\n") {
				if line = strings.TrimSpace(line); line == "" {
					continue
				}
				fmt.Fprintf(&out, "> %s\n", line)
				for _, l := range r.run(strings.Fields(line)) {
					fmt.Fprintf(&out, "%s\n", l)
				}
			}
			if golden.Update() {
				writeGolden(t, path, out.String())
				return
			}
			if got, want := out.String(), ar["golden"]; got != want {
				t.Errorf("output differs from the golden section (run go test ./lsp -run TestMarkers -update if this is right):\n%s", lineDiff(want, got))
			}
		})
	}
}

type markerRun struct {
	t     *testing.T
	srv   protocol.Server
	ctx   context.Context
	u     uri.URI
	marks map[string]protocol.Position
	diags []protocol.Diagnostic
	base  string
	rec   *recorder
}

// clockTimes are times of day in output that depends on when it ran.
var clockTimes = regexp.MustCompile(`\b\d\d:\d\d:\d\d(\.\d+)?\b`)

func (r *markerRun) pos(m string) protocol.TextDocumentPositionParams {
	p, ok := r.marks[m]
	if !ok {
		r.t.Fatalf("no marker %q", m)
	}
	return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: r.u}, Position: p}
}

func (r *markerRun) doc() protocol.TextDocumentIdentifier {
	return protocol.TextDocumentIdentifier{URI: r.u}
}

func rng(x protocol.Range) string {
	return fmt.Sprintf("%d:%d-%d:%d", x.Start.Line+1, x.Start.Character, x.End.Line+1, x.End.Character)
}

func (r *markerRun) loc(l protocol.Location) string {
	rel, _ := filepath.Rel(r.base, l.URI.FsPath())
	return rel + ":" + rng(l.Range)
}

func errLine(err error) []string { return []string{"error: " + err.Error()} }

// run executes one command and renders its answer as lines.
func (r *markerRun) run(f []string) []string {
	ctx, srv := r.ctx, r.srv
	arg := func(i int) string {
		if i >= len(f) {
			r.t.Fatalf("%v: missing argument", f)
		}
		return f[i]
	}
	var out []string
	switch f[0] {
	case "diag":
		for _, d := range r.diags {
			sev := map[protocol.DiagnosticSeverity]string{1: "error", 2: "warning", 3: "info", 4: "hint"}[d.Severity]
			out = append(out, fmt.Sprintf("%s %s %v: %v", rng(d.Range), sev, d.Code, d.Message))
			for _, ri := range d.RelatedInformation {
				out = append(out, fmt.Sprintf("  related %s: %s", rng(ri.Location.Range), ri.Message))
			}
		}
	case "hover":
		h, err := srv.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: r.pos(arg(1))})
		switch {
		case err != nil:
			return errLine(err)
		case h == nil:
			return []string{"(none)"}
		}
		out = append(out, "range "+rng(*h.Range))
		value := clockTimes.ReplaceAllString(h.Contents.(*protocol.MarkupContent).Value, "HH:MM:SS")
		out = append(out, strings.Split(strings.TrimRight(value, "\n"), "\n")...)
	case "complete":
		n := 15
		if len(f) > 2 {
			n, _ = strconv.Atoi(f[2])
		}
		res, err := srv.Completion(ctx, &protocol.CompletionParams{TextDocumentPositionParams: r.pos(arg(1))})
		if err != nil {
			return errLine(err)
		}
		l, _ := res.(*protocol.CompletionList)
		if l == nil {
			return []string{"(none)"}
		}
		out = append(out, fmt.Sprintf("%d items, incomplete %v", len(l.Items), l.IsIncomplete))
		for i, it := range l.Items {
			if i == n {
				break
			}
			line := fmt.Sprintf("%s [%v]", it.Label, it.Kind)
			if d, ok := it.Detail.Get(); ok {
				line += " " + d
			}
			if te, ok := it.TextEdit.(*protocol.TextEdit); ok {
				line += fmt.Sprintf(" => %q at %s", te.NewText, rng(te.Range))
			}
			out = append(out, line)
		}
	case "resolve":
		res, err := srv.Completion(ctx, &protocol.CompletionParams{TextDocumentPositionParams: r.pos(arg(1))})
		if err != nil {
			return errLine(err)
		}
		l, _ := res.(*protocol.CompletionList)
		for _, it := range l.Items {
			if len(it.Data) == 0 {
				continue
			}
			item, err := srv.CompletionResolve(ctx, &it)
			if err != nil {
				return errLine(err)
			}
			doc := "(no documentation)"
			if m, ok := item.Documentation.(*protocol.MarkupContent); ok {
				doc = strings.SplitN(m.Value, "\n", 2)[0]
			}
			out = append(out, it.Label+": "+doc)
		}
	case "signature":
		h, err := srv.SignatureHelp(ctx, &protocol.SignatureHelpParams{TextDocumentPositionParams: r.pos(arg(1))})
		switch {
		case err != nil:
			return errLine(err)
		case h == nil:
			return []string{"(none)"}
		}
		active, _ := h.ActiveParameter.Get()
		out = append(out, fmt.Sprintf("%s (parameter %d)", h.Signatures[0].Label, active))
	case "inlay":
		hints, err := srv.InlayHint(ctx, &protocol.InlayHintParams{TextDocument: r.doc(), Range: protocol.Range{End: protocol.Position{Line: 1 << 20}}})
		if err != nil {
			return errLine(err)
		}
		for _, h := range hints {
			out = append(out, fmt.Sprintf("%d:%d %v", h.Position.Line+1, h.Position.Character, h.Label))
		}
	case "symbols":
		res, err := srv.DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: r.doc()})
		if err != nil {
			return errLine(err)
		}
		syms, _ := res.(protocol.DocumentSymbolSlice)
		for _, s := range syms {
			out = append(out, fmt.Sprintf("%s %s", s.Name, rng(s.SelectionRange)))
			var nested func(cs []protocol.DocumentSymbol, indent string)
			nested = func(cs []protocol.DocumentSymbol, indent string) {
				for _, c := range cs {
					line := fmt.Sprintf("%s%s %s", indent, c.Name, rng(c.Range))
					if c.Detail != nil {
						line += " " + strconv.Quote(*c.Detail)
					}
					out = append(out, line)
					nested(c.Children, indent+"  ")
				}
			}
			nested(s.Children, "  ")
		}
	case "wsymbols":
		q := ""
		if len(f) > 1 {
			q = f[1]
		}
		res, err := srv.Symbols(ctx, &protocol.WorkspaceSymbolParams{Query: q})
		if err != nil {
			return errLine(err)
		}
		switch syms := res.(type) {
		case protocol.WorkspaceSymbolSlice:
			for _, s := range syms {
				out = append(out, s.Name+" "+r.loc(*s.Location.(*protocol.Location)))
			}
		case protocol.SymbolInformationSlice: // how a client decodes the union
			for _, s := range syms {
				out = append(out, s.Name+" "+r.loc(s.Location))
			}
		default:
			out = append(out, fmt.Sprintf("(unexpected %T)", res))
		}
	case "format":
		edits, err := srv.Formatting(ctx, &protocol.DocumentFormattingParams{TextDocument: r.doc()})
		if err != nil {
			return errLine(err)
		}
		for _, e := range edits {
			out = append(out, fmt.Sprintf("%s %q", rng(e.Range), e.NewText))
		}
	case "action":
		p := r.pos(arg(1)).Position
		acts, err := srv.CodeAction(ctx, &protocol.CodeActionParams{TextDocument: r.doc(), Range: protocol.Range{Start: p, End: p}})
		if err != nil {
			return errLine(err)
		}
		for _, a := range acts {
			if ca, ok := a.(*protocol.CodeAction); ok {
				out = append(out, ca.Title)
				if ca.Edit == nil {
					out = append(out, "  command "+ca.Command.Command)
					continue
				}
				for _, edits := range ca.Edit.Changes {
					for _, e := range edits {
						out = append(out, fmt.Sprintf("  %s %q", rng(e.Range), e.NewText))
					}
				}
			}
		}
	case "definition":
		res, err := srv.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: r.pos(arg(1))})
		if err != nil {
			return errLine(err)
		}
		switch l := res.(type) {
		case *protocol.Location:
			out = append(out, r.loc(*l))
		case protocol.LocationSlice:
			for _, x := range l {
				out = append(out, r.loc(x))
			}
		default:
			out = append(out, "(none)")
		}
	case "references":
		locs, err := srv.References(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: r.pos(arg(1)), Context: protocol.ReferenceContext{IncludeDeclaration: true}})
		if err != nil {
			return errLine(err)
		}
		for _, l := range locs {
			out = append(out, r.loc(l))
		}
	case "prepare":
		res, err := srv.PrepareRename(ctx, &protocol.PrepareRenameParams{TextDocumentPositionParams: r.pos(arg(1))})
		if err != nil {
			return errLine(err)
		}
		if p, ok := res.(*protocol.PrepareRenamePlaceholder); ok {
			out = append(out, fmt.Sprintf("%s %s", rng(p.Range), p.Placeholder))
		}
	case "rename":
		edit, err := srv.Rename(ctx, &protocol.RenameParams{TextDocumentPositionParams: r.pos(arg(1)), NewName: arg(2)})
		if err != nil {
			return errLine(err)
		}
		for u, edits := range edit.Changes {
			for _, e := range edits {
				out = append(out, fmt.Sprintf("%s %q", r.loc(protocol.Location{URI: u, Range: e.Range}), e.NewText))
			}
		}
		sort.Strings(out)
	case "folding":
		frs, err := srv.FoldingRanges(ctx, &protocol.FoldingRangeParams{TextDocument: r.doc()})
		if err != nil {
			return errLine(err)
		}
		for _, fr := range frs {
			out = append(out, fmt.Sprintf("%d-%d %s", fr.StartLine+1, fr.EndLine+1, fr.Kind))
		}
	case "tokens":
		toks, err := srv.SemanticTokensFull(ctx, &protocol.SemanticTokensParams{TextDocument: r.doc()})
		if err != nil {
			return errLine(err)
		}
		line, col := 0, 0
		for i := 0; i+4 < len(toks.Data); i += 5 {
			d := toks.Data[i : i+5]
			if d[0] > 0 {
				line, col = line+int(d[0]), int(d[1])
			} else {
				col += int(d[1])
			}
			var mods []string
			for b, m := range tokenModifiers {
				if d[4]&(1<<b) != 0 {
					mods = append(mods, m)
				}
			}
			out = append(out, fmt.Sprintf("%d:%d+%d %s %s", line+1, col, d[2], tokenTypes[d[3]], strings.Join(mods, ",")))
		}
	case "lens":
		lenses, err := srv.CodeLens(ctx, &protocol.CodeLensParams{TextDocument: r.doc()})
		if err != nil {
			return errLine(err)
		}
		for _, l := range lenses {
			out = append(out, fmt.Sprintf("%s %s %s", rng(l.Range), l.Command.Title, l.Command.Command))
		}
	case "preview":
		p := r.pos(arg(1))
		params, _ := json.Marshal(previewParams{TextDocument: p.TextDocument, Position: p.Position})
		var res PreviewResult
		raw, err := r.srv.Request(ctx, "pcp/preview", protocol.LSPAny(params))
		if err == nil {
			b, _ := json.Marshal(raw) // the client decodes results generically
			err = json.Unmarshal(b, &res)
		}
		if err != nil {
			return errLine(err)
		}
		out = append(out, res.Text)
		if res.Metadata != "" {
			out = append(out, res.Metadata)
		}
	case "cycle":
		deadline := time.After(15 * time.Second)
		for !hasCode(r.diags, emptyNowCode) {
			select {
			case got := <-r.rec.ch:
				if got == r.u {
					r.diags = r.rec.latest(r.u)
				}
			case <-deadline:
				r.t.Fatal("the preview published no empty-now finding")
			}
		}
	case "explain":
		p := r.pos(arg(1))
		params, _ := json.Marshal(explainParams{TextDocument: p.TextDocument, Position: p.Position})
		raw, err := srv.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: cmdExplain, Arguments: []protocol.LSPAny{params}})
		var res ExplainResult
		if err == nil {
			b, _ := json.Marshal(raw)
			err = json.Unmarshal(b, &res)
		}
		if err != nil {
			return errLine(err)
		}
		md := clockTimes.ReplaceAllString(res.Markdown, "HH:MM:SS")
		out = append(out, strings.Split(strings.TrimRight(md, "\n"), "\n")...)
		if res.Error == "" && !json.Valid(res.Explanation) {
			out = append(out, "(the explanation is not JSON)")
		}
	default:
		if lines, ok := r.runMore(f); ok {
			return lines
		}
		r.t.Fatalf("unknown command %q", f[0])
	}
	return out
}

// readArchiveOrdered reads a txtar file's sections by name, and their
// names in order.
func readArchiveOrdered(t *testing.T, path string) (map[string]string, []string) {
	a, err := txtar.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return a.Map(), a.Names()
}

// writeGolden replaces (or adds) the golden section of a txtar file.
func writeGolden(t *testing.T, path, golden string) {
	if err := txtar.ReplaceLast(path, "golden", golden); err != nil {
		t.Fatal(err)
	}
}

// lineDiff shows the first lines where two texts differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 12; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}
