package lsp

import (
	"testing"

	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/fleet"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// TestFleetSameTextAfterUndo: the fleet's result is for a text's bytes,
// not for one Text value. A keystroke undone while a fleet check runs
// gives a new Text of the checked bytes: its diagnostics are the
// result's, and no second check is queued (with strings, as before
// grammar.Text, the two compared equal).
func TestFleetSameTextAfterUndo(t *testing.T) {
	src := []byte("fleet.load = kernel.all.load * 2\n")
	checked := grammar.NewText(src)
	undone := checked.Replace(5, 5, []byte("x")).Replace(5, 6, nil)
	u := uri.File("/tmp/undo.conf")
	s := &server{}
	fd := &fleetDoc{text: checked, res: &fleet.Result{}, running: true}
	s.fleet.docs = map[uri.URI]*fleetDoc{u: fd}
	snap := &snapshot{uri: u, text: undone, file: grammar.ParseText("undo.conf", undone, grammar.Options{}),
		cfg: &config{settings: Settings{Fleet: FleetSettings{Hosts: []string{"h=127.0.0.1:1"}}}}}
	s.fleetDiagnostics(snap)
	if fd.next != nil {
		t.Fatal("the checked text, undone to, queued another fleet check")
	}
}
