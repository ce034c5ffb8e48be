package analysis

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/testsize"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
)

// typingDocument is the document of the server's keystroke benchmarks
// with 2% of its lines in error (lsp's BenchmarkKeystroke*LinesErrors),
// n lines: a help text before its metric every 8 lines, a misspelt
// metric (each its own "did you mean"), a missing PMDA's metric and a
// semantic error on 2% of them; the line typed in, "bench.typing = ...",
// in the middle.
func typingDocument(n int) string {
	// The first rule whose line number matches (i%every == at) makes
	// line i, of number i+of.
	rules := []struct {
		every, at, of int
		format        string
	}{
		{50, 0, 0, "# section %d\n"},
		{200, 25, 0, "bench.m%[1]d = disk.dev.read_%[1]d + 1\n"},
		{200, 125, 0, "bench.m%[1]d = rate(redis.commands_%[1]d)\n"},
		{100, 75, 0, "bench.m%d = network.interface.in.bytes * network.interface.out.bytes\n"},
		{8, 3, -1, "bench.m%d(oneline) = \"help\"\n"}, // the line before's metric
		{1, 0, 0, "bench.m%d = rate(disk.dev.read)\n"},
	}
	var b strings.Builder
	for i := range n {
		if i == n/2 {
			b.WriteString("bench.typing = kernel.all.load + 1\n")
			continue
		}
		for _, r := range rules {
			if i%r.every == r.at {
				fmt.Fprintf(&b, r.format, i+r.of)
				break
			}
		}
	}
	return b.String()
}

// typist types a character after typingDocument's "kernel.all.load"
// and deletes it again, each keystroke analysed as the server does
// (Reparse, Recheck) from the last one's analysis.
type typist struct {
	cfg             Config
	opts            Options
	text            *grammar.Text
	parsed, checked *Result
	at, typed       int
}

func newTypist(tb testing.TB, lines int) *typist {
	src, err := embedded.Source()
	if err != nil {
		tb.Fatal(err)
	}
	ty := &typist{
		cfg:  Config{Version: VersionChoice{Version: pcpver.Latest, Reason: "test"}, Source: pmclient.NewCache(src), MaxPerCode: DefaultMaxPerCode},
		opts: Options{Memo: grammar.NewMemo(), Incremental: true},
		text: grammar.NewText([]byte(typingDocument(lines))),
	}
	ty.parsed = Parse([]Input{BufferText("t.conf", ty.text)}, ty.cfg, ty.opts)
	ty.checked = Check(context.Background(), ty.parsed)
	ty.checked.Prepare()
	ty.at = ty.text.LineStart(lines/2) + len("bench.typing = kernel.all.load")
	return ty
}

// key types the character, or deletes it when typed.
func (ty *typist) key() {
	next, ch := ty.text.Replace(ty.at, ty.at, []byte("x")), grammar.TextChange{Start: ty.at, OldEnd: ty.at, NewEnd: ty.at + 1}
	if ty.typed%2 == 1 {
		next, ch = ty.text.Replace(ty.at, ty.at+1, nil), grammar.TextChange{Start: ty.at, OldEnd: ty.at + 1, NewEnd: ty.at}
	}
	ty.opts.Change = &ch
	p, _ := Reparse(ty.parsed, "t.conf", next, ty.cfg, ty.opts)
	ty.text, ty.parsed, ty.checked = next, p, Recheck(context.Background(), ty.checked, p)
	ty.typed++
}

// TestKeystrokeAllocations bounds what a keystroke at 100,000 lines
// with 2% of them in error allocates, read and checked from its line:
// at most 8 KB more than the same keystroke at 1,000 lines (the piece of
// text it falls in and the chunks of the lists it splices are the same
// size at both; the indexes of pieces, chunks and groups above them
// grow). It was 21 KB more, when a splice of the checker's findings
// copied 128 of them (17 KB). The collector's share of a keystroke is
// in proportion to what it allocates and to the heap it marks, which at
// 100,000 lines is a hundred megabytes.
func TestKeystrokeAllocations(t *testing.T) {
	if testsize.Race {
		t.Skip("the race detector allocates beside the code measured; the plain pass runs this")
	}
	perKey := func(lines int) (bytes float64, findings int) {
		ty := newTypist(t, lines)
		for range 4 { // the caches warm
			ty.key()
		}
		const keys = 40
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range keys {
			ty.key()
		}
		runtime.ReadMemStats(&after)
		if n := ty.checked.Report.CheckedMetrics(); n > 1 {
			t.Fatalf("%d lines: a keystroke checked %d metrics, want the one it changed", lines, n)
		}
		return float64(after.TotalAlloc-before.TotalAlloc) / keys, ty.checked.Files[0].Findings.Len()
	}
	small, n1 := perKey(1000)
	big, n2 := perKey(100_000)
	t.Logf("a keystroke allocates %.0f bytes at 1,000 lines (%d findings), %.0f at 100,000 (%d findings)", small, n1, big, n2)
	if big-small > 8<<10 {
		t.Errorf("a keystroke at 100,000 lines allocates %.0f bytes, %.0f more than at 1,000 lines, want at most 8 KB more", big, big-small)
	}
}

// BenchmarkKeystrokeInProcess*Lines: TestKeystrokeAllocations's
// keystroke, an op each, in process: what a keystroke's analysis costs
// without the protocol, the pipe and the server's heap around it.
func BenchmarkKeystrokeInProcess1000Lines(b *testing.B)   { benchKeystrokeInProcess(b, 1000) }
func BenchmarkKeystrokeInProcess100000Lines(b *testing.B) { benchKeystrokeInProcess(b, 100_000) }

func benchKeystrokeInProcess(b *testing.B, lines int) {
	ty := newTypist(b, lines)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		ty.key()
	}
}
