package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"go.lsp.dev/uri"
)

// shapeModel is the LSP 3.17 meta model (Microsoft's
// vscode-languageserver-node shapeModel.json), as far as checking the
// shape of a result needs it.
type shapeModel struct {
	Requests []struct {
		Method string     `json:"method"`
		Result *shapeType `json:"result"`
	} `json:"requests"`
	Structures []struct {
		Name       string          `json:"name"`
		Properties []shapeProperty `json:"properties"`
		Extends    []shapeType     `json:"extends"`
		Mixins     []shapeType     `json:"mixins"`
	} `json:"structures"`
	Enumerations []struct {
		Name   string    `json:"name"`
		Type   shapeType `json:"type"`
		Values []struct {
			Value any `json:"value"`
		} `json:"values"`
		SupportsCustomValues bool `json:"supportsCustomValues"`
	} `json:"enumerations"`
	TypeAliases []struct {
		Name string    `json:"name"`
		Type shapeType `json:"type"`
	} `json:"typeAliases"`
}

type shapeProperty struct {
	Name     string    `json:"name"`
	Type     shapeType `json:"type"`
	Optional bool      `json:"optional"`
}

type shapeType struct {
	Kind    string          `json:"kind"`
	Name    string          `json:"name"`
	Element *shapeType      `json:"element"`
	Key     *shapeType      `json:"key"`
	Value   json.RawMessage `json:"value"` // a map's value type, a literal's structure, a string literal
	Items   []shapeType     `json:"items"`
}

func loadShapeModel(t *testing.T) *shapeModel {
	// In shared/lsp beside the repository (as in CI), or beside a
	// directory above it (a worktree); an error, not a skip, when absent.
	dir, _ := os.Getwd()
	var b []byte
	err := os.ErrNotExist
	for d := filepath.Dir(dir); err != nil && d != filepath.Dir(d); d = filepath.Dir(d) {
		b, err = os.ReadFile(filepath.Join(filepath.Dir(d), "shared", "lsp", "metaModel-3.17.json"))
	}
	if err != nil {
		t.Fatalf("the LSP meta model (../shared/lsp/metaModel-3.17.json beside the repository): %v", err)
	}
	var m shapeModel
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return &m
}

// resultType is the declared result of a request.
func (m *shapeModel) resultType(method string) *shapeType {
	for _, r := range m.Requests {
		if r.Method == method {
			return r.Result
		}
	}
	return nil
}

// check lists how v (decoded with UseNumber) departs from type ty;
// unknown properties of a structure are departures too.
func (m *shapeModel) check(v any, ty shapeType, path string) []string {
	bad := func(format string, args ...any) []string { return []string{path + ": " + fmt.Sprintf(format, args...)} }
	switch ty.Kind {
	case "base":
		ok := false
		switch ty.Name {
		case "string", "URI", "DocumentUri", "RegExp":
			_, ok = v.(string)
		case "boolean":
			_, ok = v.(bool)
		case "null":
			ok = v == nil
		case "integer", "uinteger", "decimal":
			if n, isNum := v.(json.Number); isNum {
				ok = true
				if ty.Name != "decimal" {
					i, err := n.Int64()
					ok = err == nil && (ty.Name == "integer" || i >= 0)
				}
			}
		}
		if !ok {
			return bad("%v is not a %s", v, ty.Name)
		}
		return nil
	case "array":
		a, ok := v.([]any)
		if !ok {
			return bad("not an array")
		}
		var out []string
		for i, e := range a {
			out = append(out, m.check(e, *ty.Element, fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	case "map":
		o, ok := v.(map[string]any)
		if !ok {
			return bad("not an object")
		}
		var val shapeType
		json.Unmarshal(ty.Value, &val)
		var out []string
		for k, e := range o {
			out = append(out, m.check(e, val, path+"."+k)...)
		}
		return out
	case "or":
		var all []string
		for _, it := range ty.Items {
			errs := m.check(v, it, path)
			if len(errs) == 0 {
				return nil
			}
			all = append(all, errs...)
		}
		return bad("fits none of the union's %d types: %v", len(ty.Items), all)
	case "and":
		var out []string
		for _, it := range ty.Items {
			out = append(out, m.check(v, it, path)...)
		}
		return out
	case "stringLiteral":
		var want string
		json.Unmarshal(ty.Value, &want)
		if v != want {
			return bad("%v is not %q", v, want)
		}
		return nil
	case "literal":
		var lit struct {
			Properties []shapeProperty `json:"properties"`
		}
		json.Unmarshal(ty.Value, &lit)
		return m.checkObject(v, lit.Properties, path)
	case "reference":
		for _, s := range m.Structures {
			if s.Name == ty.Name {
				return m.checkObject(v, m.properties(s.Name), path)
			}
		}
		for _, e := range m.Enumerations {
			if e.Name == ty.Name {
				if errs := m.check(v, e.Type, path); errs != nil {
					return errs
				}
				for _, val := range e.Values {
					if fmt.Sprint(val.Value) == fmt.Sprint(v) {
						return nil
					}
				}
				if e.SupportsCustomValues {
					return nil
				}
				return bad("%v is not a %s", v, e.Name)
			}
		}
		for _, a := range m.TypeAliases {
			if a.Name == ty.Name {
				return m.check(v, a.Type, path)
			}
		}
		if ty.Name == "LSPAny" {
			return nil
		}
		return bad("unknown type %s", ty.Name)
	}
	return bad("unchecked kind %s", ty.Kind)
}

// properties are a structure's own, its parents' and its mixins'.
func (m *shapeModel) properties(name string) []shapeProperty {
	for _, s := range m.Structures {
		if s.Name != name {
			continue
		}
		props := append([]shapeProperty(nil), s.Properties...)
		for _, p := range append(append([]shapeType(nil), s.Extends...), s.Mixins...) {
			props = append(props, m.properties(p.Name)...)
		}
		return props
	}
	return nil
}

func (m *shapeModel) checkObject(v any, props []shapeProperty, path string) []string {
	o, ok := v.(map[string]any)
	if !ok {
		return []string{path + ": not an object"}
	}
	var out []string
	known := map[string]bool{}
	for _, p := range props {
		known[p.Name] = true
		e, present := o[p.Name]
		switch {
		case !present && !p.Optional:
			out = append(out, path+": missing "+p.Name)
		case present:
			out = append(out, m.check(e, p.Type, path+"."+p.Name)...)
		}
	}
	var extra []string
	for k := range o {
		if !known[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		out = append(out, path+": unknown property "+k)
	}
	return out
}

// TestFeatureRepliesFitMetaModel sends each request of issue #39's
// features over the wire, at every position of a document (CRLF lines
// and a character outside the BMP included) and across a workspace with
// a closed config, and checks each result against the LSP 3.17 meta
// model: the result type its request declares, no property it does not
// list. The capabilities the server advertises are checked too.
func TestFeatureRepliesFitMetaModel(t *testing.T) {
	mm := loadShapeModel(t)
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
		dec := json.NewDecoder(bytes.NewReader([]byte(bad.json)))
		dec.UseNumber()
		var v any
		dec.Decode(&v)
		if errs := mm.check(v, shapeType{Kind: "reference", Name: bad.ty}, bad.ty); len(errs) == 0 {
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
		ty := mm.resultType(method)
		if ty == nil {
			t.Fatalf("%s: not a request of the meta model", method)
		}
		dec := json.NewDecoder(bytes.NewReader(m.Result))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		for _, e := range mm.check(v, *ty, method) {
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
