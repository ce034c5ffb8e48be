package checker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// recordingSource records the names it is asked to look up; with
// noChildren it cannot list the namespace.
type recordingSource struct {
	pmclient.Source
	asked       []string
	noChildren  bool
	childrenErr error // what Children returns, when set
}

func (s *recordingSource) LookupNames(ctx context.Context, names []string) ([]pmapi.PMID, []error, error) {
	s.asked = append(s.asked, names...)
	return s.Source.LookupNames(ctx, names)
}

func (s *recordingSource) Children(ctx context.Context, name string) ([]pmclient.Child, error) {
	if s.childrenErr != nil {
		return nil, s.childrenErr
	}
	if s.noChildren {
		return nil, errors.New("cannot list the namespace")
	}
	return s.Source.Children(ctx, name)
}

// TestLookupOnlyUnderTopLevel: in a check of a whole config
// (FindingsOnly), names outside the namespace's top-level nodes (a
// config's own names) are not sent to the source, and the findings are
// those of a check that asked for every name: a name under a top-level
// node still masks a real metric, and an operand outside them is still
// unknown. A source that cannot list its top level is asked for every
// name.
func TestLookupOnlyUnderTopLevel(t *testing.T) {
	const conf = "mine.a = kernel.all.load\nkernel.all.load = 1\nhinv.ncpu2 = hinv.ncpu + nosuch.top.metric\n"
	var findings [2]string
	for i, noChildren := range []bool{false, true} {
		src := &recordingSource{Source: liveMetadata(t), noChildren: noChildren}
		f := grammar.ParseConfig("c.conf", []byte(conf), grammar.Options{Version: pcpver.Latest})
		rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: pcpver.Latest, FindingsOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"kernel.all.load", "hinv.ncpu2", "hinv.ncpu"} {
			if !slices.Contains(src.asked, want) {
				t.Errorf("noChildren %v: %s not looked up (asked %q)", noChildren, want, src.asked)
			}
		}
		for _, outside := range []string{"mine.a", "nosuch.top.metric"} {
			if asked := slices.Contains(src.asked, outside); asked != noChildren {
				t.Errorf("noChildren %v: %s looked up: %v, want %v", noChildren, outside, asked, noChildren)
			}
		}
		var codes []string
		for _, d := range rep.Diagnostics(f) {
			codes = append(codes, d.Code+"@"+d.Range.Start.String())
		}
		findings[i] = strings.Join(codes, " ")
		if !strings.Contains(findings[i], "masked") || !strings.Contains(findings[i], "unknown-metric") {
			t.Errorf("noChildren %v: findings %s, want masked and unknown-metric", noChildren, findings[i])
		}
	}
	if findings[0] != findings[1] {
		t.Errorf("findings differ: %s with the top level, %s without", findings[0], findings[1])
	}
	// A source that times out listing its top level: the check stops
	// there, rather than wait as long again for the lookup.
	src := &recordingSource{Source: liveMetadata(t), childrenErr: fmt.Errorf("reading a PDU: %w", os.ErrDeadlineExceeded)}
	f := grammar.ParseConfig("c.conf", []byte(conf), grammar.Options{Version: pcpver.Latest})
	if _, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: pcpver.Latest, FindingsOnly: true}); !errors.Is(err, os.ErrDeadlineExceeded) || len(src.asked) > 0 {
		t.Errorf("a source timing out: error %v, names asked %q; want the timeout and no lookup", err, src.asked)
	}
}

// TestSuggestionsShared: a check's "did you mean" answers serve the
// next check of the document (Recheck passes them on) without a scan of
// the namespace, for as long as the namespace is the same list; another
// list is scanned afresh.
func TestSuggestionsShared(t *testing.T) {
	names := []string{"kernel.all.load", "kernel.all.cpu.user"}
	shared := &suggestions{}
	suggest := func(list []string) []string {
		s := newSuggester(func() []string { return list })
		s.shared = shared
		return s.suggest("kernel.all.loadx")
	}
	if got := suggest(names); !slices.Equal(got, []string{"kernel.all.load"}) {
		t.Fatalf("first check: %q", got)
	}
	names[0] = "zzz" // the same list: the answer is remembered, not scanned for
	if got := suggest(names); !slices.Equal(got, []string{"kernel.all.load"}) {
		t.Errorf("second check of the same namespace: %q, want the remembered answer", got)
	}
	if got := suggest(slices.Clone(names)); len(got) != 0 {
		t.Errorf("another namespace: %q, want a scan of it (nothing close)", got)
	}
	// Recheck hands the answers on.
	f := grammar.ParseConfig("c.conf", []byte("a = kernel.all.loadx\nb = hinv.ncpu\n"), grammar.Options{Version: pcpver.Latest})
	src := pmclient.NewCache(liveMetadata(t))
	rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: pcpver.Latest})
	if err != nil {
		t.Fatal(err)
	}
	text := grammar.NewText([]byte("a = kernel.all.loadx\nb = hinv.ncpu + 1\n"))
	ch := grammar.TextChange{Start: 32, OldEnd: 32, NewEnd: 36}
	g, _ := grammar.Reparse(f, text, ch, grammar.Options{Version: pcpver.Latest})
	again, _, ok, err := Recheck(context.Background(), rep, nil, g, src, Options{Version: pcpver.Latest})
	if err != nil || !ok {
		t.Fatalf("Recheck: %v, %v", ok, err)
	}
	if again.suggested != rep.suggested || len(rep.suggested.memo) == 0 {
		t.Errorf("Recheck's suggestions %p, the check's %p (%d remembered): not handed on", again.suggested, rep.suggested, len(rep.suggested.memo))
	}
}
