package grammar

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// starterCase is one line of the conformance starter set collected from
// libpcp 6.0.3 (../shared/docs/conformance-starter-6.0.3.jsonl, copied into
// testdata): a syntax error has caret and msg.
type starterCase struct {
	Expr  string  `json:"expr"`
	Caret *int    `json:"caret"`
	Msg   *string `json:"msg"`
}

func loadStarter(t *testing.T) []starterCase {
	t.Helper()
	f, err := os.Open("testdata/conformance-starter-6.0.3.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []starterCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c starterCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		cases = append(cases, c)
	}
	return cases
}

func TestLibpcpVerdictStarterSet(t *testing.T) {
	for _, c := range loadStarter(t) {
		v := LibpcpVerdict(c.Expr, pcpver.V6_0_3, false)
		if c.Caret == nil {
			if !v.OK {
				t.Errorf("%q: rejected (caret %d, %q), libpcp accepts", c.Expr, v.Caret, v.Message)
			}
			continue
		}
		if v.OK {
			t.Errorf("%q: accepted, libpcp rejects at %d with %q", c.Expr, *c.Caret, *c.Msg)
			continue
		}
		if int(v.Caret) != *c.Caret || v.Message != *c.Msg {
			t.Errorf("%q: got caret %d %q, libpcp %d %q", c.Expr, v.Caret, v.Message, *c.Caret, *c.Msg)
		}
	}
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// PCP 7.2 is not installable here; these verdicts come from its grammar
// and qa outputs.
func TestLibpcpVerdictPCP7(t *testing.T) {
	tests := []struct {
		expr  string
		ok    bool
		caret int
		msg   string
	}{
		{"a ? novalue() : b", true, 0, ""},
		{"a ? b : novalue(type=u32, semantics=counter)", true, 0, ""},
		{"a ? novalue() : novalue()", true, 0, ""},
		{"delta(a + b)", true, 0, ""},
		{"rate((a))", true, 0, ""},
		{"delta(", false, 5, "<expr> expected to follow delta("},
		{"rate(", false, 4, "<expr> expected to follow rate("},
		{"instant(", false, 7, "Metric name expected to follow instant("},
		{"mkconst(1, indom=29.2)", true, 0, ""},
		{"mkconst(1, indom=511.2)", false, 17, "Illegal indom: '511.2'"},
		{"mkconst(1, meta=sample.bin)", true, 0, ""},
		{"mkconst(1, type=2.5)", false, 16, "Unrecognized value for type '2.5'"},
		{"mkconst(1 2)", false, 10, "metadata keyword expected to follow mkconst(type"},
		{"novalue(", false, 0, ""},
		{"a ? novalue(", false, 11, "metadata keyword expected to follow novalue("},
		{"meta", false, 0, ""},
		{"indom + 1", false, 0, ""},
	}
	for _, tt := range tests {
		v := LibpcpVerdict(tt.expr, pcpver.Latest, false)
		if v.OK != tt.ok || (!tt.ok && (int(v.Caret) != tt.caret || v.Message != tt.msg)) {
			t.Errorf("%q: got ok=%v caret=%d %q, want ok=%v caret=%d %q", tt.expr, v.OK, v.Caret, v.Message, tt.ok, tt.caret, tt.msg)
		}
	}
}

func TestExtraUnitsByDialect(t *testing.T) {
	expr := `rescale(sample.temperature.celsius, "temperature (F)")`
	if v := LibpcpVerdict(expr, pcpver.Latest, false); !v.OK {
		t.Errorf("pcp7 rejects extra units: %+v", v)
	}
	if v := LibpcpVerdict(expr, pcpver.V6_0_3, false); v.OK || v.Message != "Illegal units: 'unrecognized or duplicate base unit'" {
		t.Errorf("pcp6: %+v", v)
	}
	f := ParseConfig("x.conf", []byte("m.x = "+expr+"\n"), Options{Version: pcpver.V6_0_3})
	if len(f.Diagnostics) != 1 || f.Diagnostics[0].Code != "dialect" || !strings.Contains(f.Diagnostics[0].Message, "PCP 7.2.0") {
		t.Errorf("pcp6 diagnostic: %+v", f.Diagnostics)
	}
}

// TestByteFFIsEndOfString: libpcp's lexer reads the expression through a
// signed char, so byte 0xFF is -1, EOF, in every release: where a token
// starts it ends the expression (what came before is all that is
// parsed), it ends a name, number or operator and is consumed with it
// (lexing goes on after it), and it leaves a string, instance name or
// pattern unterminated. The verdicts and values are pminfo's of 5.2.6,
// 6.0.3, 6.3.8 and 7.2.2 (testdata/config/byte-ff.conf, compared with
// each release by TestConfigMessagesAcrossReleases).
func TestByteFFIsEndOfString(t *testing.T) {
	for _, tc := range []struct {
		expr  string
		caret int    // -1: accepted
		msg   string // or, accepted, the tree
	}{
		{"sample.bin[\xff\"bin-100\"]", 10, "unterminated instance name"},
		{"sample.bin[bin\xff100]", 10, "unterminated instance name"},
		{`sample.bin[bin\` + "\xff]", 10, "unterminated instance name"},
		{"rescale(sample.long.one, \"ab\xffcd\")", 25, "unterminated STRING"},
		{"count(matchinst(/ab\xffc/, sample.bin))", 6, "Metric name expected to follow count("},
		{"\xff + 1", 0, ""},
		{"\xff", 0, ""},
		{"12\xff3", 3, ""},
		{"1.5\xff7", 4, ""},
		{"1 &\xff& 1", 2, "Illegal character"},
		{"sample.long.one + \xff", 18, "Arithmetic expression expected to follow PLUS"},
		{"(1 + \xff 2)", 5, "Arithmetic expression expected to follow PLUS"},
		{"rate\xff(sample.long.one)", 6, "Unexpected '('"},
		{"1 \xff + 2", -1, "1"},
		{"sample.long.one\xff+ 1", -1, "sample.long.one + 1"},
		{"1 <\xff 2", -1, "1 < 2"},
		{"1 + 2 \xff ) garbage", -1, "1 + 2"},
	} {
		for _, v := range pcpver.Proved() {
			got := LibpcpVerdict(tc.expr, v, false)
			if tc.caret < 0 {
				if !got.OK {
					t.Errorf("%s: %q: rejected at %d %q, libpcp accepts it", v, tc.expr, got.Caret, got.Message)
					continue
				}
				tree, err := ParseExpr(tc.expr, v)
				if err != nil || Format(tree) != tc.msg {
					t.Errorf("%s: %q: tree %v (err %v), libpcp defines %s", v, tc.expr, tree, err, tc.msg)
				}
				continue
			}
			if got.OK || int(got.Caret) != tc.caret || got.Message != tc.msg {
				t.Errorf("%s: %q: ok=%v caret %d %q, libpcp rejects at %d with %q", v, tc.expr, got.OK, got.Caret, got.Message, tc.caret, tc.msg)
			}
		}
	}
}
