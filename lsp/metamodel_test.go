package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// metaModel is the LSP 3.17 meta model (metaModel-3.17.json, from
// Microsoft's vscode-languageserver-node): every request, notification,
// structure, enumeration and type alias of the protocol, as data. The
// protocol test checks every message the server sends against it.
type metaModel struct {
	Requests      []metaMessage `json:"requests"`
	Notifications []metaMessage `json:"notifications"`
	Structures    []struct {
		Name       string         `json:"name"`
		Properties []metaProperty `json:"properties"`
		Extends    []metaType     `json:"extends"`
		Mixins     []metaType     `json:"mixins"`
	} `json:"structures"`
	Enumerations []struct {
		Name   string   `json:"name"`
		Type   metaType `json:"type"`
		Values []struct {
			Value any `json:"value"`
		} `json:"values"`
		SupportsCustomValues bool `json:"supportsCustomValues"`
	} `json:"enumerations"`
	TypeAliases []struct {
		Name string   `json:"name"`
		Type metaType `json:"type"`
	} `json:"typeAliases"`

	// Indexes by name, and each structure's properties with those it
	// extends and mixes in.
	props    map[string][]metaProperty
	enums    map[string]int
	aliases  map[string]*metaType
	requests map[string]*metaMessage
	notes    map[string]*metaMessage
}

type metaMessage struct {
	Method    string    `json:"method"`
	Direction string    `json:"messageDirection"`
	Params    *metaType `json:"params"`
	Result    *metaType `json:"result"`
}

type metaProperty struct {
	Name     string   `json:"name"`
	Type     metaType `json:"type"`
	Optional bool     `json:"optional"`
}

// metaType is one type expression: base, reference, array, map, and, or,
// tuple, literal, stringLiteral (and the integer and boolean literals).
type metaType struct {
	Kind    string          `json:"kind"`
	Name    string          `json:"name"`
	Element *metaType       `json:"element"`
	Items   []metaType      `json:"items"`
	Key     *metaType       `json:"key"`
	Value   json.RawMessage `json:"value"` // a type (map), {properties} (literal) or a constant
}

// loadMetaModel reads the meta model from the project's shared
// directory, beside the repository (../shared/lsp/); a worktree nested
// deeper finds it further up. Its absence is an error, never a skip:
// CI has shared/ beside the clone.
func loadMetaModel(t *testing.T) *metaModel {
	t.Helper()
	dir, err := filepath.Abs("..") // the repository: tests run in lsp/
	if err != nil {
		t.Fatal(err)
	}
	var data []byte
	for range 4 {
		path := filepath.Join(filepath.Dir(dir), "shared", "lsp", "metaModel-3.17.json")
		if data, err = os.ReadFile(path); err == nil {
			break
		}
		dir = filepath.Dir(dir)
	}
	if err != nil {
		t.Fatalf("the LSP meta model (../shared/lsp/metaModel-3.17.json beside the repository): %v", err)
	}
	var m metaModel
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("metaModel-3.17.json: %v", err)
	}
	m.index()
	return &m
}

func (m *metaModel) index() {
	m.enums, m.aliases = map[string]int{}, map[string]*metaType{}
	m.requests, m.notes = map[string]*metaMessage{}, map[string]*metaMessage{}
	for i, e := range m.Enumerations {
		m.enums[e.Name] = i
	}
	for i := range m.TypeAliases {
		m.aliases[m.TypeAliases[i].Name] = &m.TypeAliases[i].Type
	}
	for i := range m.Requests {
		m.requests[m.Requests[i].Method] = &m.Requests[i]
	}
	for i := range m.Notifications {
		m.notes[m.Notifications[i].Method] = &m.Notifications[i]
	}
	byName := map[string]int{}
	for i, s := range m.Structures {
		byName[s.Name] = i
	}
	m.props = map[string][]metaProperty{}
	var collect func(name string) []metaProperty
	collect = func(name string) []metaProperty {
		if p, ok := m.props[name]; ok {
			return p
		}
		s := m.Structures[byName[name]]
		var out []metaProperty
		for _, base := range append(slices.Clone(s.Extends), s.Mixins...) {
			out = append(out, collect(base.Name)...)
		}
		for _, p := range s.Properties { // its own override what it extends
			out = slices.DeleteFunc(out, func(q metaProperty) bool { return q.Name == p.Name })
			out = append(out, p)
		}
		m.props[name] = out
		return out
	}
	for _, s := range m.Structures {
		collect(s.Name)
	}
}

// decodeJSON decodes a message member keeping numbers exact.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// check returns the violations of v against t, each prefixed by its path.
func (m *metaModel) check(t *metaType, v any, path string) []string {
	bad := func(format string, args ...any) []string {
		return []string{path + ": " + fmt.Sprintf(format, args...)}
	}
	switch t.Kind {
	case "base":
		if !baseOK(t.Name, v) {
			return bad("%s is not a %s", short(v), t.Name)
		}
		return nil
	case "reference":
		if props, ok := m.props[t.Name]; ok {
			return m.checkObject(t.Name, props, v, path)
		}
		if i, ok := m.enums[t.Name]; ok {
			e := m.Enumerations[i]
			if !baseOK(e.Type.Name, v) {
				return bad("%s is not a %s (%s)", short(v), e.Type.Name, t.Name)
			}
			if e.SupportsCustomValues {
				return nil
			}
			for _, val := range e.Values {
				if fmt.Sprint(val.Value) == fmt.Sprint(v) {
					return nil
				}
			}
			return bad("%s is not one of %s's values", short(v), t.Name)
		}
		if a, ok := m.aliases[t.Name]; ok {
			switch t.Name { // the recursive LSPAny family
			case "LSPAny":
				return nil
			case "LSPObject":
				if _, ok := v.(map[string]any); !ok {
					return bad("%s is not an object", short(v))
				}
				return nil
			case "LSPArray":
				if _, ok := v.([]any); !ok {
					return bad("%s is not an array", short(v))
				}
				return nil
			}
			return m.check(a, v, path)
		}
		return bad("unknown type %s", t.Name)
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return bad("%s is not an array", short(v))
		}
		var out []string
		for i, e := range arr {
			out = append(out, m.check(t.Element, e, fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	case "map":
		obj, ok := v.(map[string]any)
		if !ok {
			return bad("%s is not an object", short(v))
		}
		var vt metaType
		if err := json.Unmarshal(t.Value, &vt); err != nil {
			return bad("map value type: %v", err)
		}
		var out []string
		for _, k := range sortedKeys(obj) {
			out = append(out, m.check(&vt, obj[k], path+"."+k)...)
		}
		return out
	case "and":
		var out []string
		for i := range t.Items {
			out = append(out, m.check(&t.Items[i], v, path)...)
		}
		return out
	case "or":
		var first []string
		for i := range t.Items {
			got := m.check(&t.Items[i], v, path)
			if len(got) == 0 {
				return nil
			}
			if first == nil || len(got) < len(first) {
				first = got // the nearest miss says most
			}
		}
		return append(bad("%s matches none of the %d alternatives; nearest:", short(v), len(t.Items)), first...)
	case "tuple":
		arr, ok := v.([]any)
		if !ok || len(arr) != len(t.Items) {
			return bad("%s is not a %d-tuple", short(v), len(t.Items))
		}
		var out []string
		for i := range t.Items {
			out = append(out, m.check(&t.Items[i], arr[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	case "literal":
		var lit struct {
			Properties []metaProperty `json:"properties"`
		}
		if err := json.Unmarshal(t.Value, &lit); err != nil {
			return bad("literal: %v", err)
		}
		return m.checkObject("literal", lit.Properties, v, path)
	case "stringLiteral", "integerLiteral", "booleanLiteral":
		var want any
		json.Unmarshal(t.Value, &want)
		if fmt.Sprint(want) != fmt.Sprint(v) {
			return bad("%s is not %v", short(v), want)
		}
		return nil
	}
	return bad("unknown kind %s", t.Kind)
}

// checkObject checks v is an object with every required property of
// props, each property of its type, and no property props lack.
func (m *metaModel) checkObject(name string, props []metaProperty, v any, path string) []string {
	obj, ok := v.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s: %s is not a %s", path, short(v), name)}
	}
	var out []string
	known := map[string]bool{}
	for i := range props {
		p := &props[i]
		known[p.Name] = true
		val, present := obj[p.Name]
		switch {
		case !present && !p.Optional:
			out = append(out, fmt.Sprintf("%s: %s lacks its required %s", path, name, p.Name))
		case present:
			out = append(out, m.check(&p.Type, val, path+"."+p.Name)...)
		}
	}
	for _, k := range sortedKeys(obj) {
		if !known[k] {
			out = append(out, fmt.Sprintf("%s: %s has no property %s", path, name, k))
		}
	}
	return out
}

func baseOK(name string, v any) bool {
	switch name {
	case "string", "DocumentUri", "URI", "RegExp":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "decimal":
		_, ok := v.(json.Number)
		return ok
	case "integer", "uinteger":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		i, err := n.Int64()
		if err != nil {
			return false
		}
		if name == "uinteger" {
			return i >= 0 && i <= math.MaxUint32
		}
		return i >= math.MinInt32 && i <= math.MaxInt32
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// checkMessage validates one message the server sent: a response to a
// request of the given method, a notification or a request of its own.
// Methods outside the LSP (pcp/...) are checked only as JSON-RPC.
func (m *metaModel) checkMessage(msg message, raw []byte, requestMethod string) []string {
	var env map[string]any
	if err := json.Unmarshal(raw, &env); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	if env["jsonrpc"] != "2.0" {
		return []string{"jsonrpc is not \"2.0\""}
	}
	where := msg.Method
	if where == "" {
		where = requestMethod + " result"
	}
	var out []string
	add := func(vs []string) {
		for _, v := range vs {
			out = append(out, where+": "+v)
		}
	}
	switch {
	case msg.Method == "": // a response
		if msg.Error != nil {
			if _, ok := env["result"]; ok {
				add([]string{"both result and error"})
			}
			return out
		}
		if _, ok := env["result"]; !ok {
			add([]string{"neither result nor error"})
		}
		req := m.requests[requestMethod]
		if req == nil || req.Result == nil {
			return out // a custom request, or one without a result type
		}
		v, err := decodeJSON(msg.Result)
		if err != nil {
			add([]string{err.Error()})
			return out
		}
		add(m.check(req.Result, v, "result"))
	default:
		spec := m.notes[msg.Method]
		if msg.ID != nil {
			spec = m.requests[msg.Method]
		}
		if spec == nil {
			if !strings.HasPrefix(msg.Method, "pcp/") {
				add([]string{"not a method of the LSP, nor one of ours (pcp/...)"})
			}
			return out
		}
		if spec.Direction == "clientToServer" {
			add([]string{"sent by the server, but the LSP has only clients send it"})
		}
		if spec.Params == nil {
			return out
		}
		v, err := decodeJSON(msg.Params)
		if err != nil {
			add([]string{err.Error()})
			return out
		}
		add(m.check(spec.Params, v, "params"))
	}
	return out
}

// TestMetaModelValidator: the validator finds what it is for (a value
// of the wrong type, a missing required property, an unknown property,
// a value outside an enumeration, an or that nothing matches) and
// accepts well-formed messages.
func TestMetaModelValidator(t *testing.T) {
	m := loadMetaModel(t)
	tests := []struct {
		method, result string
		want           string // "" for valid
	}{
		{"textDocument/hover", `null`, ""},
		{"textDocument/hover", `{"contents":{"kind":"markdown","value":"x"}}`, ""},
		{"textDocument/hover", `{"contents":{"kind":"html","value":"x"}}`, "matches none"},
		{"textDocument/hover", `{"contents":"x","range":{"start":{"line":0,"character":1},"end":{"line":0}}}`, "lacks its required character"},
		{"textDocument/hover", `{"contents":"x","extra":1}`, "has no property extra"},
		{"textDocument/completion", `[{"label":"a","kind":25}]`, ""},
		{"textDocument/completion", `[{"label":"a","kind":99}]`, "not one of CompletionItemKind's values"},
		{"textDocument/completion", `[{"label":"a","kind":-1}]`, "matches none"},
		{"textDocument/documentSymbol", `[{"name":"a","kind":13,"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"selectionRange":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}]`, ""},
		{"textDocument/documentSymbol", `[{"name":"a","kind":13,"location":{"uri":"file:///a","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}}]`, ""},
		{"textDocument/semanticTokens/full", `{"data":[0,1,2,3,4]}`, ""},
		{"textDocument/semanticTokens/full", `{"data":[0,1.5]}`, "not a uinteger"},
		{"textDocument/prepareRename", `{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"placeholder":"x"}`, ""},
		{"textDocument/prepareRename", `{"defaultBehavior":"yes"}`, "matches none"},
	}
	for _, tt := range tests {
		raw := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":%s}`, tt.result)
		var msg message
		json.Unmarshal([]byte(raw), &msg)
		got := strings.Join(m.checkMessage(msg, []byte(raw), tt.method), "\n")
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s %s: violations %q, want %q", tt.method, tt.result, got, tt.want)
		}
	}
	raw := `{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///a","diagnostics":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"message":"m","severity":5}]}}`
	var msg message
	json.Unmarshal([]byte(raw), &msg)
	if got := m.checkMessage(msg, []byte(raw), ""); len(got) == 0 {
		t.Error("a diagnostic of severity 5 passed")
	}
}
