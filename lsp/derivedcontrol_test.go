package lsp

import (
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestDerivedControlSetting: the derivedControl setting is
// $PCP_DERIVED_CONTROL for the analysis (PCP 7.1.1+): its bad items are
// findings naming the variable, and a #control line that would change
// what it set is refused.
func TestDerivedControlSetting(t *testing.T) {
	srv, rec, ctx := session(t, `{"source": {"metadata": "embedded"}, "pcpVersion": "7.2.2", "derivedControl": "option_novalue=1,nosuch=1"}`)
	u := uri.File("/tmp/control.conf")
	srv.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: "#control option_novalue=0\nm.a = 1\n"}})
	d := rec.wait(t, u)
	var msgs []string
	for _, x := range d {
		msgs = append(msgs, fmt.Sprint(x.Message))
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{`$PCP_DERIVED_CONTROL: unknown derived metric control "nosuch"`, "libpcp cannot set option_novalue=0: Try again"} {
		if !strings.Contains(got, want) {
			t.Errorf("findings %q: none says %q", got, want)
		}
	}
}
