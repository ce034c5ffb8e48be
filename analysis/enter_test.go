package analysis

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
)

// erroneousConfig is n lines of definitions with a finding on 2% of
// them, as the keystroke benchmarks' (lsp shapeErrors): a misspelt
// metric with its own "did you mean", a metric of a PMDA the metadata
// lacks (a warning on its first use, hints naming that line on the
// others), a semantic error; and a help text set before its metric.
func erroneousConfig(n int) string {
	var b strings.Builder
	for i := range n {
		switch {
		case i%50 == 0:
			fmt.Fprintf(&b, "# section %d\n", i)
		case i%200 == 25:
			fmt.Fprintf(&b, "m%d = disk.dev.read_%d + 1\n", i, i)
		case i%200 == 125:
			fmt.Fprintf(&b, "m%d = rate(redis.commands_%d)\n", i, i)
		case i%100 == 75:
			fmt.Fprintf(&b, "m%d = network.interface.in.bytes * network.interface.out.bytes\n", i)
		case i%8 == 3:
			fmt.Fprintf(&b, "m%d(oneline) = \"help of m%[1]d\"\n", i+1)
		default:
			fmt.Fprintf(&b, "m%d = kernel.all.load[1] * hinv.ncpu + m%d\n", i, i/2)
		}
	}
	return b.String()
}

// TestEnterChecksOnlyItsLine: an Enter, or the deletion of a line break,
// at line 50,000 of a 100,000-line document with findings on 2% of its
// lines checks no definition but the edited ones (the others keep their
// verdicts and findings, moved by a line), and the result is a fresh
// run's.
func TestEnterChecksOnlyItsLine(t *testing.T) {
	src, err := embedded.Source()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := Config{Version: VersionChoice{Version: pcpver.Latest, Reason: "test"}, Source: pmclient.NewCache(src), MaxPerCode: DefaultMaxPerCode}
	opts := Options{Memo: grammar.NewMemo(), Incremental: true}
	text := grammar.NewText([]byte(erroneousConfig(100_000)))
	parsed := Parse([]Input{BufferText("t.conf", text)}, cfg, opts)
	checked := Check(ctx, parsed)
	checked.Prepare()
	mid := text.LineStart(50_000) + 5 // inside "mNNNNN = ..."
	for _, step := range []struct {
		name      string
		at, end   int
		ins       string
		maxChecks int
	}{
		{"enter at a line's start", text.LineStart(50_000), text.LineStart(50_000), "\n", 0},
		{"enter inside a definition", mid, mid, "\n", 2},
		{"join it again", mid, mid + 1, "", 2},
		{"delete a line", text.LineStart(60_000), text.LineStart(60_001), "", 1},
		{"paste three lines", text.LineStart(40_000), text.LineStart(40_000), "a1 = 1\na2 = a1 + 1\n# c\n", 2},
	} {
		next := text.Replace(step.at, step.end, []byte(step.ins))
		opts.Change = &grammar.TextChange{Start: step.at, OldEnd: step.end, NewEnd: step.at + len(step.ins)}
		t0 := time.Now()
		p, _ := Reparse(parsed, "t.conf", next, cfg, opts)
		t1 := time.Now()
		got := Recheck(ctx, checked, p)
		t.Logf("%s: parse %v check %v", step.name, t1.Sub(t0), time.Since(t1))
		if got.Report == nil || got.refs.load() == nil {
			t.Fatalf("%s: checked whole", step.name)
		}
		if n := got.Report.CheckedMetrics(); n > step.maxChecks {
			t.Errorf("%s: %d metrics checked, want at most %d", step.name, n, step.maxChecks)
		}
		want := Run(ctx, []Input{BufferText("t.conf", next)}, cfg, Options{Incremental: true})
		if g, w := view(got), view(want); !reflect.DeepEqual(g, w) {
			t.Fatalf("%s:\n%s", step.name, viewDiff(g, w))
		}
		text, parsed, checked = next, p, got
	}
}

// BenchmarkEnter100000Lines: Enter at line 50,000 of 100,000 lines with
// findings on 2% of them, then the line break deleted again; each op is
// one edit's Reparse and Recheck, in process.
func BenchmarkEnter100000Lines(b *testing.B) {
	src, err := embedded.Source()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	cfg := Config{Version: VersionChoice{Version: pcpver.Latest, Reason: "test"}, Source: pmclient.NewCache(src), MaxPerCode: DefaultMaxPerCode}
	opts := Options{Memo: grammar.NewMemo(), Incremental: true}
	text := grammar.NewText([]byte(erroneousConfig(100_000)))
	parsed := Parse([]Input{BufferText("t.conf", text)}, cfg, opts)
	checked := Check(ctx, parsed)
	checked.Prepare()
	at := text.LineStart(50_000) + 5
	var parse, check time.Duration
	b.ResetTimer()
	for i := range b.N {
		var next *grammar.Text
		if i%2 == 0 {
			next = text.Replace(at, at, []byte("\n"))
			opts.Change = &grammar.TextChange{Start: at, OldEnd: at, NewEnd: at + 1}
		} else {
			next = text.Replace(at, at+1, nil)
			opts.Change = &grammar.TextChange{Start: at, OldEnd: at + 1, NewEnd: at}
		}
		t0 := time.Now()
		p, _ := Reparse(parsed, "t.conf", next, cfg, opts)
		t1 := time.Now()
		c := Recheck(ctx, checked, p)
		parse, check = parse+t1.Sub(t0), check+time.Since(t1)
		if c.Report.CheckedMetrics() > 2 {
			b.Fatalf("%d metrics checked", c.Report.CheckedMetrics())
		}
		text, parsed, checked = next, p, c
	}
	b.ReportMetric(float64(parse.Nanoseconds())/float64(b.N), "ns-parse")
	b.ReportMetric(float64(check.Nanoseconds())/float64(b.N), "ns-check")
}
