package grammar

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// requirePCP fails the test when the real PCP tools are missing, unless the
// explicit opt-out variable is set.
func requirePCP(t *testing.T) {
	t.Helper()
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1: not comparing with libpcp")
	}
	if _, err := exec.LookPath("pminfo"); err != nil {
		t.Fatal("pminfo not found: run scripts/pcp-testenv.sh (or set PCP_DERIVE_LSP_NO_ORACLE=1)")
	}
}

// pcpLines is what `check --format pcp` prints: libpcp's lines, in order.
func pcpLines(f *File) string {
	var b strings.Builder
	for _, d := range f.Diagnostics {
		for _, l := range d.PCP {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// libpcpStderr loads a config with the real libpcp and returns its stderr.
func libpcpStderr(t *testing.T, dir, name string) string {
	t.Helper()
	cmd := exec.Command("pminfo", "-h", "127.0.0.1", "-c", name, "-d", "sample.long.one")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PCP_DERIVED_CONFIG=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pminfo -c %s: %v\n%s", name, err, stderr.String())
	}
	return stderr.String()
}

// Every config under testdata/config must make us print exactly what
// libpcp 6.0.3 prints when it loads the file.
func TestConfigMessagesMatchLibpcp(t *testing.T) {
	requirePCP(t)
	files, err := filepath.Glob("testdata/config/*.conf")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test configs: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(path)
			f := ParseConfig(name, src, Options{Version: pcpver.V6_0_3})
			got := pcpLines(f)
			want := libpcpStderr(t, filepath.Dir(path), name)
			if got != want {
				t.Errorf("libpcp prints:\n%s\nwe print:\n%s", want, got)
			}
		})
	}
}

func TestConfigStructure(t *testing.T) {
	src := []byte("# c\nm.a = 1\nm.x = 1 +\n  2\nm.a(oneline) = 'one\nline'\nm.b = m.a\nlast = 1")
	f := ParseConfig("x.conf", src, Options{Version: pcpver.V6_0_3})
	var names []string
	for _, d := range f.Definitions.All() {
		names = append(names, d.Name)
	}
	if got := strings.Join(names, ","); got != "m.a,m.x,m.b,last" {
		t.Errorf("definitions %s", got)
	}
	last := f.Definitions.At(3)
	if last.Registered || !last.Verdict.OK {
		t.Errorf("final line without newline: registered=%v ok=%v", last.Registered, last.Verdict.OK)
	}
	if len(f.Attributes) != 1 || f.Attributes[0].Value != "one\nline" || !f.Attributes[0].Applied {
		t.Errorf("attributes %+v", f.Attributes)
	}
	if len(f.Comments) != 1 {
		t.Errorf("comments %v", f.Comments)
	}
	codes := map[string]bool{}
	for _, d := range f.Diagnostics {
		codes[d.Code] = true
	}
	for _, want := range []string{"syntax", "missing-equals", "no-final-newline"} {
		if !codes[want] {
			t.Errorf("missing diagnostic %s in %+v", want, f.Diagnostics)
		}
	}
	// The syntax error's range is in file coordinates: line 3, at the "+".
	for _, d := range f.Diagnostics {
		if d.Code == "syntax" && (d.Range.Start.Line != 3 || d.Range.Start.Col != 9) {
			t.Errorf("syntax error at %v, want 3:9", d.Range.Start)
		}
	}
}

func TestContinuationLinesPCP7(t *testing.T) {
	src := []byte("m.a = 1 + \\\n   2\nm.b = m.a\n")
	f := ParseConfig("x.conf", src, Options{Version: pcpver.Latest})
	if len(f.Diagnostics) != 0 {
		t.Fatalf("diagnostics %+v", f.Diagnostics)
	}
	d := f.Definitions.At(0)
	if d.Expr != "1 +    2" {
		t.Errorf("joined expression %q", d.Expr)
	}
	// "2" sits on line 2, column 4 of the file.
	if p := f.Pos(f.ExprPos(d, 7)); p.Line != 2 || p.Col != 4 {
		t.Errorf("offset maps to %v", p)
	}
	if f.Definitions.At(1).Line != 3 {
		t.Errorf("next definition reported on line %d", f.Definitions.At(1).Line)
	}
}

// TestMemo: re-reading a file through a memo gives the same definitions,
// verdicts and diagnostics, and shares the unchanged expressions' trees.
func TestMemo(t *testing.T) {
	src := []byte("a = x.y + 1\nb = matchinst(/foo/\nc = 3 / x.y\nd = x.y + 1\ne = delta(x.z)\n")
	memo := NewMemo()
	first := ParseConfig("m.conf", src, Options{Version: pcpver.Latest, Memo: memo})
	plain := ParseConfig("m.conf", src, Options{Version: pcpver.Latest})
	second := ParseConfig("m.conf", src, Options{Version: pcpver.Latest, Memo: memo})
	for i, d := range plain.Definitions.All() {
		for _, other := range []*Definition{first.Definitions.At(i), second.Definitions.At(i)} {
			if other.Verdict != d.Verdict || len(other.Tokens()) != len(d.Tokens()) || other.Registered != d.Registered {
				t.Errorf("%s: memo changed the parse: %+v vs %+v", d.Name, other.Verdict, d.Verdict)
			}
			got, err1 := other.Tree()
			want, err2 := d.Tree()
			if (err1 == nil) != (err2 == nil) || err1 == nil && Format(got) != Format(want) {
				t.Errorf("%s: tree %v %v, want %v %v", d.Name, got, err1, want, err2)
			}
		}
	}
	if fmt.Sprint(first.Diagnostics) != fmt.Sprint(plain.Diagnostics) || fmt.Sprint(second.Diagnostics) != fmt.Sprint(plain.Diagnostics) {
		t.Errorf("diagnostics differ with a memo:\n%v\n%v", second.Diagnostics, plain.Diagnostics)
	}
	t1, _ := first.Definitions.At(0).Tree()
	t2, _ := second.Definitions.At(0).Tree()
	if t1 != t2 {
		t.Error("an unchanged expression was parsed again")
	}
	memo.Trim()
	ParseConfig("m.conf", []byte("a = x.y + 2\n"), Options{Version: pcpver.Latest, Memo: memo})
	memo.Trim()
	if memo.Len() != 1 {
		t.Errorf("memo keeps %d expressions after trimming, want 1", memo.Len())
	}
}

// TestPosUTF16: LSP columns count UTF-16 units: one for ASCII and other
// BMP characters, two for characters beyond, one for an invalid byte.
func TestPosUTF16(t *testing.T) {
	src := []byte("a = 1\n# é😀\xffx\n")
	f := ParseConfig("u.conf", src, Options{Version: pcpver.Latest})
	x := strings.IndexByte(string(src), 'x')
	for _, tc := range []struct {
		offset      int
		line, col16 int32
	}{
		{0, 1, 0}, {4, 1, 4}, {6, 2, 0}, {8, 2, 2}, {10, 2, 3}, {14, 2, 5}, {x, 2, 6},
	} {
		if p := f.Pos(tc.offset); p.Line != tc.line || p.Col16 != tc.col16 {
			t.Errorf("offset %d: line %d col16 %d, want %d %d", tc.offset, p.Line, p.Col16, tc.line, tc.col16)
		}
	}
}

// TestPosCheckpoints: positions on lines far longer than the checkpoint
// step, with multi-byte runes straddling checkpoints, equal a scan from
// the line's start.
func TestPosCheckpoints(t *testing.T) {
	var b strings.Builder
	b.WriteString("x = 1\n# ")
	for b.Len() < 3*col16Step {
		b.WriteString("aé😀\xff")
	}
	b.WriteString("\n" + strings.Repeat("b", 2*col16Step+3) + "\n\nz")
	src := []byte(b.String())
	f := ParseConfig("long.conf", src, Options{Version: pcpver.Latest})
	naive := func(offset int) (line, col16 int32) {
		start := bytes.LastIndexByte(src[:offset], '\n') + 1
		line = int32(bytes.Count(src[:offset], []byte("\n")) + 1)
		return line, int32(len(utf16.Encode([]rune(string(src[start:offset])))))
	}
	for offset := 0; offset <= len(src); offset++ {
		line, col16 := naive(offset)
		p := f.Pos(offset)
		if p.Line != line || p.Col16 != col16 {
			t.Fatalf("offset %d: line %d col16 %d, want %d %d", offset, p.Line, p.Col16, line, col16)
		}
		if back := f.OffsetOf(p); back != offset {
			t.Fatalf("offset %d: position %+v converts back to %d", offset, p, back)
		}
	}
}

// TestFormatDefinition: long pcp7 definitions go over continuation lines
// that read back as the same expression; pcp6 keeps one line.
func TestFormatDefinition(t *testing.T) {
	for _, tc := range []struct {
		expr  string
		d     pcpver.Version
		width int
		want  string
	}{
		{"a+b", pcpver.Latest, 100, "m = a + b"},
		{"a+b-c*d", pcpver.Latest, 10, "m = a \\\n    + b \\\n    - c * d"},
		{"x>0?a:b", pcpver.Latest, 10, "m = x > 0 \\\n    ? a \\\n    : b"},
		{"a+b-c*d", pcpver.V6_0_3, 10, "m = a + b - c * d"},
		{"(a+b)*c", pcpver.Latest, 5, "m = (a + b) \\\n    * c"},
	} {
		tree, err := ParseExpr(tc.expr, tc.d)
		if err != nil {
			t.Fatal(err)
		}
		got := FormatDefinition("m", tree, tc.d, tc.width)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.expr, got, tc.want)
		}
		f := ParseConfig("f.conf", []byte(got+"\n"), Options{Version: tc.d})
		if f.Definitions.Len() != 1 || !f.Definitions.At(0).Verdict.OK {
			t.Fatalf("%q does not read back: %+v", got, f.Diagnostics)
		}
		back, _ := f.Definitions.At(0).Tree()
		if Format(back) != Format(tree) {
			t.Errorf("%q reads back as %q", got, Format(back))
		}
	}
}

// TestOffsetMap: the run-length map of expression bytes to file offsets
// answers as the slice of every byte's offset it replaced did.
func TestOffsetMap(t *testing.T) {
	sliceIndex := func(offs []int, offset int) int {
		for i, o := range offs {
			if o >= offset {
				if o == offset {
					return i
				}
				return max(i-1, 0)
			}
		}
		if len(offs) > 0 && offset == offs[len(offs)-1]+1 {
			return len(offs)
		}
		return -1
	}
	slicePos := func(offs []int, i int) int {
		switch {
		case len(offs) == 0:
			return 0
		case i >= len(offs):
			return offs[len(offs)-1] + 1
		}
		return offs[max(i, 0)]
	}
	for _, offs := range [][]int{
		nil,
		{7},
		{4, 5, 6, 7},
		{4, 5, 8, 9, 10, 14},     // two continuations cut out
		{10, 11, 12, 20, 21, 30}, // a run of one byte at the end
	} {
		m := newOffsetMap(offs)
		for i := -2; i <= len(offs)+2; i++ {
			if got, want := m.fileOffset(i, len(offs)), slicePos(offs, i); got != want {
				t.Errorf("%v: fileOffset(%d) = %d, want %d", offs, i, got, want)
			}
		}
		for o := 0; o <= 35; o++ {
			if got, want := m.exprIndex(o, len(offs)), sliceIndex(offs, o); got != want {
				t.Errorf("%v: exprIndex(%d) = %d, want %d", offs, o, got, want)
			}
		}
	}
}

// newOffsetMap makes the map of an expression whose bytes are at the
// given file offsets, as the reader's logical line does.
func newOffsetMap(offs []int) offsetMap {
	var ln logicalLine
	for _, o := range offs {
		ln.append('x', o)
	}
	return ln.offsetMap(0)
}
