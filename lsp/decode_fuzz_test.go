package lsp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// FuzzSettings: any settings message a client sends is merged without a
// panic; an object always merges (a bad value is a problem, not an
// error), and every problem names a setting and what it takes.
func FuzzSettings(f *testing.F) {
	for _, s := range []string{
		`{"debounce":"fast"}`, `{"pcpDerive":{"source":"localhost","pcpVersion":42}}`,
		`{"source":{"host":7,"archive":"/a"},"preview":{"enabled":"yes","interval":"x"}}`,
		`{"fleet":{"hosts":[1,{"a":2}],"concurrency":-1.5}}`, `null`, `[1]`, `"x"`, `{"debounce":1e400}`,
		`{"inlayHints":null,"logLevel":{"a":[]}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		var l settingsLayer
		_, problems, err := l.merge([]byte(msg))
		var obj map[string]any
		if json.Unmarshal([]byte(msg), &obj) == nil && obj != nil && err != nil {
			t.Errorf("an object refused: %v", err)
		}
		for _, p := range problems {
			if p.key == "" || p.want == "" || !strings.Contains(p.String(), settingsSection+"."+p.key) {
				t.Errorf("problem %+v: %s", p, p)
			}
		}
	})
}

// FuzzParamsError: whatever params fail to decode, the InvalidParams
// message is made without a panic and names a member or the params.
func FuzzParamsError(f *testing.F) {
	for _, s := range []string{
		`{"textDocument":42,"position":"here"}`, `{"textDocument":{"uri":"file:///a"},"position":{"line":"0"}}`,
		`{"textDocument":{"uri":"file:///a","version":2},"contentChanges":[{"range":null,"text":null}]}`,
		`{"command":"x","arguments":{"a":1}}`, `[[[[`, `{"a":[1,{"b":[2,"x"]}]}`, ``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		for _, decode := range []func([]byte) error{
			func(b []byte) error { var p protocol.HoverParams; return protocol.Unmarshal(b, &p) },
			func(b []byte) error { var p protocol.DidChangeTextDocumentParams; return protocol.Unmarshal(b, &p) },
			func(b []byte) error { var p protocol.ExecuteCommandParams; return protocol.Unmarshal(b, &p) },
		} {
			err := decode([]byte(params))
			if err == nil {
				continue
			}
			e := invalidParams("m", []byte(params), err)
			if e.Code != jsonrpc2.InvalidParams || !strings.HasPrefix(e.Message, "m: invalid params: ") || len(e.Message) == len("m: invalid params: ") {
				t.Errorf("%q: %+v", params, e)
			}
			var p previewParams
			if err := decodeMember("arguments[0]", []byte(params), &p); err != nil {
				if rpc, ok := errors.AsType[*jsonrpc2.Error](err); !ok || rpc.Code != jsonrpc2.InvalidParams {
					t.Errorf("decodeMember %q: %v", params, err)
				}
			}
		}
	})
}
