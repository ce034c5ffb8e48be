package lsp

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// serveUntilStatus reads the server's messages, answering its
// workspace/configuration requests with answer, until a pcp/status
// notification contains every one of want; it returns how many
// configuration requests it answered.
func (c *rawClient) serveUntilStatus(answer string, want ...string) int {
	c.t.Helper()
	asked := 0
	for {
		m := c.read()
		switch {
		case m.Method == "workspace/configuration" && m.ID != nil:
			asked++
			c.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":[%s]}`, mustJSON(m.ID), answer))
		case m.Method != "" && m.ID != nil:
			c.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, mustJSON(m.ID)))
		case m.Method == "pcp/status":
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(string(m.Params), w)
			}
			if ok {
				return asked
			}
		}
	}
}

// TestEglotSettingsKept replays eglot's sequence: initializationOptions,
// then didChangeConfiguration {"settings": {}} right after initialized,
// and workspace/configuration answered with null (no such section). The
// empty change used to reset every setting to its default, losing the
// source and release the documented Emacs snippet sets.
func TestEglotSettingsKept(t *testing.T) {
	c := rawSession(t)
	c.send(1, "initialize", map[string]any{
		"capabilities":          map[string]any{"workspace": map[string]any{"configuration": true, "didChangeConfiguration": map[string]any{"dynamicRegistration": false}}},
		"initializationOptions": map[string]any{"pcpVersion": "5.2", "source": map[string]any{"metadata": "embedded"}},
	})
	c.reply(1)
	c.send(nil, "initialized", map[string]any{})
	c.send(nil, "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{}})
	c.send(2, "shutdown", nil) // a marker: every status before its reply is from the sequence above
	var statuses []string
	for {
		m := c.read()
		if m.Method == "workspace/configuration" && m.ID != nil {
			c.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":[null]}`, mustJSON(m.ID)))
		}
		if m.Method == "pcp/status" {
			statuses = append(statuses, string(m.Params))
		}
		if id, ok := m.ID.(float64); ok && id == 2 && m.Method == "" {
			break
		}
	}
	if len(statuses) == 0 {
		t.Fatal("no pcp/status")
	}
	for _, st := range statuses {
		if !strings.Contains(st, `"pcpVersion":"5.2.0"`) || !strings.Contains(st, "embedded") {
			t.Errorf("a status lost the initializationOptions: %s", st)
		}
	}
}

// TestHelixSettingsPulled replays Helix: its languages.toml config comes
// as initializationOptions, and it answers workspace/configuration with
// the config's section; the answer is merged over the options (a key it
// does not name keeps its value).
func TestHelixSettingsPulled(t *testing.T) {
	c := rawSession(t)
	c.send(1, "initialize", map[string]any{
		"capabilities":          map[string]any{"workspace": map[string]any{"configuration": true}},
		"initializationOptions": map[string]any{"dialect": "auto", "source": map[string]any{"metadata": "embedded"}},
	})
	c.reply(1)
	c.send(nil, "initialized", map[string]any{})
	if asked := c.serveUntilStatus(`{"pcpVersion":"7.2"}`, `"pcpVersion":"7.2.`, "embedded"); asked == 0 {
		t.Error("the server never asked for workspace/configuration")
	}
	// A later change naming one key keeps the others.
	c.send(nil, "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"pcpDerive": map[string]any{"pcpVersion": "6.3"}}})
	c.serveUntilStatus(`null`, `"pcpVersion":"6.3.0"`, "embedded")
	// null puts a key back to its default.
	c.send(nil, "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"pcpVersion": nil}})
	c.serveUntilStatus(`null`, `"pcpVersion":"6.0.3"`, "embedded", "reports PCP 6.0.3")
}

func TestMergeInto(t *testing.T) {
	var l settingsLayer
	steps := []struct{ msg, want string }{
		{`{"source":{"host":"a"},"pcpVersion":"5.2"}`, `{"pcpVersion":"5.2","source":{"host":"a"}}`},
		{`{}`, `{"pcpVersion":"5.2","source":{"host":"a"}}`},
		{`null`, `{"pcpVersion":"5.2","source":{"host":"a"}}`},
		{`{"pcpDerive":{"source":{"archive":"x"}}}`, `{"pcpVersion":"5.2","source":{"archive":"x"}}`},
		{`{"preview":{"enabled":false}}`, `{"pcpVersion":"5.2","preview":{"enabled":false},"source":{"archive":"x"}}`},
		{`{"preview":{"interval":5},"pcpVersion":null}`, `{"preview":{"enabled":false,"interval":5},"source":{"archive":"x"}}`},
		{`[1]`, `{"preview":{"enabled":false,"interval":5},"source":{"archive":"x"}}`},
	}
	for i, s := range steps {
		_, _, err := l.merge([]byte(s.msg))
		if (err != nil) != (s.msg == `[1]`) {
			t.Errorf("step %d: error %v", i, err)
		}
		if got := l.snapshot(); got != s.want {
			t.Errorf("step %d (%s): %s, want %s", i, s.msg, got, s.want)
		}
	}
}

// TestSettingsOfTheWrongType: a setting of the wrong type is left at its
// default and named, with what it takes; every other setting applies.
func TestSettingsOfTheWrongType(t *testing.T) {
	tests := []struct {
		msg  string
		want []string // the problems, as "key value takes"
		ok   func(Settings) bool
	}{
		{`{"debounce":"fast","pcpVersion":"6.0.3"}`, []string{`debounce "fast" a whole number`},
			func(st Settings) bool { return st.Debounce == nil && st.PCPVersion == "6.0.3" }},
		{`{"debounce":"150"}`, []string{`debounce "150" a whole number`}, func(st Settings) bool { return st.Debounce == nil }},
		{`{"debounce":1.5}`, []string{`debounce 1.5 a whole number`}, func(st Settings) bool { return st.Debounce == nil }},
		{`{"pcpVersion":42,"inlayHints":false}`, []string{`pcpVersion 42 a string`},
			func(st Settings) bool { return st.PCPVersion == "" && !st.hintsOn() }},
		{`{"source":"localhost","debounce":20}`, []string{`source "localhost" an object`},
			func(st Settings) bool { return st.Source.Host == "" && st.debounce() == 20*time.Millisecond }},
		{`{"source":{"host":7,"archive":"/a"}}`, []string{`source.host 7 a string`},
			func(st Settings) bool { return st.Source.Archive == "/a" && st.Source.Host == "" }},
		{`{"preview":{"enabled":"yes","interval":3}}`, []string{`preview.enabled "yes" true or false`},
			func(st Settings) bool { return st.previewOn() && st.Preview.Interval == 3 }},
		{`{"debounce":{"ms":3}}`, []string{`debounce {"ms":3} a whole number`}, func(st Settings) bool { return st.Debounce == nil }},
		{`{"fleet":{"hosts":"a,b","concurrency":2}}`, []string{`fleet.hosts "a,b" a list of strings`},
			func(st Settings) bool { return st.Fleet.Concurrency == 2 && st.Fleet.Hosts == nil }},
		{`{"logLevel":"debug","unknownKey":1}`, nil, func(st Settings) bool { return st.LogLevel == "debug" }},
	}
	for _, tt := range tests {
		var l settingsLayer
		st, problems, err := l.merge([]byte(tt.msg))
		if err != nil {
			t.Errorf("%s: %v", tt.msg, err)
			continue
		}
		var got []string
		for _, p := range problems {
			got = append(got, p.key+" "+p.value+" "+p.want)
			if !strings.Contains(p.String(), "pcpDerive."+p.key) {
				t.Errorf("%s: the message does not name the setting: %s", tt.msg, p)
			}
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: problems %q, want %q", tt.msg, got, tt.want)
		}
		if !tt.ok(st) {
			t.Errorf("%s: settings %+v", tt.msg, st)
		}
	}
}
