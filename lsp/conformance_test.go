package lsp

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

// conformanceDocs are the documents the protocol test opens: plain,
// CRLF, mixed line endings (lone "\r"s among them), and text outside the BMP (two UTF-16 units
// per character) before the positions that matter.
var conformanceDocs = map[string]string{
	"file:///tmp/plain.conf": "# load\nm.a = kernel.all.load + no.such\nm.b = avg(m.a)\nm.c = rate(disk.dev.read) * 2\n",
	"file:///tmp/crlf.conf":  "# load\r\nm.a = kernel.all.load + no.such\r\nm.b = avg(m.a)\r\nm.c = rate(disk.dev.read) * 2\r\n",
	"file:///tmp/mixed.conf": "# load\r\nm.a = kernel.all.load\nm.b = avg(m.a)\r\nm.c   =   m.b+1\n",
	"file:///tmp/emoji.conf": "# 😀 dérivé 🚀\nm.e = kernel.all.load # 😀😀\nm.f = m.e + 1 # 🚀\nm.g = sample.long.one\n",
	// Lone "\r"s: libpcp reads on (one comment line, one definition
	// line each), the client ends a line at each.
	"file:///tmp/lonecr.conf": "# load\r# avg\rm.a = kernel.all.load +\r  no.such\nm.b = avg(m.a)\r\nm.c = m.b +\r 1\r",
	"file:///tmp/w.conf":      wedgeText,
}

// conformanceClient drives the server as one client profile and checks
// every message the server sends against the meta model.
type conformanceClient struct {
	t          *testing.T
	c          *rawClient
	m          *metaModel
	next       float64
	messages   int
	violations map[string]int // each violation, and how often
	diags      map[string]json.RawMessage
}

// call sends a request and reads until its answer, checking every
// message on the way and answering the server's own requests.
func (d *conformanceClient) call(method string, params any) message {
	d.t.Helper()
	d.next++
	id := d.next
	d.c.send(id, method, params)
	for {
		msg := d.c.read()
		d.checked(msg, method)
		switch {
		case msg.Method != "" && msg.ID != nil:
			d.answer(msg)
		case msg.Method == "textDocument/publishDiagnostics":
			var p struct {
				URI         string          `json:"uri"`
				Diagnostics json.RawMessage `json:"diagnostics"`
			}
			json.Unmarshal(msg.Params, &p)
			d.diags[p.URI] = p.Diagnostics
		case msg.Method == "":
			if f, ok := msg.ID.(float64); ok && f == id {
				return msg
			}
			d.t.Errorf("a response to %v, which was not asked", msg.ID)
		}
	}
}

func (d *conformanceClient) checked(msg message, method string) {
	d.messages++
	for _, v := range d.m.checkMessage(msg, msg.raw, method) {
		d.violations[v]++
	}
}

// answer answers a request of the server's as a client with no
// settings of ours would.
func (d *conformanceClient) answer(msg message) {
	result := "null"
	if msg.Method == "workspace/configuration" {
		var p struct{ Items []any }
		json.Unmarshal(msg.Params, &p)
		result = "[" + strings.TrimSuffix(strings.Repeat("null,", len(p.Items)), ",") + "]"
	}
	d.c.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, mustJSON(msg.ID), result))
}

func docID(u string) map[string]any { return map[string]any{"uri": u} }

func jpos(line, char int) map[string]any { return map[string]any{"line": line, "character": char} }

func jrange(l1, c1, l2, c2 int) map[string]any {
	return map[string]any{"start": jpos(l1, c1), "end": jpos(l2, c2)}
}

// lines16 splits text at \n, \r\n and \r, and measures each line in
// UTF-16 units, as LSP positions count.
func lines16(text string) []int {
	var out []int
	for text != "" {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			out = append(out, len(utf16.Encode([]rune(text))))
			break
		}
		out = append(out, len(utf16.Encode([]rune(text[:i]))))
		if strings.HasPrefix(text[i:], "\r\n") {
			i++
		}
		text = text[i+1:]
	}
	return append(out, 0)
}

// lspRequest is one request the protocol test sends.
type lspRequest struct {
	method string
	params any
}

// positionRequests are the requests at a position, by the server
// capability that advertises them.
var positionRequests = map[string]func(u string, line, char int) []lspRequest{
	"hoverProvider":             one("textDocument/hover", nil),
	"completionProvider":        one("textDocument/completion", nil),
	"signatureHelpProvider":     one("textDocument/signatureHelp", nil),
	"definitionProvider":        one("textDocument/definition", nil),
	"referencesProvider":        one("textDocument/references", map[string]any{"context": map[string]any{"includeDeclaration": true}}),
	"renameProvider":            one("textDocument/rename", map[string]any{"newName": "m.renamed"}),
	"documentHighlightProvider": one("textDocument/documentHighlight", nil),
	"callHierarchyProvider":     one("textDocument/prepareCallHierarchy", nil),
	"selectionRangeProvider": func(u string, line, char int) []lspRequest {
		return []lspRequest{{"textDocument/selectionRange", map[string]any{"textDocument": docID(u), "positions": []any{jpos(line, char)}}}}
	},
}

// one is the request of method at a position, with extra params.
func one(method string, extra map[string]any) func(u string, line, char int) []lspRequest {
	return func(u string, line, char int) []lspRequest {
		p := map[string]any{"textDocument": docID(u), "position": jpos(line, char)}
		for k, v := range extra {
			p[k] = v
		}
		return []lspRequest{{method, p}}
	}
}

// documentRequests are the requests about a whole document, by the
// server capability that advertises them.
var documentRequests = map[string]func(u string, n int) (string, any){
	"documentSymbolProvider": func(u string, _ int) (string, any) {
		return "textDocument/documentSymbol", map[string]any{"textDocument": docID(u)}
	},
	"documentFormattingProvider": func(u string, _ int) (string, any) {
		return "textDocument/formatting", map[string]any{"textDocument": docID(u), "options": map[string]any{"tabSize": 4, "insertSpaces": true}}
	},
	"documentRangeFormattingProvider": func(u string, n int) (string, any) {
		return "textDocument/rangeFormatting", map[string]any{"textDocument": docID(u), "range": jrange(0, 0, n, 0), "options": map[string]any{"tabSize": 4, "insertSpaces": true}}
	},
	"foldingRangeProvider": func(u string, _ int) (string, any) {
		return "textDocument/foldingRange", map[string]any{"textDocument": docID(u)}
	},
	"inlayHintProvider": func(u string, n int) (string, any) {
		return "textDocument/inlayHint", map[string]any{"textDocument": docID(u), "range": jrange(0, 0, n, 0)}
	},
	"codeLensProvider": func(u string, _ int) (string, any) {
		return "textDocument/codeLens", map[string]any{"textDocument": docID(u)}
	},
	"documentLinkProvider": func(u string, _ int) (string, any) {
		return "textDocument/documentLink", map[string]any{"textDocument": docID(u)}
	},
	"diagnosticProvider": func(u string, _ int) (string, any) {
		return "textDocument/diagnostic", map[string]any{"textDocument": docID(u)}
	},
	"semanticTokensProvider": func(u string, _ int) (string, any) {
		return "textDocument/semanticTokens/full", map[string]any{"textDocument": docID(u)}
	},
}

// otherCapabilities are advertised capabilities that are no request at
// a position or about a document, or that the test sends otherwise.
var otherCapabilities = []string{"textDocumentSync", "positionEncoding", "codeActionProvider", "executeCommandProvider", "workspaceSymbolProvider", "workspace"}

// TestProtocolConformance drives the server from initialize to exit as a
// VS Code-like client (its real initialize capabilities) and as a client
// that declares nothing: every advertised request at every position of
// plain, CRLF, mixed and non-BMP documents, ranged edits, every odd
// notification the server must survive. Every message the server sends
// must fit the LSP 3.17 meta model, and every request be answered.
func TestProtocolConformance(t *testing.T) {
	m := loadMetaModel(t)
	payload, err := os.ReadFile("testdata/initialize/vscode-1.86.1.json")
	if err != nil {
		t.Fatal(err)
	}
	var vscode struct{ Capabilities json.RawMessage }
	if err := json.Unmarshal(payload, &vscode); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		name string
		caps json.RawMessage
	}{{"vscode", vscode.Capabilities}, {"declares-nothing", json.RawMessage(`{}`)}} {
		t.Run(p.name, func(t *testing.T) {
			d := &conformanceClient{t: t, c: rawSession(t), m: m, violations: map[string]int{}, diags: map[string]json.RawMessage{}}
			d.run(p.caps)
			t.Logf("%d messages from the server checked", d.messages)
			var all []string
			for v, n := range d.violations {
				all = append(all, fmt.Sprintf("%s (%d times)", v, n))
			}
			slices.Sort(all)
			for i, v := range all {
				if i == 40 {
					t.Errorf("... and %d more", len(all)-i)
					break
				}
				t.Errorf("meta model violation: %s", v)
			}
		})
	}
}

func (d *conformanceClient) run(caps json.RawMessage) {
	t := d.t
	init := d.call("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": caps,
		"initializationOptions": map[string]any{"source": map[string]any{"metadata": "embedded"}}})
	if init.Error != nil {
		t.Fatalf("initialize: %+v", init.Error)
	}
	var res struct{ Capabilities map[string]json.RawMessage }
	json.Unmarshal(init.Result, &res)
	for k, v := range res.Capabilities {
		_, p := positionRequests[k]
		_, dr := documentRequests[k]
		if !p && !dr && !slices.Contains(otherCapabilities, k) {
			t.Errorf("the server advertises %s %s: the protocol test has no requests for it (add them)", k, v)
		}
	}
	advertised := func(k string) bool {
		v, ok := res.Capabilities[k]
		return ok && string(v) != "false" && string(v) != "null"
	}
	d.c.send(nil, "initialized", map[string]any{})
	uris := slices.Sorted(maps.Keys(conformanceDocs))
	for _, u := range uris {
		d.c.send(nil, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "pcp-derived", "version": 1, "text": conformanceDocs[u]}})
	}
	d.everyRequest(uris, advertised, 1)

	// Ranged edits: typing at the end of a line, a line break in the
	// CRLF document's own ending, a replacement across lines, an edit
	// after characters outside the BMP, edits after and across lone
	// "\r"s.
	edits := []struct {
		uri     string
		changes []any
	}{
		{"file:///tmp/plain.conf", []any{map[string]any{"range": jrange(1, 33, 1, 33), "text": " + 1"}, map[string]any{"range": jrange(2, 0, 3, 0), "text": ""}}},
		{"file:///tmp/crlf.conf", []any{map[string]any{"range": jrange(1, 33, 1, 33), "text": "\r\nm.x = m.a * 2"}, map[string]any{"range": jrange(0, 2, 0, 6), "text": "avg"}}},
		{"file:///tmp/mixed.conf", []any{map[string]any{"range": jrange(3, 0, 3, 16), "text": "m.c = m.b + 1"}, map[string]any{"range": jrange(1, 21, 2, 0), "text": "\r\n"}}},
		{"file:///tmp/emoji.conf", []any{map[string]any{"range": jrange(1, 26, 1, 26), "text": "🚀"}, map[string]any{"range": jrange(2, 13, 2, 18), "text": "# é"}}},
		{"file:///tmp/lonecr.conf", []any{map[string]any{"range": jrange(3, 2, 3, 9), "text": "sample.long.one"}, map[string]any{"range": jrange(1, 2, 2, 3), "text": "x\rm.z"}}},
	}
	for i, e := range edits {
		d.c.send(nil, "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": e.uri, "version": 2 + i}, "contentChanges": e.changes})
	}
	d.everyRequest(uris, advertised, 3)

	// Every odd notification, each followed by a request that must be
	// answered.
	for _, o := range oddNotifications {
		d.c.sendRaw(o.body)
		h := d.call("textDocument/hover", map[string]any{"textDocument": docID("file:///tmp/w.conf"), "position": jpos(0, 8)})
		if h.Error != nil || !strings.Contains(string(h.Result), "kernel.all.load") {
			t.Errorf("hover after %s: %+v %s", o.name, h.Error, h.Result)
		}
	}
	if m := d.call("shutdown", nil); m.Error != nil {
		t.Errorf("shutdown: %+v", m.Error)
	}
	d.c.send(nil, "exit", nil)
}

// everyRequest sends every advertised request about every document: at
// every stride-th position of each line (and past its end), then the
// document-wide ones, code actions per line, workspace symbols and
// commands.
func (d *conformanceClient) everyRequest(uris []string, advertised func(string) bool, stride int) {
	t := d.t
	answer := func(method string, params any) message {
		t.Helper()
		m := d.call(method, params)
		if m.Error != nil && m.Error.Code != -32803 { // RequestFailed: a refused rename
			t.Errorf("%s %s: %+v", method, mustJSON(params), m.Error)
		}
		return m
	}
	for _, u := range uris {
		lines := lines16(conformanceDocs[u])
		for line, n := range lines {
			for char := 0; char <= n+1; char += stride {
				for _, k := range slices.Sorted(maps.Keys(positionRequests)) {
					if !advertised(k) {
						continue
					}
					for _, r := range positionRequests[k](u, line, char) {
						m := answer(r.method, r.params)
						if r.method == "textDocument/rename" {
							answer("textDocument/prepareRename", map[string]any{"textDocument": docID(u), "position": jpos(line, char)})
						}
						if r.method == "textDocument/completion" && advertised("completionProvider") {
							d.resolveSome(m)
						}
					}
				}
			}
			if advertised("codeActionProvider") {
				diags := d.diags[u]
				if diags == nil {
					diags = json.RawMessage("[]")
				}
				answer("textDocument/codeAction", map[string]any{"textDocument": docID(u), "range": jrange(line, 0, line, n),
					"context": map[string]any{"diagnostics": diags}})
			}
		}
		for _, k := range slices.Sorted(maps.Keys(documentRequests)) {
			if advertised(k) {
				method, params := documentRequests[k](u, len(lines))
				answer(method, params)
			}
		}
		if advertised("executeCommandProvider") {
			for _, cmd := range []string{cmdPreview, cmdExplain} {
				answer("workspace/executeCommand", map[string]any{"command": cmd, "arguments": []any{map[string]any{"textDocument": docID(u), "position": jpos(1, 2)}}})
			}
		}
	}
	if advertised("workspaceSymbolProvider") {
		for _, q := range []string{"", "m", "m.a", "zzz"} {
			answer("workspace/symbol", map[string]any{"query": q})
		}
	}
}

// resolveSome resolves the first items of a completion answer.
func (d *conformanceClient) resolveSome(m message) {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	var items []json.RawMessage
	if json.Unmarshal(m.Result, &items) != nil {
		json.Unmarshal(m.Result, &list)
		items = list.Items
	}
	for _, it := range items[:min(len(items), 2)] {
		if r := d.call("completionItem/resolve", it); r.Error != nil {
			d.t.Errorf("completionItem/resolve %s: %+v", it, r.Error)
		}
	}
}
