package grammar

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/testsize"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// editConfig is a generated config with what makes lines depend on each
// other: duplicates, attributes (some before their metric, some quoted
// over several lines), #control lines, continuations, suppression
// comments, broken expressions that leave libpcp's matchinst flag up.
func editConfig(rng *rand.Rand, g *exprgen.Generator, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("m%d", rng.IntN(n))
		switch k := rng.IntN(20); {
		case k < 10:
			fmt.Fprintf(&b, "%s = %s\n", name, g.Next())
		case k == 10:
			fmt.Fprintf(&b, "%s(oneline) = \"help for %s\"\n", name, name)
		case k == 11:
			fmt.Fprintf(&b, "%s(helptext) = 'two\nlines'\n", name)
		case k == 12:
			fmt.Fprintf(&b, "#control option_novalue=%d\n", rng.IntN(2))
		case k == 13:
			fmt.Fprintf(&b, "# pcp-derive-lsp: ignore[unknown-metric]\n")
		case k == 14:
			fmt.Fprintf(&b, "%s = a.b + \\\n  c.d\n", name)
		case k == 15:
			fmt.Fprintf(&b, "%s = matchinst(/x/, sample.bin\n", name)
		case k == 16:
			b.WriteString("\n")
		case k == 17:
			fmt.Fprintf(&b, "# comment %d\n", i)
		default:
			fmt.Fprintf(&b, "%s = %s + m%d\n", name, "kernel.all.load", rng.IntN(n))
		}
	}
	if rng.IntN(4) == 0 {
		b.WriteString("last = 1") // no final newline
	}
	return b.String()
}

// randomEdit is a keystroke-like change of text: a character typed or
// deleted, sometimes a few.
func randomEdit(rng *rand.Rand, text string) (string, TextChange) {
	at := rng.IntN(len(text) + 1)
	typed := []string{"x", "1", " ", "(", ")", "=", "\"", "'", "\\", "#", "/", "+", ".", "m1", "\n", "matchinst(/", "#control option_novalue=1", "m2"}
	if rng.IntN(3) == 0 && at < len(text) {
		end := min(len(text), at+1+rng.IntN(3))
		return text[:at] + text[end:], TextChange{Start: at, OldEnd: end, NewEnd: at}
	}
	s := typed[rng.IntN(len(typed))]
	return text[:at] + s + text[at:], TextChange{Start: at, OldEnd: at, NewEnd: at + len(s)}
}

// fileView is what a File says, for comparing two.
type fileView struct {
	Defs          []defView
	Attributes    []Attribute
	Comments      []Range
	Diagnostics   []Diagnostic
	Leak          bool
	OptionNovalue *bool
	Positions     []Pos
	// Registered and RegisteredM are the file's name index answering
	// completion's prefix search (layered over edits in a Reparse).
	Registered, RegisteredM []string
	// Registrations are, for each name the file defines or sets an
	// attribute of, where Registration's definition and attribute lines
	// start (the index's places, as the file's own items).
	Registrations map[string][]Pos
}

type defView struct {
	Name, Expr        string
	NameRange, Range  Range
	Tokens            []Token
	Verdict           Verdict
	Registered        bool
	Line              int
	Leaked            bool
	ExprPos           []int
	Offsets           [4]int // NameRange and Range, as byte offsets
	TreeText, TreeErr string
}

func viewOf(f *File) fileView {
	v := fileView{Leak: f.Leak, OptionNovalue: f.OptionNovalue, Registered: f.RegisteredWithPrefix(""), RegisteredM: f.RegisteredWithPrefix("m")}
	if len(f.Comments) > 0 {
		v.Comments = f.Comments
	}
	if len(f.Diagnostics) > 0 {
		v.Diagnostics = f.Diagnostics
	}
	for _, d := range f.Definitions.All() {
		dv := defView{Name: d.Name, Expr: d.Expr, NameRange: d.NameRange, Range: d.Range, Tokens: d.Tokens(), Verdict: d.Verdict,
			Registered: d.Registered, Line: int(d.Line), Leaked: d.leaked}
		for i := -1; i <= len(d.Expr); i++ {
			dv.ExprPos = append(dv.ExprPos, f.ExprPos(d, i))
		}
		dv.Offsets = [4]int{f.OffsetOf(d.NameRange.Start), f.OffsetOf(d.NameRange.End), f.OffsetOf(d.Range.Start), f.OffsetOf(d.Range.End)}
		if t, err := d.Tree(); err != nil {
			dv.TreeErr = err.Error()
		} else {
			dv.TreeText = Format(t)
		}
		v.Defs = append(v.Defs, dv)
	}
	for _, a := range f.Attributes {
		v.Attributes = append(v.Attributes, *a)
	}
	v.Registrations = registrationsOf(f)
	for off := 0; off <= f.Len(); off += 1 + off%7 {
		v.Positions = append(v.Positions, f.Pos(off))
	}
	return v
}

// registrationsOf is fileView.Registrations, each definition and
// attribute line checked to be f's own.
func registrationsOf(f *File) map[string][]Pos {
	own := map[any]bool{}
	names := map[string]bool{}
	for _, d := range f.Definitions.All() {
		own[d], names[d.Name] = true, true
	}
	for _, a := range f.Attributes {
		own[a], names[a.Metric] = true, true
	}
	out := map[string][]Pos{}
	for name := range names {
		def, attrs := f.Registration(name)
		places := []Pos{{}}
		if def != nil {
			places[0] = def.Range.Start
			if !own[def] {
				places[0] = Pos{Line: -1} // not f's
			}
		}
		for _, a := range attrs {
			p := a.Range.Start
			if !own[a] {
				p = Pos{Line: -1}
			}
			places = append(places, p)
		}
		out[name] = places
	}
	return out
}

// TestReparseEqualsParse: after random keystrokes, each read again with
// Reparse from the previous result, the file equals a fresh ParseConfig of
// the same text, on each grammar.
//
// Under -race it runs one case in eight (internal/testsize); make test
// runs every case again without it.
func TestReparseEqualsParse(t *testing.T) {
	type run struct {
		limit int
		v     pcpver.Version
		seed  uint64
	}
	var runs []run
	// Also with a cap of 2 findings of a kind (Options.MaxPerCode), which
	// the generated configs pass: Reparse leaves those to a full read.
	for _, limit := range []int{0, 2} {
		for _, v := range []pcpver.Version{pcpver.V6_0_3, pcpver.Latest} {
			for seed := uint64(1); seed <= 12; seed++ {
				runs = append(runs, run{limit, v, seed})
			}
		}
	}
	sampled := testsize.Sample(t, runs)
	fast, moved, steps, capped := 0, 0, 0, 0
	for _, r := range sampled {
		limit, v, seed := r.limit, r.v, r.seed
		rng := rand.New(rand.NewPCG(seed, 7))
		g := exprgen.New(seed, []string{"kernel.all.load", "sample.bin", "disk.dev.read"})
		// The last seed's texts are of several Text pieces (over 8 KB).
		lines := 40
		if seed == 12 {
			lines = 200
		}
		text := editConfig(rng, g, lines)
		memo := NewMemo()
		opts := Options{Version: v, Memo: memo, MaxPerCode: limit}
		f := ParseConfig("t.conf", []byte(text), opts)
		doc := f.Text
		if pieces, _, _ := flatIndex(t, doc); seed == 12 && len(pieces) < 2 {
			t.Fatalf("a text of %d bytes is one piece", len(text))
		}
		for step := 0; step < 150; step++ {
			var ch TextChange
			text, ch = randomEdit(rng, text)
			// The editor's way (the pieces of the text before
			// shared), and now and then a text read whole.
			doc = doc.Replace(ch.Start, ch.OldEnd, []byte(text[ch.Start:ch.NewEnd]))
			if step%10 == 9 {
				doc = NewText([]byte(text))
			}
			if doc.String() != text {
				t.Fatalf("step %d: the edited Text differs from the text", step)
			}
			var ok bool
			prev := f
			f, ok = Reparse(f, doc, ch, opts)
			checkReplaced(t, prev, f, ok)
			checkLinesRead(t, f, ch, ok)
			more := slices.ContainsFunc(f.Diagnostics, func(d Diagnostic) bool { return d.More > 0 })
			if f.standIns != more {
				t.Fatalf("step %d: standIns %v, a stand-in among the findings %v", step, f.standIns, more)
			}
			switch {
			case limit > 0:
				if more {
					capped++
				}
			default:
				steps++
				if ok {
					fast++
					if f.Text.LineCount() != prev.Text.LineCount() {
						moved++
					}
				}
			}
			want := ParseConfig("t.conf", []byte(text), Options{Version: v, MaxPerCode: limit})
			if got, exp := viewOf(f), viewOf(want); !reflect.DeepEqual(got, exp) {
				t.Fatalf("%s seed %d step %d (incremental %v), change %+v: reparse differs from a fresh parse\ntext:\n%s\n%s",
					v, seed, step, ok, ch, text, firstDifference(got, exp))
			}
			memo.Trim()
		}
	}
	// 100 over all the runs; under -race, the sampled runs' share of it.
	if want := 100 * len(sampled) / len(runs); capped < want {
		t.Errorf("only %d reads with a stand-in for capped findings, want %d", capped, want)
	}
	// Many keystrokes stay inside their line's meaning (the generated
	// configs are dense with what makes a keystroke cost the whole file).
	if fast < steps/6 {
		t.Errorf("only %d of %d keystrokes were read incrementally", fast, steps)
	}
	// An Enter, or a line break deleted, is read from its lines too, the
	// lines after it moved.
	if moved < steps/200 {
		t.Errorf("only %d of %d keystrokes that added or removed lines were read incrementally", moved, steps)
	}
	t.Logf("%d of %d keystrokes read incrementally (%d adding or removing lines); %d capped reads with a stand-in", fast, steps, moved, capped)
}

// checkMoved checks what MovedDefinitions says of f, made from prev by
// Reparse: for a read that added or removed lines, the definitions before
// the edited lines prev's own and those after them prev's moved, sharing
// their trees (a registered one's); it reports whether f is such a read.
func checkMoved(t *testing.T, prev, f *File, incremental bool) bool {
	t.Helper()
	from, oldTo, newTo, dl, ok := f.MovedDefinitions(prev)
	if !ok {
		if incremental && f.Text.LineCount() != prev.Text.LineCount() {
			t.Fatalf("a read that added %d lines reports no moved definitions", f.Text.LineCount()-prev.Text.LineCount())
		}
		return false
	}
	if !incremental || int(dl) != f.Text.LineCount()-prev.Text.LineCount() {
		t.Fatalf("moved definitions reported by %d lines, for a read (incremental %v) that added %d", dl, incremental, f.Text.LineCount()-prev.Text.LineCount())
	}
	pd, nd := checkHeadKept(t, "moved", prev, f, from, oldTo, newTo)
	for i := 0; i < len(pd)-oldTo; i++ {
		a, b := pd[oldTo+i], nd[newTo+i]
		// A registered one's tree is the same (an unregistered one's
		// is not checked).
		sameTree := !a.Registered
		if !sameTree {
			ta, _ := a.Tree()
			tb, _ := b.Tree()
			sameTree = ta == tb
		}
		if a.Name != b.Name || a.Expr != b.Expr || a.Verdict != b.Verdict || a.Registered != b.Registered || a.Line+dl != b.Line ||
			a.Range.MovedBy(dl) != b.Range || a.NameRange.MovedBy(dl) != b.NameRange || !sameTree || prev.SpecZero(a) != f.SpecZero(b) {
			t.Fatalf("definition %d is not prev's %d moved by %d lines", newTo+i, oldTo+i, dl)
		}
	}
	if _, _, _, ok := f.ReplacedDefinitions(prev); ok {
		t.Fatalf("a read that moved definitions reports them prev's own")
	}
	return true
}

// checkHeadKept checks that an edit's range of definitions, [from, oldTo)
// of prev's and [from, newTo) of f's, fits both files with the same
// number after it, and that the definitions before it are prev's own;
// it returns both files' definitions.
func checkHeadKept(t *testing.T, what string, prev, f *File, from, oldTo, newTo int) (pd, nd []*Definition) {
	t.Helper()
	pd, nd = prev.Definitions.Collect(), f.Definitions.Collect()
	if from > oldTo || from > newTo || oldTo > len(pd) || newTo > len(nd) || len(pd)-oldTo != len(nd)-newTo {
		t.Fatalf("%s range [%d, %d) → [%d, %d) does not fit %d and %d definitions", what, from, oldTo, from, newTo, len(pd), len(nd))
	}
	for i := 0; i < from; i++ {
		if pd[i] != nd[i] {
			t.Fatalf("definition %d before the %s range is not prev's own", i, what)
		}
	}
	return pd, nd
}

// checkLinesRead checks what f says its read went through: every line of
// its text when read whole, else no more than the lines ch touched (one
// more when it ends at a line's start: the line it ends in is read).
func checkLinesRead(t *testing.T, f *File, ch TextChange, incremental bool) {
	t.Helper()
	if !incremental {
		if f.LinesRead() != f.Text.LineCount() {
			t.Fatalf("a file read whole read %d of its %d lines", f.LinesRead(), f.Text.LineCount())
		}
		return
	}
	first, _ := f.Text.LineOf(ch.Start)
	last, _ := f.Text.LineOf(ch.NewEnd)
	if touched := last - first + 2; f.LinesRead() > touched {
		t.Fatalf("change %+v touched %d lines, and Reparse read %d", ch, touched, f.LinesRead())
	}
}

// firstDifference describes where two views first differ.
func firstDifference(got, want fileView) string {
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := 0; i < gv.NumField(); i++ {
		name := gv.Type().Field(i).Name
		g, w := gv.Field(i), wv.Field(i)
		if reflect.DeepEqual(g.Interface(), w.Interface()) {
			continue
		}
		if g.Kind() == reflect.Slice {
			for k := 0; k < max(g.Len(), w.Len()); k++ {
				switch {
				case k >= g.Len():
					return fmt.Sprintf("%s[%d]: missing, want %+v", name, k, w.Index(k).Interface())
				case k >= w.Len():
					return fmt.Sprintf("%s[%d]: %+v, want none", name, k, g.Index(k).Interface())
				case !reflect.DeepEqual(g.Index(k).Interface(), w.Index(k).Interface()):
					return fmt.Sprintf("%s[%d]:\n got %+v\nwant %+v", name, k, g.Index(k).Interface(), w.Index(k).Interface())
				}
			}
		}
		return fmt.Sprintf("%s: got %+v, want %+v", name, g.Interface(), w.Interface())
	}
	return "no difference"
}

// TestTextChangeThen: the change composed from a run of random edits
// leaves the bytes before and after it as they were, and spans no more
// than the edits did.
func TestTextChangeThen(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		orig := strings.Repeat("abcdefghij\n", 1+rng.IntN(20))
		text := orig
		var total TextChange
		for k := range 1 + rng.IntN(6) {
			start := rng.IntN(len(text) + 1)
			end := start + rng.IntN(len(text)-start+1)
			ins := strings.Repeat("XY\n", rng.IntN(3))
			text = text[:start] + ins + text[end:]
			ch := TextChange{Start: start, OldEnd: end, NewEnd: start + len(ins)}
			if k == 0 {
				total = ch
			} else {
				total = total.Then(ch)
			}
		}
		if total.Start < 0 || total.Start > total.OldEnd || total.OldEnd > len(orig) || total.Start > total.NewEnd || total.NewEnd > len(text) ||
			len(text)-total.NewEnd != len(orig)-total.OldEnd || orig[:total.Start] != text[:total.Start] || orig[total.OldEnd:] != text[total.NewEnd:] {
			t.Fatalf("composed change %+v does not describe %q → %q", total, orig, text)
		}
	}
}

// TestFindingCap: past Options.MaxPerCode syntax findings of one code and
// severity, a file lists one stand-in where the first of the rest is,
// counting them; findings Options.Suppressed reports are listed and not
// counted; with no cap every finding is listed; a fix goes with its own
// finding.
func TestFindingCap(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "name%d\n", i) // missing "="
	}
	src := []byte(b.String())
	uncapped := ParseConfig("c.conf", src, Options{Version: pcpver.V6_0_3})
	all := uncapped.Diagnostics
	if len(all) != 30 || uncapped.standIns || slices.ContainsFunc(all, func(d Diagnostic) bool { return d.More > 0 }) {
		t.Fatalf("uncapped: %d findings", len(all))
	}
	onLine5 := func(_ *File, d Diagnostic) bool { return d.Range.Start.Line == 5 }
	capped := ParseConfig("c.conf", src, Options{Version: pcpver.V6_0_3, MaxPerCode: 10, Suppressed: onLine5}).Diagnostics
	total, standIns := 0, 0
	for _, d := range capped {
		total += d.Count()
		if d.More > 0 {
			standIns++
			// Lines 1-11 are listed (line 5 is not counted): the rest
			// start at line 12.
			if d.More != 19 || d.Range.Start.Line != 12 || d.Code != "missing-equals" {
				t.Errorf("stand-in %+v, want 19 more from line 12", d)
			}
		}
	}
	if len(capped) != 12 || standIns != 1 || total != 30 {
		t.Errorf("capped: %d listed, %d stand-ins, %d counted; want 12, 1, 30", len(capped), standIns, total)
	}

	// A duplicate past the cap keeps its removal to itself: it once
	// landed on the last finding listed, of another line.
	dups := []byte("a = 1\na = 2\na = 3\nb(oneline) = \"x\"\na = 4\n")
	for _, d := range ParseConfig("d.conf", dups, Options{Version: pcpver.V6_0_3, MaxPerCode: 1}).Diagnostics {
		for _, fix := range d.Fixes {
			if fix.Edits[0].Range.Start.Line != d.Range.Start.Line {
				t.Errorf("the %s finding on line %d has a fix for line %d: %q", d.Code, d.Range.Start.Line, fix.Edits[0].Range.Start.Line, fix.Title)
			}
		}
	}
}

// checkReplaced: what ReplacedDefinitions says of a file Reparse read
// incrementally is so (every definition outside the range is prev's
// own), and it says nothing of a file read whole or of another prev.
func checkReplaced(t *testing.T, prev, f *File, incremental bool) {
	t.Helper()
	if checkMoved(t, prev, f, incremental) {
		return
	}
	from, oldTo, newTo, ok := f.ReplacedDefinitions(prev)
	switch {
	case !incremental && ok:
		t.Fatalf("a file read whole reports replaced definitions [%d, %d) → [%d, %d)", from, oldTo, from, newTo)
	case incremental && f != prev && !ok:
		t.Fatalf("an incremental reparse reports no replaced definitions")
	}
	if !ok {
		return
	}
	pd, nd := checkHeadKept(t, "replaced", prev, f, from, oldTo, newTo)
	for i := 0; i < len(pd)-oldTo; i++ {
		if pd[oldTo+i] != nd[newTo+i] {
			t.Fatalf("definition %d after the replaced range is not prev's own", newTo+i)
		}
	}
	if _, _, _, other := f.ReplacedDefinitions(&File{}); other {
		t.Fatalf("ReplacedDefinitions answers for another file")
	}
}

// TestCapFindingsSeq: a list over the cap is capped as a capped read
// lists it, in a list of its own size (an analysis holds it as what it
// shows, for as long as the version lives: a list the size of every
// finding would be kept with it); a list under the cap is not copied.
func TestCapFindingsSeq(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "name%d\n", i) // missing "="
	}
	src := []byte(b.String())
	all := ParseConfig("c.conf", src, Options{Version: pcpver.V6_0_3}).Diagnostics
	want := ParseConfig("c.conf", src, Options{Version: pcpver.V6_0_3, MaxPerCode: 100}).Diagnostics
	f := ParseConfig("c.conf", src, Options{Version: pcpver.V6_0_3})
	got, over := CapFindingsSeq(f, slices.Values(all), 100, nil)
	if !over || !reflect.DeepEqual(got, want) {
		t.Fatalf("over the cap: %v, %d findings, want %d as a capped read lists them", over, len(got), len(want))
	}
	if cap(got) > 2*len(got) {
		t.Errorf("%d findings in a list of capacity %d", len(got), cap(got))
	}
	if got, over := CapFindingsSeq(f, slices.Values(all), 3000, nil); over || got != nil {
		t.Errorf("under the cap: %v, %d findings; want the list as it is", over, len(got))
	}
}
