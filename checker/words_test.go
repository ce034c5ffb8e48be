package checker

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// wordsConfig is a config big enough for the read to prefetch its
// verdicts (and list its words): generated definitions libpcp accepts
// (as bench/check.sh's), and the cases the listing leaves to the
// checker: a definition over two lines, one whose "/" libpcp lexes as a
// pattern, one rejected, and strings.
func wordsConfig() []byte {
	g := exprgen.New(23, append([]string{"gen.m7", "no.such.metric"}, genMetrics...))
	g.BrokenShare = 0
	var b strings.Builder
	for i := range 2500 {
		expr := g.Next()
		// A definition that leaves libpcp's matchinst flag up has the
		// lines after it read so, without the prefetch.
		if v := grammar.LibpcpVerdict(expr, pcpver.V6_0_3, false); !v.OK || v.Leak {
			continue
		}
		fmt.Fprintf(&b, "gen.m%d = %s\n", i, expr)
		switch i {
		case 100:
			b.WriteString("gen.wrapped = sample.long.one + \\\n    sample.long.ten\n")
		case 200:
			b.WriteString("gen.pattern = matchinst(/bin-[0-9]+/, sample.bin) / sample.part_bin\n")
		case 300:
			b.WriteString("gen.rejected = sample.long.one + + sample.long.hundred\n")
		case 400:
			b.WriteString(`gen.strings = mkconst(1, type="u32", units="byte", meta=sample.long.million)` + "\n")
		}
	}
	return []byte(b.String())
}

// TestWordsFromTheRead: with the words the read listed, the words a
// check looks up are every word lexing each metric gives (and perhaps a
// few more), and only the definitions the read did not list are lexed
// again.
func TestWordsFromTheRead(t *testing.T) {
	text := wordsConfig()
	for _, v := range []pcpver.Version{pcpver.V5_2_6, pcpver.V6_0_3, pcpver.Latest} {
		f := grammar.ParseConfigsWith([]grammar.Source{{Path: "w.conf", Src: text}}, grammar.Options{Version: v})[0]
		_, unlisted, ok := f.ExprWords()
		if !ok {
			t.Fatalf("%s: the read of %d bytes listed no words", v, len(text))
		}
		var metrics []*Metric
		for _, d := range f.Definitions.All() {
			if d.Registered {
				metrics = append(metrics, &Metric{Def: d, file: f})
			}
		}
		lexedAgain := 0
		for _, d := range unlisted {
			if d.Registered {
				lexedAgain++
			}
		}
		if lexedAgain > len(metrics)/10 {
			t.Errorf("%s: %d of %d metrics unlisted: the read's words are not used", v, lexedAgain, len(metrics))
		}
		for _, keep := range []func(string) bool{nil, underTop(map[string]bool{"sample": true, "gen": true})} {
			lexed, _ := metricWords(metrics, keep, func(*Metric) bool { return true })
			got := map[string]bool{}
			for _, w := range wordsInOrder(metrics, keep) {
				if got[w] {
					t.Errorf("%s: %q listed twice", v, w)
				}
				got[w] = true
			}
			for _, w := range lexed {
				if !got[w] {
					t.Errorf("%s: %q is a word of the expressions, not listed", v, w)
				}
			}
			want := []string{"sample.long.ten", "sample.part_bin"}
			if v == pcpver.Latest { // continuation lines and mkconst()
				want = append(want, "u32", "gen.wrapped")
			}
			for _, w := range want {
				if !got[w] && (keep == nil || keep(w)) {
					t.Errorf("%s: %q missing", v, w)
				}
			}
		}
	}
}

// TestFindingsOnlyListedWordsSameFindings: a FindingsOnly check of a
// config whose read listed the words reports what a full check of the
// same text read without listing them does.
func TestFindingsOnlyListedWordsSameFindings(t *testing.T) {
	src := pmclient.NewCache(liveMetadata(t))
	text := wordsConfig()
	v := pcpver.V6_0_3
	listed := grammar.ParseConfigsWith([]grammar.Source{{Path: "w.conf", Src: text}}, grammar.Options{Version: v})[0]
	plain := grammar.ParseConfig("w.conf", text, grammar.Options{Version: v})
	if _, _, ok := plain.ExprWords(); ok {
		t.Fatal("ParseConfig listed words")
	}
	lean, err := Check(context.Background(), []*grammar.File{listed}, src, Options{Version: v, FindingsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	full, err := Check(context.Background(), []*grammar.File{plain}, src, Options{Version: v})
	if err != nil {
		t.Fatal(err)
	}
	ld, fd := lean.Diagnostics(listed), full.Diagnostics(plain)
	if len(fd) < 100 || len(ld) != len(fd) {
		t.Fatalf("%d findings with the listed words, %d without", len(ld), len(fd))
	}
	for i := range fd {
		if !reflect.DeepEqual(fd[i], ld[i]) {
			t.Fatalf("finding %d:\n listed %+v\n lexed  %+v", i, ld[i], fd[i])
		}
	}
}
