package grammar

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// staleSequence is a config of n definitions drawn at random from
// libpcp's ways of leaving its parse tree: a definition that parses, one
// that hits a syntax error, novalue() on both sides of a ternary (at the
// top and nested, which leaves the tree as it was), a duplicate name
// (never parsed) and a line that is not a definition.
func staleSequence(rng *rand.Rand, n int) string {
	kinds := []func(i int) string{
		func(i int) string { return fmt.Sprintf("s.ok%d = sample.long.one + %d\n", i, i) },
		func(i int) string { return fmt.Sprintf("s.bad%d = sample.long.one +\n", i) },
		func(i int) string { return fmt.Sprintf("s.bad%d = (1\n", i) },
		func(i int) string { return fmt.Sprintf("s.nv%d = sample.long.one > 0 ? novalue() : novalue()\n", i) },
		func(i int) string {
			return fmt.Sprintf("s.nv%d = 1 + (sample.long.one > %d ? novalue() : novalue()) * 2\n", i, i)
		},
		func(i int) string { return "s.dup = 3\n" },
		func(i int) string { return "# a comment\n" },
		func(i int) string { return fmt.Sprintf("s.f%d = mkconst(%d, type=u64)\n", i, i) },
	}
	var b strings.Builder
	for i := range n {
		b.WriteString(kinds[rng.IntN(len(kinds))](i))
	}
	return b.String()
}

// TestStaleNovalueAcrossReleases: libpcp's parser keeps its last tree
// between definitions, so novalue() on both sides of a ternary is
// registered after a definition that parsed and refused after one that
// failed (6.2.2 and later). 60 generated sequences of definitions, and
// one path of two files, get each release's own messages.
func TestStaleNovalueAcrossReleases(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261129, 42))
	var configs []string
	for range 60 {
		configs = append(configs, staleSequence(rng, 8))
	}
	for _, r := range oracle.ReleasesFor(t) {
		refused := 0
		for i, conf := range configs {
			name := fmt.Sprintf("stale%d.conf", i)
			want, err := r.ConfigMessages(t.Context(), name, []byte(conf))
			if err != nil {
				t.Fatal(err)
			}
			refused += strings.Count(want, staleNovalueMessage)
			if got := pcpLines(ParseConfig(name, []byte(conf), Options{Version: r.Version})); got != want {
				t.Errorf("%s, %s:\n%s\nlibpcp prints:\n%s\nwe print:\n%s", r, name, conf, want, got)
			}
		}
		t.Logf("%s: %d sequences of 8 definitions: %d double novalue() refused", r, len(configs), refused)
	}
}

// TestStaleNovalueModel: the verdict of novalue() on both sides of a
// ternary follows the parse before it, across the files of a path too,
// and only where the release has novalue().
func TestStaleNovalueModel(t *testing.T) {
	const nv = "y = sample.long.one > 0 ? novalue() : novalue()\n"
	for _, tc := range []struct {
		v     pcpver.Version
		files []string
		ok    bool
	}{
		{pcpver.V7_2_2, []string{nv}, true},
		{pcpver.V7_2_2, []string{"x = 1\n" + nv}, true},
		{pcpver.V7_2_2, []string{"x = 1 +\n" + nv}, false},
		{pcpver.V7_2_2, []string{"x = 1 +\nx2 = 1 ? novalue() : novalue()\n" + nv}, false},
		{pcpver.V7_2_2, []string{"x = 1 +\n# comment\nbad name = 1\n" + nv}, false},
		{pcpver.V7_2_2, []string{"x = 1 +\n", nv}, false},
		{pcpver.V7_2_2, []string{"x = 1 +\n", "z = 2\n" + nv}, true},
		{pcpver.V6_3_8, []string{"x = 1 +\n" + nv}, false},
	} {
		var srcs []Source
		for i, s := range tc.files {
			srcs = append(srcs, Source{Path: fmt.Sprintf("f%d.conf", i), Src: []byte(s)})
		}
		files := ParseConfigsWith(srcs, Options{Version: tc.v})
		last := files[len(files)-1]
		d := last.Definitions.At(last.Definitions.Len() - 1)
		if d.Verdict.OK != tc.ok || d.Registered != tc.ok {
			t.Errorf("%s, %q: ok=%v registered=%v, want %v (%+v)", tc.v, tc.files, d.Verdict.OK, d.Registered, tc.ok, last.Diagnostics)
		}
	}
}

// TestSpecZeroSurvivesReparse: an edit of another line keeps what the
// full read knew of libpcp's spec descriptor (File.SpecZero), and an
// edit that adds a mkconst( with a spec list before a novalue(SPECS) is
// read with the whole file, which then knows it was reset.
func TestSpecZeroSurvivesReparse(t *testing.T) {
	src := "a = 1\nb = sample.long.one > 0 ? novalue(units=Kbyte) : sample.bin\n"
	opts := Options{Version: pcpver.V6_3_8}
	prev := ParseText("z.conf", NewText([]byte(src)), opts)
	b := prev.Definitions.At(1)
	if !prev.SpecZero(b) {
		t.Fatalf("full read: b is not read with the zeroed spec descriptor")
	}
	for _, tc := range []struct {
		insert string
		zero   bool
	}{{" + 2", true}, {" + mkconst(1, type=double)", false}} {
		next := src[:5] + tc.insert + src[5:]
		f, _ := Reparse(prev, NewText([]byte(next)), TextChange{Start: 5, OldEnd: 5, NewEnd: 5 + len(tc.insert)}, opts)
		if got := f.SpecZero(f.Definitions.At(1)); got != tc.zero {
			t.Errorf("after inserting %q: SpecZero(b) = %v, want %v", tc.insert, got, tc.zero)
		}
	}
}
