package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// invalidParams is the InvalidParams error for a request whose params
// did not decode: it names the member at fault ("textDocument",
// "contentChanges[0]"), which the protocol package's messages leave to a
// byte offset or a type name.
func invalidParams(method string, params []byte, err error) *jsonrpc2.Error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: invalid params: %s", method, describeParamsError(params, err))
}

// invalidParamsf is an InvalidParams error a handler makes itself, for a
// member it found wrong after decoding.
func invalidParamsf(format string, args ...any) *jsonrpc2.Error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: "+format, args...)
}

var (
	// The protocol package's decoder names the kind of value it wanted and
	// where the one it got starts.
	atOffset = regexp.MustCompile(`invalid JSON (\w+) at offset (\d+)`)
	// Its unions name the value they got and the type they wanted.
	notUnion = regexp.MustCompile(`(?s)cannot unmarshal (.*) into (\w+)$`)
	// Its reflective decoder (go-json-experiment, whose messages vary
	// their wording on purpose) names the kinds of JSON and Go value only.
	wrongKind = regexp.MustCompile(`(?:cannot|unable to) unmarshal JSON (\w+) into Go (\S+)`)
)

// describeParamsError says which member of params err is about, and why.
func describeParamsError(params []byte, err error) string {
	msg := err.Error()
	if m := atOffset.FindStringSubmatch(msg); m != nil {
		off, _ := strconv.Atoi(m[2])
		return fmt.Sprintf("%s: expected %s", memberName(pathAt(params, off)), article(m[1]))
	}
	if m := notUnion.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s: %s is not a %s", memberName(pathOf(params, []byte(m[1]))), m[1], m[2])
	}
	if m := wrongKind.FindStringSubmatch(msg); m != nil {
		want := "a " + m[2]
		if strings.HasPrefix(m[2], "[]") {
			want = "an array"
		}
		// Which member, when one alone is of the kind that failed.
		if paths := pathsOfKind(params, m[1]); len(paths) == 1 {
			return fmt.Sprintf("%s: expected %s, got %s", paths[0], want, article(m[1]))
		}
		return fmt.Sprintf("a member expected %s got %s", want, article(m[1]))
	}
	if len(bytes.TrimSpace(params)) == 0 {
		return "no params"
	}
	return strings.TrimPrefix(msg, "JSON-RPC parse error: ")
}

func memberName(path string) string {
	if path == "" {
		return "params"
	}
	return path
}

func article(kind string) string {
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

// jsonFrame is one open object or array on the way to a value.
type jsonFrame struct {
	object  bool
	key     string // the member being read, in an object
	index   int    // the element being read, in an array
	wantKey bool
}

func joinPath(stack []jsonFrame) string {
	var b strings.Builder
	for _, f := range stack {
		if f.object {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		} else {
			fmt.Fprintf(&b, "[%d]", f.index)
		}
	}
	return b.String()
}

// pathAt is the path ("textDocument.uri", "contentChanges[2].range") of
// the value of data that starts at byte off, or encloses it.
func pathAt(data []byte, off int) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []jsonFrame
	next := func() { // the current value of the innermost frame is read
		if len(stack) == 0 {
			return
		}
		if top := &stack[len(stack)-1]; top.object {
			top.wantKey = true
		} else {
			top.index++
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return joinPath(stack)
		}
		end := int(dec.InputOffset())
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			next()
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			stack[n-1].key, _ = tok.(string)
			stack[n-1].wantKey = false
			if end > off {
				return joinPath(stack)
			}
			continue
		}
		if end > off {
			return joinPath(stack)
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, jsonFrame{object: true, wantKey: true})
		case json.Delim('['):
			stack = append(stack, jsonFrame{})
		default:
			next()
		}
	}
}

// pathOf is the path of the first value of data equal (as JSON) to
// value, or "" when there is none.
func pathOf(data, value []byte) string {
	var doc, want any
	if json.Unmarshal(data, &doc) != nil || json.Unmarshal(value, &want) != nil {
		return ""
	}
	path, _ := find(doc, want, "")
	return path
}

// pathsOfKind are the paths of the members of data (not data itself)
// whose JSON kind is kind ("object", "array", "string", "number",
// "boolean", "null").
func pathsOfKind(data []byte, kind string) []string {
	var doc any
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	var walk func(v any, path string)
	walk = func(v any, path string) {
		if path != "" && jsonKind(v) == kind {
			out = append(out, path)
		}
		switch v := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(v[k], strings.TrimPrefix(path+"."+k, "."))
			}
		case []any:
			for i, sub := range v {
				walk(sub, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(doc, "")
	return out
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

func find(v, want any, path string) (string, bool) {
	if reflect.DeepEqual(v, want) {
		return path, true
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			sub, p := v[k], k
			if path != "" {
				p = path + "." + k
			}
			if found, ok := find(sub, want, p); ok {
				return found, true
			}
		}
	case []any:
		for i, sub := range v {
			if found, ok := find(sub, want, fmt.Sprintf("%s[%d]", path, i)); ok {
				return found, true
			}
		}
	}
	return "", false
}

// decodeMember decodes raw, the member of a request's params at path
// ("" for the params themselves, "arguments[0]"), into v. A value of the
// wrong shape is InvalidParams naming the member at fault.
func decodeMember(path string, raw []byte, v any) error {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		member := path
		if te.Field != "" {
			member = strings.TrimPrefix(path+"."+te.Field, ".")
		}
		return invalidParamsf("%s: expected %s, got %s", memberName(member), takes(te.Type), article(te.Value))
	}
	return invalidParamsf("%s: %v", memberName(path), err)
}
