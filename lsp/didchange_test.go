package lsp

import (
	"reflect"
	"testing"

	"go.lsp.dev/protocol"
)

// didChangeShapes are didChange params as editors send them, and their
// edge cases: decodeDidChange reads them, as the protocol package does.
var didChangeShapes = []string{
	// The benchmark client's (encoding/json: members sorted).
	`{"contentChanges":[{"range":{"end":{"character":30,"line":50000},"start":{"character":30,"line":50000}},"text":"x"}],"textDocument":{"uri":"file:///tmp/keystroke.conf","version":8}}`,
	// VS Code's: the range's length, the document first.
	`{"textDocument":{"uri":"file:///home/u/pcp/a%20b.derived","version":12},"contentChanges":[{"range":{"start":{"line":3,"character":4},"end":{"line":3,"character":4}},"rangeLength":0,"text":"k"}]}`,
	// Neovim's: white space, several changes, escapes.
	"{ \"textDocument\" : { \"version\" : -3 , \"uri\" : \"file:///t.conf\" } ,\n\t\"contentChanges\" : [ {\"text\":\"a\\n\\\"b\\\"\\t\\\\ \\u00e9\\ud83d\\ude00\\/\",\"range\":{\"end\":{\"line\":0,\"character\":2},\"start\":{\"character\":0,\"line\":0}}}, {\"range\":{\"start\":{\"line\":1,\"character\":0},\"end\":{\"line\":2,\"character\":0}},\"text\":\"\"} ] }\r\n",
	`{"textDocument":{"uri":"untitled:Untitled-1","version":2147483647},"contentChanges":[{"range":{"start":{"line":4294967295,"character":0},"end":{"line":4294967295,"character":4294967295}},"rangeLength":4294967295,"text":"ünï 日本"}]}`,
	`{"textDocument":{"uri":"file:///t.conf","version":-2147483648},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"\u0000\b\f\r"}]}`,
}

// didChangeOthers are params decodeDidChange leaves to the protocol
// package (valid or not).
var didChangeOthers = []string{
	`{"textDocument":{"uri":"file:///t.conf","version":2},"contentChanges":[{"text":"the whole document"}]}`,
	`{"textDocument":{"uri":"file:///t.conf","version":2},"contentChanges":[]}`,
	`{"textDocument":{"uri":"file:///t.conf","version":2},"contentChanges":[{"range":null,"text":null}]}`,
	`{"textDocument":{"uri":"file:///t.conf","version":2.0},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":""}]}`,
	`{"textDocument":{"uri":"file:///t.conf","version":2},"contentChanges":[{"range":{"start":{"line":1e2,"character":0},"end":{"line":0,"character":0}},"text":""}]}`,
	`{"textDocument":{"uri":"file:///t.conf","version":2},"contentChanges":[{"range":{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}},"text":""}]}`,
	`{"textDocument":{"uri":"file:///t.conf","version":2147483648},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":""}]}`,
	`{"textDocument":{"uri":"file:///t.conf","version":2,"extra":1},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":""}]}`,
	`{"textDocument":{"uri":"file:///t.conf","version":2},"textDocument":{"uri":"file:///u.conf","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":""}]}`,
	`{"textDocument":{"uri":"file:///t.conf","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"\ud800"}]}`,
	`{"textDocument":{"uri":"file:///t.conf","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"` + "\xff" + `"}]}`,
	`{"textDocument":{"uri":"file:///t.conf"},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":""}]}`,
	`{"textDocument":{"uri":"file:///t.conf","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":""}]} x`,
	`{"textDocument":{"uri":"file:///t.conf","version":02},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":""}]}`,
	`null`, `[]`, `{}`, ``,
}

// TestDecodeDidChange: the shapes editors send are decoded by hand, to
// what the protocol package makes of them; the others are left to it.
func TestDecodeDidChange(t *testing.T) {
	for _, raw := range didChangeShapes {
		if !decodedAsProtocol(t, raw) {
			t.Errorf("not decoded: %s", raw)
		}
	}
	for _, raw := range didChangeOthers {
		if got, ok := decodeDidChange([]byte(raw)); ok {
			t.Errorf("decoded by hand, not left to the protocol package: %s\n%+v", raw, got)
		}
	}
}

// FuzzDecodeDidChange: whatever the params, decodeDidChange decodes them
// to what the protocol package does, or leaves them to it; never a
// didChange the protocol package refuses or reads otherwise.
func FuzzDecodeDidChange(f *testing.F) {
	for _, s := range append(didChangeShapes, didChangeOthers...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) { decodedAsProtocol(t, raw) })
}

// decodedAsProtocol says whether decodeDidChange decodes raw, and fails t
// when what it decodes is not what the protocol package makes of raw.
func decodedAsProtocol(t *testing.T, raw string) bool {
	t.Helper()
	got, ok := decodeDidChange([]byte(raw))
	if !ok {
		return false
	}
	var want protocol.DidChangeTextDocumentParams
	if err := protocol.Unmarshal([]byte(raw), &want); err != nil {
		t.Fatalf("decoded %q, which the protocol package refuses: %v", raw, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\ngot  %+v\nwant %+v", raw, got, want)
	}
	return true
}
