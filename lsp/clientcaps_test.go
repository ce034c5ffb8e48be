package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// capsClient is a session as one client profile, with one document open.
type capsClient struct {
	*rawClient
	init   json.RawMessage // the initialize result
	nextID float64
}

// vscodeCaps are VS Code 1.86's real client capabilities.
func vscodeCaps(t *testing.T) json.RawMessage {
	t.Helper()
	payload, err := os.ReadFile("testdata/initialize/vscode-1.86.1.json")
	if err != nil {
		t.Fatal(err)
	}
	var p struct{ Capabilities json.RawMessage }
	if err := json.Unmarshal(payload, &p); err != nil {
		t.Fatal(err)
	}
	return p.Capabilities
}

// capsProfiles are the two client profiles every capability is tested
// with: VS Code, and a client that declares nothing.
func capsProfiles(t *testing.T) map[string]json.RawMessage {
	return map[string]json.RawMessage{"vscode": vscodeCaps(t), "nothing": json.RawMessage(`{}`)}
}

func capsSession(t *testing.T, caps json.RawMessage, text string) *capsClient {
	t.Helper()
	c := &capsClient{rawClient: rawSession(t), nextID: 1}
	c.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":%s,"initializationOptions":{"source":{"metadata":"embedded"}}}}`, caps))
	m := c.reply(1)
	if m.Error != nil {
		t.Fatalf("initialize: %+v", m.Error)
	}
	c.init = m.Result
	c.send(nil, "initialized", map[string]any{})
	c.send(nil, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file:///tmp/caps.conf", "languageId": "pcp-derived", "version": 1, "text": text}})
	// No wait for diagnostics: a client that declares pull diagnostics
	// (VS Code does) gets none pushed; each request waits for the
	// analysis it needs.
	return c
}

// ask sends a request about the open document and returns its result.
func (c *capsClient) ask(method string, params map[string]any) json.RawMessage {
	c.t.Helper()
	c.nextID++
	params["textDocument"] = docID("file:///tmp/caps.conf")
	c.send(c.nextID, method, params)
	m := c.reply(c.nextID)
	if m.Error != nil {
		c.t.Fatalf("%s: %+v", method, m.Error)
	}
	return m.Result
}

func atPos(line, char int) map[string]any { return map[string]any{"position": jpos(line, char)} }

type completionJSON struct {
	Items []struct {
		Label            string                   `json:"label"`
		Kind             int                      `json:"kind"`
		InsertTextFormat int                      `json:"insertTextFormat"`
		InsertText       string                   `json:"insertText"`
		TextEdit         struct{ NewText string } `json:"textEdit"`
		Documentation    json.RawMessage          `json:"documentation"`
		Data             json.RawMessage          `json:"data"`
	} `json:"items"`
}

// snippetQuery is a completion item asked at a position, as a client
// with snippets and one without get it.
type snippetQuery struct {
	line, char int
	label      string
	snippet    string // as VS Code gets it
	plain      string
}

// TestCapSnippets: snippets (avg($1), a pmrep spec word's "label = $0")
// only to a client with completion.completionItem.snippetSupport; plain
// insert text otherwise.
func TestCapSnippets(t *testing.T) {
	docs := []struct {
		text    string
		queries []snippetQuery
	}{
		{"m.x = av\nm.y = mkconst(1, \n", []snippetQuery{{0, 8, "avg", "avg($1)", "avg()"}, {1, 17, "type=", "type=${1|32,u32,64,u64,float,double|}", "type="}}},
		{"[s]\nutil = my.util\nutil.la\n", []snippetQuery{{2, 7, "label", "label = $0", "label = "}}},
	}
	for name, caps := range capsProfiles(t) {
		for _, doc := range docs {
			testCapSnippets(t, name, caps, doc.text, doc.queries)
		}
	}
}

func testCapSnippets(t *testing.T, name string, caps json.RawMessage, text string, queries []snippetQuery) {
	t.Run(name, func(t *testing.T) {
		c := capsSession(t, caps, text)
		for _, q := range queries {
			var list completionJSON
			json.Unmarshal(c.ask("textDocument/completion", atPos(q.line, q.char)), &list)
			found := false
			for _, it := range list.Items {
				if name == "nothing" && (it.InsertTextFormat == 2 || strings.Contains(it.TextEdit.NewText+it.InsertText, "$")) {
					t.Errorf("a snippet to a client without snippetSupport: %+v", it)
				}
				if it.Label != q.label {
					continue
				}
				found = true
				want, format := q.snippet, 2
				if name == "nothing" {
					want, format = q.plain, 0
				}
				if it.TextEdit.NewText != want || it.InsertTextFormat != format {
					t.Errorf("%s: inserts %q (format %d), want %q (format %d)", q.label, it.TextEdit.NewText, it.InsertTextFormat, want, format)
				}
			}
			if !found {
				t.Errorf("no %s among %d items", q.label, len(list.Items))
			}
		}
	})
}

type markupJSON struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

// TestCapHoverMarkdown: markdown hovers only to a client that lists
// markdown in hover.contentFormat; plain text otherwise.
func TestCapHoverMarkdown(t *testing.T) {
	for name, caps := range capsProfiles(t) {
		t.Run(name, func(t *testing.T) {
			c := capsSession(t, caps, "m.a = avg(kernel.all.load)\nm.b = m.a + 1\n")
			for _, p := range [][2]int{{0, 8}, {0, 14}, {1, 7}, {1, 0}} {
				var h struct{ Contents markupJSON }
				json.Unmarshal(c.ask("textDocument/hover", atPos(p[0], p[1])), &h)
				want := "markdown"
				if name == "nothing" {
					want = "plaintext"
					if strings.Contains(h.Contents.Value, "```") || strings.Contains(h.Contents.Value, "**") {
						t.Errorf("hover at %v: markdown in plain text: %q", p, h.Contents.Value)
					}
				}
				if h.Contents.Kind != want || h.Contents.Value == "" {
					t.Errorf("hover at %v: %+v, want %s", p, h.Contents, want)
				}
			}
		})
	}
}

// TestCapCompletionDocMarkdown: a resolved item's documentation is
// markdown only to a client listing it in completionItem.documentationFormat.
func TestCapCompletionDocMarkdown(t *testing.T) {
	for name, caps := range capsProfiles(t) {
		t.Run(name, func(t *testing.T) {
			c := capsSession(t, caps, "m.a = disk.dev.total_by\n")
			var list completionJSON
			json.Unmarshal(c.ask("textDocument/completion", atPos(0, 23)), &list)
			if len(list.Items) == 0 || list.Items[0].Data == nil {
				t.Fatalf("no metric item to resolve: %+v", list.Items)
			}
			c.nextID++
			var item map[string]any
			raw, _ := json.Marshal(list.Items[0])
			json.Unmarshal(raw, &item)
			item["data"] = list.Items[0].Data
			c.send(c.nextID, "completionItem/resolve", item)
			m := c.reply(c.nextID)
			var res struct{ Documentation json.RawMessage }
			json.Unmarshal(m.Result, &res)
			var mk markupJSON
			var plain string
			switch {
			case json.Unmarshal(res.Documentation, &plain) == nil:
				if name == "vscode" {
					t.Errorf("documentation as a plain string to a client reading markdown: %q", plain)
				}
			case json.Unmarshal(res.Documentation, &mk) == nil && mk.Value != "":
				if name == "nothing" && mk.Kind != "plaintext" || name == "vscode" && mk.Kind != "markdown" {
					t.Errorf("documentation %+v", mk)
				}
			default:
				t.Errorf("no documentation: %s", m.Result)
			}
		})
	}
}

// TestCapSignatureHelpDocs: signature help documentation is never
// markdown to a client that did not list it in
// signatureInformation.documentationFormat.
func TestCapSignatureHelpDocs(t *testing.T) {
	for name, caps := range capsProfiles(t) {
		t.Run(name, func(t *testing.T) {
			c := capsSession(t, caps, "m.a = avg(kernel.all.load)\n")
			var sh struct {
				Signatures []struct {
					Label         string
					Documentation json.RawMessage
				}
			}
			json.Unmarshal(c.ask("textDocument/signatureHelp", atPos(0, 12)), &sh)
			if len(sh.Signatures) != 1 || sh.Signatures[0].Label != "avg(metric)" {
				t.Fatalf("signature help: %+v", sh)
			}
			var mk markupJSON
			if json.Unmarshal(sh.Signatures[0].Documentation, &mk) == nil && mk.Kind == "markdown" && name == "nothing" {
				t.Errorf("markdown documentation: %+v", mk)
			}
		})
	}
}

// TestCapCodeActionLiterals: CodeAction literals only to a client with
// codeActionLiteralSupport; Commands otherwise, a quick fix's edit then
// applied through workspace/applyEdit when the client takes it.
func TestCapCodeActionLiterals(t *testing.T) {
	profiles := capsProfiles(t)
	profiles["commands+applyEdit"] = json.RawMessage(`{"workspace":{"applyEdit":true}}`)
	for name, caps := range profiles {
		t.Run(name, func(t *testing.T) {
			c := capsSession(t, caps, "m.a = kernel.all.lod\n")
			var actions []map[string]json.RawMessage
			json.Unmarshal(c.ask("textDocument/codeAction", map[string]any{"range": jrange(0, 6, 0, 6), "context": map[string]any{"diagnostics": []any{}}}), &actions)
			var fix map[string]json.RawMessage
			for _, a := range actions {
				if strings.Contains(string(a["title"]), "kernel.all.load") {
					fix = a
				}
				_, literal := a["edit"]
				_, kind := a["kind"]
				var cmd string
				isCommand := json.Unmarshal(a["command"], &cmd) == nil
				switch {
				case name == "vscode" && isCommand:
					t.Errorf("a Command where literals are read: %v", a)
				case name != "vscode" && (literal || kind || !isCommand):
					t.Errorf("a CodeAction literal to a client without codeActionLiteralSupport: %v", a)
				}
			}
			switch name {
			case "vscode":
				if fix == nil || !strings.Contains(string(fix["edit"]), "kernel.all.load") {
					t.Errorf("no quick fix literal: %v", actions)
				}
			case "nothing":
				if fix != nil {
					t.Errorf("a quick fix as a command to a client that applies no edits: %v", fix)
				}
			default:
				if fix == nil || string(fix["command"]) != `"`+cmdApplyFix+`"` {
					t.Fatalf("no quick fix command: %v", actions)
				}
				c.nextID++
				c.send(c.nextID, "workspace/executeCommand", map[string]any{"command": cmdApplyFix, "arguments": fix["arguments"]})
				for {
					m := c.read()
					if m.Method == "workspace/applyEdit" {
						if !strings.Contains(string(m.Params), `"newText":"kernel.all.load"`) {
							t.Errorf("applyEdit: %s", m.Params)
						}
						c.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"applied":true}}`, mustJSON(m.ID)))
						continue
					}
					if id, ok := m.ID.(float64); ok && id == c.nextID && m.Method == "" {
						if m.Error != nil {
							t.Errorf("executeCommand: %+v", m.Error)
						}
						break
					}
				}
			}
		})
	}
}

// TestCapHierarchicalSymbols: DocumentSymbol trees only to a client with
// hierarchicalDocumentSymbolSupport; SymbolInformation[] otherwise, each
// attribute in its metric.
func TestCapHierarchicalSymbols(t *testing.T) {
	for name, caps := range capsProfiles(t) {
		t.Run(name, func(t *testing.T) {
			c := capsSession(t, caps, "m.a = kernel.all.load\nm.a(oneline) = \"load\"\n")
			res := c.ask("textDocument/documentSymbol", map[string]any{})
			var syms []struct {
				Name          string
				Kind          int
				ContainerName string
				Location      *struct{ URI string }
				Children      []struct{ Name string }
			}
			json.Unmarshal(res, &syms)
			if name == "vscode" {
				if len(syms) != 1 || len(syms[0].Children) != 1 || syms[0].Location != nil {
					t.Errorf("symbol tree: %s", res)
				}
				return
			}
			if len(syms) != 2 || syms[0].Location == nil || syms[1].Name != "oneline" || syms[1].ContainerName != "m.a" || syms[0].Children != nil {
				t.Errorf("flat symbols: %s", res)
			}
		})
	}
}

// TestCapCompletionKinds: completion kinds only within the client's
// value set, the 3.0 base set (1-18) when it declares none.
func TestCapCompletionKinds(t *testing.T) {
	for name, caps := range capsProfiles(t) {
		t.Run(name, func(t *testing.T) {
			c := capsSession(t, caps, "m.y = mkconst(1, type=\nm.z = k\n")
			kinds := map[int]bool{}
			for _, p := range [][2]int{{0, 22}, {1, 7}} {
				var list completionJSON
				json.Unmarshal(c.ask("textDocument/completion", atPos(p[0], p[1])), &list)
				for _, it := range list.Items {
					kinds[it.Kind] = true
					if name == "nothing" && it.Kind > 18 {
						t.Errorf("kind %d outside the 3.0 base set: %s", it.Kind, it.Label)
					}
				}
			}
			// EnumMember (20) for type values; Value (12) without it.
			want := 20
			if name == "nothing" {
				want = 12
			}
			if !kinds[want] {
				t.Errorf("kinds %v lack %d", kinds, want)
			}
		})
	}
}

// TestCapSymbolKinds: symbol kinds only within the client's value set.
func TestCapSymbolKinds(t *testing.T) {
	profiles := capsProfiles(t)
	profiles["functions only"] = json.RawMessage(`{"textDocument":{"documentSymbol":{"symbolKind":{"valueSet":[12]}}},"workspace":{"symbol":{"symbolKind":{"valueSet":[12]}}}}`)
	for name, caps := range profiles {
		t.Run(name, func(t *testing.T) {
			c := capsSession(t, caps, "m.a = kernel.all.load\nm.a(oneline) = \"load\"\n")
			res := string(c.ask("textDocument/documentSymbol", map[string]any{}))
			c.nextID++
			c.send(c.nextID, "workspace/symbol", map[string]any{"query": ""})
			res += string(c.reply(c.nextID).Result)
			switch name {
			case "functions only":
				if strings.Contains(res, `"kind":13`) || strings.Contains(res, `"kind":7`) || !strings.Contains(res, `"kind":12`) {
					t.Errorf("kinds outside [12]: %s", res)
				}
			default:
				if !strings.Contains(res, `"kind":13`) || !strings.Contains(res, `"kind":7`) {
					t.Errorf("symbols: %s", res)
				}
			}
		})
	}
}

// TestCapPrepareRename: prepareProvider only to a client with
// rename.prepareSupport.
func TestCapPrepareRename(t *testing.T) {
	for name, caps := range capsProfiles(t) {
		t.Run(name, func(t *testing.T) {
			c := capsSession(t, caps, "m.a = 1\n")
			var res struct {
				Capabilities struct{ RenameProvider json.RawMessage }
			}
			json.Unmarshal(c.init, &res)
			want := `{"prepareProvider":true}`
			if name == "nothing" {
				want = `true`
			}
			if string(res.Capabilities.RenameProvider) != want {
				t.Errorf("renameProvider %s, want %s", res.Capabilities.RenameProvider, want)
			}
		})
	}
}

// TestPlainText: the markdown the server writes, as plain text.
func TestPlainText(t *testing.T) {
	tests := []struct{ md, want string }{
		{"```\navg(metric)\n```\nAverage of `x`.", "avg(metric)\nAverage of x."},
		{"**disk.dev.read** — PMID 60.0.4", "disk.dev.read — PMID 60.0.4"},
		{"_metadata: embedded_", "metadata: embedded"},
		{"see [pmval(1)](https://man7.org/pmval.1.html)", "see pmval(1) (https://man7.org/pmval.1.html)"},
		{`a\_b and snake_case_name`, "a_b and snake_case_name"},
		{"x * y * z", "x * y * z"},
	}
	for _, tt := range tests {
		if got := plainText(tt.md); got != tt.want {
			t.Errorf("plainText(%q) = %q, want %q", tt.md, got, tt.want)
		}
	}
}

// TestCapDiagnostics: a published diagnostic's tags only as declared in
// publishDiagnostics.tagSupport, its code's page only with
// codeDescriptionSupport.
func TestCapDiagnostics(t *testing.T) {
	for name, caps := range capsProfiles(t) {
		t.Run(name, func(t *testing.T) {
			// No pull diagnostics: both profiles are pushed to.
			var c map[string]any
			json.Unmarshal(caps, &c)
			if td, ok := c["textDocument"].(map[string]any); ok {
				delete(td, "diagnostic")
			}
			raw, _ := json.Marshal(c)
			cl := capsSession(t, raw, "m.a = 1\nm.a = 2\n")
			var diags []struct {
				Code            string
				Tags            []int
				CodeDescription *struct{ Href string }
			}
			for len(diags) == 0 {
				m := cl.notification("textDocument/publishDiagnostics")
				var p struct{ Diagnostics json.RawMessage }
				json.Unmarshal(m.Params, &p)
				json.Unmarshal(p.Diagnostics, &diags)
			}
			for _, d := range diags {
				if d.Code != "duplicate-name" {
					continue
				}
				declared := name == "vscode"
				if got := len(d.Tags) == 1 && d.CodeDescription != nil; got != declared {
					t.Errorf("tags %v, code page %v, to a client declaring them: %v", d.Tags, d.CodeDescription, declared)
				}
				if !declared && (d.Tags != nil || d.CodeDescription != nil) {
					t.Errorf("undeclared parts sent: %+v", d)
				}
				return
			}
			t.Fatalf("no duplicate-name finding: %+v", diags)
		})
	}
}

// TestDiagnosticRelatedInformation: related information goes to a client
// that reads it as such, to others as lines of the message.
func TestDiagnosticRelatedInformation(t *testing.T) {
	related := func() protocol.Diagnostic {
		return protocol.Diagnostic{Message: protocol.String("m.a is defined twice"), RelatedInformation: []protocol.DiagnosticRelatedInformation{{
			Location: protocol.Location{URI: "file:///tmp/a.conf", Range: protocol.Range{Start: protocol.Position{Line: 2}}},
			Message:  "first defined here"}}}
	}
	d := related()
	clientCaps{diagRelated: true}.diagnostic(&d)
	if len(d.RelatedInformation) != 1 || d.Message != protocol.String("m.a is defined twice") {
		t.Errorf("to a client reading it: %+v", d)
	}
	d = related()
	clientCaps{}.diagnostic(&d)
	if d.RelatedInformation != nil || d.Message != protocol.String("m.a is defined twice\n/tmp/a.conf:3: first defined here") {
		t.Errorf("to a client not reading it: %+v", d)
	}
}
