package lsp

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// checkpoint opens the session's text in a fresh server and compares
// the two servers' last publications, their answers about the whole
// document and those at a few places (probes), and checks the places in
// the session's (checkPlaces, checkTokens).
func (s *soakSession) checkpoint(t *testing.T) {
	t.Helper()
	fresh := startSoak(t, s.settings)
	defer fresh.stop()
	published := s.complete(t, s.main)
	fresh.DidOpen(fresh.ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: s.u, LanguageID: "pcp-derived", Version: s.version, Text: s.ed.doc.String()}})
	fromFresh := s.complete(t, fresh)
	if !encodesAlike(t, "diagnostics", published, fromFresh) {
		s.failAt(t, "the diagnostics of version %d differ from a fresh server's", s.version)
	}
	s.checkPlaces(t, "diagnostics", published)
	for i, p := range s.probes() {
		s.compareAnswers(t, fresh, p, i < 3)
	}
	for _, d := range s.someFindings(published) {
		s.compare(t, fresh, fmt.Sprintf("codeAction at %v", d.Range), func(srv *soakServer) answer {
			r, err := srv.CodeAction(srv.ctx, &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.u}, Range: d.Range, Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{d}}})
			return answer{r, err}
		})
	}
	s.checkFormatting(t, fresh)
	got, want := s.wholeAnswers(s.main), s.wholeAnswers(fresh)
	for _, what := range slices.Sorted(maps.Keys(got)) {
		if !encodesAlike(t, what, got[what], want[what]) {
			s.failAt(t, "%s of version %d differs from a fresh server's", what, s.version)
		}
		s.checkPlaces(t, what, got[what])
	}
	for _, what := range []string{"documentSymbol", "inlayHint"} {
		if raw, _ := json.Marshal(got[what]); strings.Contains(string(raw), `\r`) {
			s.failAt(t, "%s of version %d holds a \"\\r\" (a line's ending read as part of it)", what, s.version)
		}
	}
	if tokens, ok := got["semanticTokens"].Result.(*protocol.SemanticTokens); ok {
		s.checkTokens(t, tokens)
	}
	s.logShape(t, fresh)
}

// wholeAnswers are srv's answers about the whole document, by request.
func (s *soakSession) wholeAnswers(srv *soakServer) map[string]answer {
	doc := protocol.TextDocumentIdentifier{URI: s.u}
	out := map[string]answer{}
	symbols, err := srv.DocumentSymbol(srv.ctx, &protocol.DocumentSymbolParams{TextDocument: doc})
	out["documentSymbol"] = answer{symbols, err}
	tokens, err := srv.SemanticTokensFull(srv.ctx, &protocol.SemanticTokensParams{TextDocument: doc})
	out["semanticTokens"] = answer{tokens, err}
	last := len(s.ed.doc.lines) - 1
	hints, err := srv.InlayHint(srv.ctx, &protocol.InlayHintParams{TextDocument: doc, Range: protocol.Range{End: lc(last, s.ed.doc.width(last))}})
	out["inlayHint"] = answer{hints, err}
	folds, err := srv.FoldingRanges(srv.ctx, &protocol.FoldingRangeParams{TextDocument: doc})
	out["foldingRange"] = answer{folds, err}
	links, err := srv.DocumentLink(srv.ctx, &protocol.DocumentLinkParams{TextDocument: doc})
	out["documentLink"] = answer{links, err}
	return out
}

// checkTokens fails t when a semantic token of the session's server
// starts or ends where no client can place it (soakText.check): tokens
// are counted in UTF-16 units, each on one line.
func (s *soakSession) checkTokens(t *testing.T, tokens *protocol.SemanticTokens) {
	t.Helper()
	var line, char uint32
	for d := tokens.Data; len(d) >= 5; d = d[5:] {
		if d[0] > 0 {
			line, char = line+d[0], 0
		}
		char += d[1]
		for _, p := range []protocol.Position{lc(int(line), char), lc(int(line), char+d[2])} {
			if err := s.ed.doc.check(p); err != nil {
				s.failAt(t, "a semantic token of version %d: %v", s.version, err)
			}
		}
	}
}

// answer is a request's result or error, compared as JSON.
type answer struct {
	Result any
	Err    error
}

func (a answer) MarshalJSON() ([]byte, error) {
	if a.Err != nil {
		return json.Marshal(map[string]string{"error": a.Err.Error()})
	}
	return json.Marshal(a.Result)
}

// probes are the places a checkpoint asks about: a metric's use in a
// soak.use line, the name of a definition, and a few places anywhere.
func (s *soakSession) probes() []protocol.Position {
	var out []protocol.Position
	for _, use := range []func() (protocol.Position, bool){s.useOfMetric, s.useAfterWide} {
		if p, ok := use(); ok {
			out = append(out, p)
		}
	}
	for range 4 {
		p := s.ed.pos()
		out = append(out, p, protocol.Position{Line: p.Line, Character: s.ed.doc.col16(int(p.Line), runeStart(s.ed.doc.line(int(p.Line)), 2))})
	}
	return out
}

// compareAnswers compares hover, definition, references,
// documentHighlight and selectionRange at p, and when deep completion
// and signatureHelp too.
func (s *soakSession) compareAnswers(t *testing.T, fresh *soakServer, p protocol.Position, deep bool) {
	t.Helper()
	at := s.posParams(p)
	asks := map[string]func(srv *soakServer) answer{
		"hover": func(srv *soakServer) answer {
			r, err := srv.Hover(srv.ctx, &protocol.HoverParams{TextDocumentPositionParams: at})
			return answer{r, err}
		},
		"definition": func(srv *soakServer) answer {
			r, err := srv.Definition(srv.ctx, &protocol.DefinitionParams{TextDocumentPositionParams: at})
			return answer{r, err}
		},
		"references": func(srv *soakServer) answer {
			r, err := srv.References(srv.ctx, &protocol.ReferenceParams{TextDocumentPositionParams: at, Context: protocol.ReferenceContext{IncludeDeclaration: true}})
			return answer{r, err}
		},
		"documentHighlight": func(srv *soakServer) answer {
			r, err := srv.DocumentHighlight(srv.ctx, &protocol.DocumentHighlightParams{TextDocumentPositionParams: at})
			return answer{r, err}
		},
		"selectionRange": func(srv *soakServer) answer {
			r, err := srv.SelectionRange(srv.ctx, &protocol.SelectionRangeParams{TextDocument: at.TextDocument, Positions: []protocol.Position{p}})
			return answer{r, err}
		},
	}
	if deep {
		asks["completion"] = func(srv *soakServer) answer {
			r, err := srv.Completion(srv.ctx, &protocol.CompletionParams{TextDocumentPositionParams: at})
			return answer{r, err}
		}
		asks["signatureHelp"] = func(srv *soakServer) answer {
			r, err := srv.SignatureHelp(srv.ctx, &protocol.SignatureHelpParams{TextDocumentPositionParams: at})
			return answer{r, err}
		}
	}
	for _, what := range slices.Sorted(maps.Keys(asks)) {
		s.compare(t, fresh, fmt.Sprintf("%s at %d:%d", what, p.Line, p.Character), asks[what])
	}
}

// compare compares the session's server's answer to ask with a fresh
// one's, checks its places, and returns it.
func (s *soakSession) compare(t *testing.T, fresh *soakServer, what string, ask func(*soakServer) answer) answer {
	t.Helper()
	got := ask(s.main)
	if !encodesAlike(t, what, got, ask(fresh)) {
		s.failAt(t, "%s of version %d differs from a fresh server's", what, s.version)
	}
	s.checkPlaces(t, what, got)
	return got
}

// checkFormatting compares Format Document's edits with a fresh server's
// and fails t when one writes a continuation before "\r\n" (libpcp reads
// the backslash as an illegal character) or, applied, they write a line
// ending the document does not use (one kind of ending stays that kind;
// a mix keeps to its kinds).
func (s *soakSession) checkFormatting(t *testing.T, fresh *soakServer) {
	t.Helper()
	got := s.compare(t, fresh, "formatting", func(srv *soakServer) answer {
		r, err := srv.Formatting(srv.ctx, &protocol.DocumentFormattingParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.u}})
		return answer{r, err}
	})
	edits, _ := got.Result.([]protocol.TextEdit)
	for _, e := range edits {
		if strings.Contains(e.NewText, "\\\r") {
			s.failAt(t, "Format Document of version %d writes a continuation libpcp does not read (a backslash before \"\\r\"): %q", s.version, e.NewText)
		}
	}
	formatted := &soakText{lines: slices.Clone(s.ed.doc.lines)}
	slices.SortFunc(edits, func(a, b protocol.TextEdit) int { return comparePos(b.Range.Start, a.Range.Start) })
	for _, e := range edits {
		formatted.apply(soakEdit{rng: e.Range, text: e.NewText})
	}
	endings := func(d *soakText) map[string]bool {
		out := map[string]bool{}
		for l := range len(d.lines) - 1 {
			out[d.eol(l)] = true
		}
		return out
	}
	had, has := endings(s.ed.doc), endings(formatted)
	for eol := range has {
		if !had[eol] {
			s.failAt(t, "Format Document of version %d (%d edits) writes %q line endings in a document of %q", s.version, len(edits), eol, slices.Sorted(maps.Keys(had)))
		}
	}
}

// someFindings are up to three of the findings published: the first on
// a line with characters outside ASCII, and two at random.
func (s *soakSession) someFindings(published []protocol.Diagnostic) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	for _, d := range published {
		if l := int(d.Range.Start.Line); l < len(s.ed.doc.lines) && wide(s.ed.doc.line(l)) {
			out = append(out, d)
			break
		}
	}
	for range min(2, len(published)) {
		out = append(out, published[s.ed.rnd.IntN(len(published))])
	}
	return out
}

// checkPlaces fails t when an answer of the session's server about its
// document holds a position no client can hold in it (soakText.check):
// a column counting a line's ending, or splitting a character.
func (s *soakSession) checkPlaces(t *testing.T, what string, answer any) {
	t.Helper()
	raw, err := json.Marshal(answer)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			if u, ok := v["uri"].(string); ok && u != string(s.u) {
				return // another document's place
			}
			line, isLine := v["line"].(float64)
			char, isChar := v["character"].(float64)
			if isLine && isChar {
				if err := s.ed.doc.check(lc(int(line), uint32(char))); err != nil {
					s.failAt(t, "%s of version %d: %v", what, s.version, err)
				}
				return
			}
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(tree)
}

// complete waits for the server's complete analysis of the latest version
// and returns its publication (a syntax-only one may come first).
func (s *soakSession) complete(t *testing.T, srv *soakServer) []protocol.Diagnostic {
	t.Helper()
	// Published: the server has read the version's notification.
	srv.pubs.awaitVersion(t, s.u, s.version)
	snap := srv.inner.current(srv.ctx, s.u)
	switch {
	case snap == nil:
		t.Fatalf("no analysis of version %d", s.version)
	case snap.version != s.version || snap.report == nil:
		t.Fatalf("the analysis of version %d is of version %d (checked: %t)", s.version, snap.version, snap.report != nil)
	}
	return srv.pubs.await(t, s.u, s.version, len(diagnostics(snap, "")))
}

func (s *soakSession) failAt(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Errorf(format, args...)
	t.Fatalf("the latest edits:\n%s", strings.Join(s.history, "\n"))
}

// encodesAlike says whether a and b encode alike, logging the first place
// they differ when not.
func encodesAlike(t *testing.T, what string, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if string(ja) == string(jb) {
		return true
	}
	i := 0
	for i < min(len(ja), len(jb)) && ja[i] == jb[i] {
		i++
	}
	from := max(0, i-300)
	t.Logf("%s differs at byte %d:\n session: %s\n   fresh: %s", what, i, ja[from:min(len(ja), i+300)], jb[from:min(len(jb), i+300)])
	return false
}
