package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// oddNotifications are notifications a client may send that the server
// cannot act on: unknown methods, malformed params, settings of the
// wrong type, edits of documents never opened. Each used to end the
// connection (go.lsp.dev/jsonrpc2 fails it on a notification's error):
// the server went on publishing but never answered another request.
var oddNotifications = []struct{ name, body string }{
	{"unknown $/ notification", `{"jsonrpc":"2.0","method":"$/anything","params":{}}`},
	{"unknown client notification", `{"jsonrpc":"2.0","method":"pcp/whatever","params":{"x":1}}`},
	{"unknown notification without params", `{"jsonrpc":"2.0","method":"pcp/whatever"}`},
	{"debounce fast", `{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"debounce":"fast"}}}`},
	{"debounce as a string", `{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"pcpDerive":{"debounce":"150"}}}}`},
	{"pcpVersion a number", `{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"pcpVersion":42}}}`},
	{"source a string", `{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"source":"localhost"}}}`},
	{"settings not an object", `{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":[1,2]}}`},
	{"didChange never opened", `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///tmp/never.conf","version":2},"contentChanges":[{"text":"m.a = 1\n"}]}}`},
	{"didOpen textDocument a string", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":"file:///tmp/x.conf"}}`},
	{"didOpen uri a number", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":5,"languageId":"pcp-derived","version":1,"text":""}}}`},
	{"didOpen without params", `{"jsonrpc":"2.0","method":"textDocument/didOpen"}`},
	{"null content change", `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///tmp/w.conf","version":2},"contentChanges":[{"range":null,"text":null}]}}`},
	{"range past the end", `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///tmp/w.conf","version":2},"contentChanges":[{"range":{"start":{"line":90,"character":0},"end":{"line":99,"character":4}},"text":"x"}]}}`},
	{"cancel id 1.5", `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1.5}}`},
	{"cancel id 1e30", `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1e30}}`},
	{"cancel id an object", `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{"n":1}}}`},
	{"cancel id true", `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":true}}`},
	{"setTrace a number", `{"jsonrpc":"2.0","method":"$/setTrace","params":{"value":3}}`},
	{"didClose never opened", `{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"file:///tmp/never.conf"}}}`},
	{"didSave bad uri", `{"jsonrpc":"2.0","method":"textDocument/didSave","params":{"textDocument":{"uri":[]}}}`},
}

// oddInitOptions are settings of the wrong type in initializationOptions.
var oddInitOptions = []string{
	`{"debounce":"fast","source":{"metadata":"embedded"}}`,
	`{"debounce":"150","source":{"metadata":"embedded"}}`,
	`{"pcpVersion":42,"source":{"metadata":"embedded"}}`,
	`{"source":"localhost"}`,
	`"pcpDerive"`,
}

const wedgeText = "m.a = kernel.all.load + 1\n"

// openForWedge starts a session with initOptions and opens wedgeText,
// waiting for its diagnostics.
func openForWedge(t *testing.T, initOptions string) *rawClient {
	t.Helper()
	c := rawSession(t)
	c.sendRaw(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"initializationOptions":` + initOptions + `}}`)
	if m := c.reply(1); m.Error != nil {
		t.Fatalf("initialize: %+v", m.Error)
	}
	c.send(nil, "initialized", map[string]any{})
	c.send(nil, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": "file:///tmp/w.conf", "languageId": "pcp-derived", "version": 1, "text": wedgeText}})
	c.notification("textDocument/publishDiagnostics")
	return c
}

// stillAnswers proves the server answers a hover and then shutdown.
func (c *rawClient) stillAnswers(t *testing.T, id float64) {
	t.Helper()
	c.send(id, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///tmp/w.conf"},
		"position": map[string]any{"line": 0, "character": 8}})
	if m := c.reply(id); m.Error != nil || !strings.Contains(string(m.Result), "kernel.all.load") {
		t.Fatalf("hover after the odd message: %+v %s", m.Error, m.Result)
	}
	c.send(id+1, "shutdown", nil)
	if m := c.reply(id + 1); m.Error != nil {
		t.Fatalf("shutdown after the odd message: %+v", m.Error)
	}
	c.send(nil, "exit", nil)
}

// TestOddNotificationsDoNotWedge: after each odd notification, the
// server still answers a hover and shutdown.
func TestOddNotificationsDoNotWedge(t *testing.T) {
	for _, o := range oddNotifications {
		t.Run(o.name, func(t *testing.T) {
			c := openForWedge(t, `{"source":{"metadata":"embedded"}}`)
			c.sendRaw(o.body)
			c.stillAnswers(t, 10)
		})
	}
	for _, opts := range oddInitOptions {
		t.Run("initializationOptions "+opts, func(t *testing.T) {
			openForWedge(t, opts).stillAnswers(t, 10)
		})
	}
}

// TestBadSettingShownOnce: a setting of the wrong type is shown once,
// naming the key and what it takes, however often the client repeats
// it; the other settings of the message apply.
func TestBadSettingShownOnce(t *testing.T) {
	c := rawSession(t)
	c.sendRaw(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"initializationOptions":{"debounce":"fast","source":{"metadata":"embedded"}}}}`)
	c.send(nil, "initialized", map[string]any{})
	for range 2 {
		c.send(nil, "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{
			"debounce": "fast", "pcpVersion": "6.3", "source": map[string]any{"metadata": "embedded"}}})
	}
	c.send(nil, "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"preview": map[string]any{"enabled": "no"}}})
	c.send(9, "shutdown", nil)
	var shown []string
	applied := false
	for {
		m := c.read()
		switch m.Method {
		case "window/showMessage":
			var p struct{ Message string }
			json.Unmarshal(m.Params, &p)
			shown = append(shown, p.Message)
		case "pcp/status":
			applied = applied || strings.Contains(string(m.Params), `"pcpVersion":"6.3.0"`)
		}
		if id, ok := m.ID.(float64); ok && id == 9 && m.Method == "" {
			break
		}
	}
	var debounce, preview int
	for _, s := range shown {
		if strings.Contains(s, "pcpDerive.debounce") {
			debounce++
			if !strings.Contains(s, `"fast"`) || !strings.Contains(s, "whole number") {
				t.Errorf("the message does not say what debounce takes: %s", s)
			}
		}
		if strings.Contains(s, "pcpDerive.preview.enabled") && strings.Contains(s, "true or false") {
			preview++
		}
	}
	if debounce != 1 || preview != 1 {
		t.Errorf("shown %d times for debounce, %d for preview.enabled, want once each: %q", debounce, preview, shown)
	}
	if !applied {
		t.Error("pcpVersion 6.3, set beside the bad debounce, was not applied")
	}
}

// TestErrorCodes: params that do not decode get InvalidParams naming the
// member at fault; requests the server refuses get RequestFailed.
func TestErrorCodes(t *testing.T) {
	c := openForWedge(t, `{"source":{"metadata":"embedded"}}`)
	tests := []struct {
		name, method, params string
		code                 int
		mention              string
	}{
		{"hover textDocument a number", "textDocument/hover", `{"textDocument":42,"position":{"line":0,"character":1}}`, -32602, "textDocument"},
		{"hover position a string", "textDocument/hover", `{"textDocument":{"uri":"file:///tmp/w.conf"},"position":"here"}`, -32602, "position"},
		{"completion line a string", "textDocument/completion", `{"textDocument":{"uri":"file:///tmp/w.conf"},"position":{"line":"0","character":1}}`, -32602, "position.line"},
		{"references context a list", "textDocument/references", `{"textDocument":{"uri":"file:///tmp/w.conf"},"position":{"line":0,"character":1},"context":[]}`, -32602, "context"},
		{"preview params a list", "pcp/preview", `[1]`, -32602, "params"},
		{"preview position a string", "pcp/preview", `{"textDocument":{"uri":"file:///tmp/w.conf"},"position":"x"}`, -32602, "position"},
		{"executeCommand arguments not a list", "workspace/executeCommand", `{"command":"pcp-derive.preview","arguments":{"a":1}}`, -32602, "arguments"},
		{"executeCommand preview argument of the wrong shape", "workspace/executeCommand", `{"command":"pcp-derive.preview","arguments":[{"position":{"line":"x"}}]}`, -32602, "arguments[0].position.line"},
		{"executeCommand without its argument", "workspace/executeCommand", `{"command":"pcp-derive.explain","arguments":[]}`, -32602, "arguments"},
		{"executeCommand unknown", "workspace/executeCommand", `{"command":"no.such.command","arguments":[]}`, -32803, "no.such.command"},
		{"rename of a number", "textDocument/rename", `{"textDocument":{"uri":"file:///tmp/w.conf"},"position":{"line":0,"character":25},"newName":"x"}`, -32803, ""},
		{"prepareRename of a number", "textDocument/prepareRename", `{"textDocument":{"uri":"file:///tmp/w.conf"},"position":{"line":0,"character":25}}`, -32803, ""},
		{"preview of a closed document", "pcp/preview", `{"textDocument":{"uri":"file:///not/open.conf"},"position":{"line":0,"character":0}}`, -32803, ""},
	}
	for i, tt := range tests {
		id := float64(100 + i)
		c.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"method":%q,"params":%s}`, id, tt.method, tt.params))
		m := c.reply(id)
		if m.Error == nil {
			t.Errorf("%s: no error: %s", tt.name, m.Result)
			continue
		}
		if m.Error.Code != tt.code || !strings.Contains(m.Error.Message, tt.mention) {
			t.Errorf("%s: error %d %q, want %d naming %q", tt.name, m.Error.Code, m.Error.Message, tt.code, tt.mention)
		}
	}
	c.stillAnswers(t, 10)
}

// TestTolerate: behind tolerate, a handler's panic answers a call with
// InternalError and drops a notification; an error of a notification is
// dropped; either way the connection goes on answering.
func TestTolerate(t *testing.T) {
	handler := func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method() {
		case "panic":
			panic("boom")
		case "fail":
			return nil, errors.New("refused")
		case "bad":
			return nil, fmt.Errorf("%w: protocol: invalid JSON object at offset 6", jsonrpc2.ErrParse)
		}
		return "pong", nil
	}
	serverEnd, clientEnd := net.Pipe()
	ctx := context.Background()
	server := jsonrpc2.NewConn(jsonrpc2.NewStream(serverEnd))
	server.Go(ctx, tolerate(zap.NewNop(), handler))
	client := jsonrpc2.NewConn(jsonrpc2.NewStream(clientEnd))
	client.Go(ctx, jsonrpc2.MethodNotFoundHandler)
	t.Cleanup(func() { client.Close(); server.Close() })

	for _, method := range []string{"panic", "fail", "bad"} {
		if err := client.Notify(ctx, method, nil); err != nil {
			t.Fatalf("notify %s: %v", method, err)
		}
	}
	calls := []struct {
		method, params string
		code           jsonrpc2.Code
		mention        string
	}{
		{"panic", `{}`, jsonrpc2.InternalError, "boom"},
		{"fail", `{}`, jsonrpc2.Code(-32803), "refused"},
		{"bad", `{"a": [1, 2]}`, jsonrpc2.InvalidParams, "a: expected an object"},
	}
	for _, call := range calls {
		var res string
		_, err := client.Call(ctx, call.method, json.RawMessage(call.params), &res)
		var rpc *jsonrpc2.Error
		if !errors.As(err, &rpc) || rpc.Code != call.code || !strings.Contains(rpc.Message, call.mention) {
			t.Errorf("%s: %v, want code %d naming %q", call.method, err, call.code, call.mention)
		}
	}
	var res string
	if _, err := client.Call(ctx, "ping", nil, &res); err != nil || res != "pong" {
		t.Fatalf("ping after the failures: %q %v", res, err)
	}
}
