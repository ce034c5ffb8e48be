package lsp

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/uri"
)

// TestFeatureRepliesFitMetaModel sends each request of issue #39's
// features over the wire, at every position of a document (CRLF lines
// and a character outside the BMP included) and across a workspace with
// a closed config, and checks each result against the LSP 3.17 meta
// model: the result type its request declares, no property it does not
// list. The capabilities the server advertises are checked too.
func TestFeatureRepliesFitMetaModel(t *testing.T) {
	mm := loadMetaModel(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "derived")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, "closed.conf"), []byte("disk.io.half = disk.io.total / 2\nbad = \n"), 0o644)
	text := "#control debug_syntax=0\r\n" +
		"disk.io.total = disk.dev.read + disk.dev.write\r\n" +
		"disk.io.total(oneline) = all I/O 😀\n" +
		"# pcp-derive-lsp: ignore[unknown-metric]\n" +
		"disk.io.x = rate(disk.io.total) * 2 + avg(disk.io.nope) + \\\n  matchinst(/sd😀/, disk.dev.read)\n" +
		"broken = (\n"
	docURI := uri.File(filepath.Join(root, "open.conf"))

	// The check itself finds departures.
	for _, bad := range []struct{ json, ty string }{
		{`{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "kind": 7}`, "DocumentHighlight"},
		{`{"range": {"start": {"line": 0, "character": -1}, "end": {"line": 0, "character": 1}}}`, "SelectionRange"},
		{`{"kind": "full"}`, "DocumentDiagnosticReport"},
		{`{"kind": "full", "items": [], "extra": 1}`, "DocumentDiagnosticReport"},
	} {
		v, err := decodeJSON([]byte(bad.json))
		if err != nil {
			t.Fatalf("%s: %v", bad.json, err)
		}
		if errs := mm.check(&metaType{Kind: "reference", Name: bad.ty}, v, bad.ty); len(errs) == 0 {
			t.Errorf("%s passes as a %s", bad.json, bad.ty)
		}
	}

	c := rawSession(t)
	checkReply := func(id int, method string, params any) json.RawMessage {
		t.Helper()
		c.send(id, method, params)
		m := c.reply(float64(id))
		if m.Error != nil {
			t.Fatalf("%s: error %d %s", method, m.Error.Code, m.Error.Message)
		}
		req := mm.requests[method]
		if req == nil || req.Result == nil {
			t.Fatalf("%s: not a request of the meta model", method)
		}
		v, err := decodeJSON(m.Result)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		for _, e := range mm.check(req.Result, v, method) {
			t.Errorf("%s", e)
		}
		return m.Result
	}
	init := checkReply(1, "initialize", map[string]any{
		"processId": nil, "rootUri": uri.File(dir),
		"capabilities":          map[string]any{"textDocument": map[string]any{"diagnostic": map[string]any{"relatedDocumentSupport": true}}},
		"initializationOptions": map[string]any{"source": map[string]any{"metadata": "embedded"}, "pcpVersion": "latest"},
		"workspaceFolders":      []any{map[string]any{"uri": uri.File(dir), "name": "w"}},
	})
	var caps struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	json.Unmarshal(init, &caps)
	for _, k := range []string{"documentHighlightProvider", "selectionRangeProvider", "callHierarchyProvider", "documentLinkProvider", "documentRangeFormattingProvider", "diagnosticProvider"} {
		if _, ok := caps.Capabilities[k]; !ok {
			t.Errorf("capability %s not advertised", k)
		}
	}
	var diag struct{ InterFileDependencies, WorkspaceDiagnostics bool }
	json.Unmarshal(caps.Capabilities["diagnosticProvider"], &diag)
	if !diag.InterFileDependencies || !diag.WorkspaceDiagnostics {
		t.Errorf("diagnosticProvider %s: want interFileDependencies and workspaceDiagnostics", caps.Capabilities["diagnosticProvider"])
	}
	c.send(nil, "initialized", map[string]any{})
	c.send(nil, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": docURI, "languageId": "pcp-derived", "version": 1, "text": text}})
	doc := map[string]any{"uri": docURI}
	id := 10
	next := func() int { id++; return id }
	if pulled := checkReply(next(), "textDocument/diagnostic", map[string]any{"textDocument": doc}); !bytes.Contains(pulled, []byte(`"relatedDocuments"`)) {
		t.Errorf("the document pull has no relatedDocuments (closed.conf beside it): %s", pulled)
	}
	checkReply(next(), "workspace/diagnostic", map[string]any{"previousResultIds": []any{}})
	checkReply(next(), "textDocument/documentLink", map[string]any{"textDocument": doc})
	checkReply(next(), "textDocument/rangeFormatting", map[string]any{"textDocument": doc, "options": map[string]any{"tabSize": 4, "insertSpaces": true},
		"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 9, "character": 0}}})
	calls := 0
	lines := bytes.Split([]byte(text), []byte("\n"))
	for line, l := range lines {
		for col := 0; col <= len(l)+1; col += 3 {
			pos := map[string]any{"line": line, "character": col}
			at := map[string]any{"textDocument": doc, "position": pos}
			checkReply(next(), "textDocument/documentHighlight", at)
			checkReply(next(), "textDocument/selectionRange", map[string]any{"textDocument": doc, "positions": []any{pos}})
			var items []json.RawMessage
			json.Unmarshal(checkReply(next(), "textDocument/prepareCallHierarchy", at), &items)
			calls += len(items)
			for _, it := range items {
				checkReply(next(), "callHierarchy/incomingCalls", map[string]any{"item": it})
				checkReply(next(), "callHierarchy/outgoingCalls", map[string]any{"item": it})
			}
		}
	}
	if calls == 0 {
		t.Error("no call hierarchy item at any position: incoming and outgoing calls were not checked")
	}
}
