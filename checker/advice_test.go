package checker

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestAdvice: findings libpcp never prints, against the live sample PMDA.
func TestAdvice(t *testing.T) {
	src := liveMetadata(t)
	tests := []struct {
		expr, code, contains string
	}{
		{"sample.lng.one + 1", "unknown-metric", "did you mean sample.long.one"},
		{"sample.long.one[bin-100]", "filter-on-singular", "never has a value"},
		{"sample.bin[bin-1000]", "unknown-instance", "did you mean bin-100"},
		{"matchinst(/BIN/, sample.bin)", "pattern-matches-nothing", "none of the 9"},
		{"matchinst(/[[:alpha:]]/, sample.bin)", "pattern-unchecked", "POSIX"},
		{"!sample.double.one", "wrong-value", "garbage"},
		{"sample.long.one < 0", "wrong-value", "always false"},
		{"0 <= sample.long.one", "wrong-value", "always true"},
		{"sample.long.one > 0", "", ""},
		{"sample.long.one < 5", "", ""},
		{"0 - sample.long.one", "wrong-value", "0 - 1 is 4294967295); write the literal as mkconst(N, type=32)"},
		{"sample.long.one - 2", "wrong-value", "wraps around"},
		{"mkconst(0, type=32) - sample.long.one", "", ""},
		{"sample.ulong.ten - sample.ulong.hundred", "", ""},
		{"sample.bin[\"bin-100\"]", "quoted-instance", "write [bin-100]"},
		{"sample.long.one[\"x\"]", "quoted-instance", "never has a value"},
		{"sample.long.one / 0", "wrong-value", "infinity"},
		{"rate(sample.long.one)", "rate-of-instant", "rate() is for counters"},
		{"sample.mirage_longlong * sample.scale_step.time_up_secs", "wrong-value", "wrong way"},
		{"sample.scale_step.time_up_secs * sample.mirage_longlong", "", ""},
		{"mkconst(1, units=\"/byte\") * mkconst(2, units=\"Kbyte\")", "wrong-value", "wrong way"},
		{"sample.long.one > 0 ? sample.long.one : 0", "semantic", "mkconst(0, type=32, semantics=instant)"},
	}
	for _, tt := range tests {
		f := grammar.ParseConfig("t.conf", []byte("m.x = "+tt.expr+"\n"), grammar.Options{Version: pcpver.V6_0_3})
		rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: pcpver.V6_0_3})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		found := tt.code == ""
		for _, d := range rep.Diagnostics(f) {
			got = append(got, d.Code+": "+d.Message)
			if d.Code == tt.code && strings.Contains(d.Message, tt.contains) {
				found = true
			}
		}
		if tt.code == "" && len(got) > 0 {
			t.Errorf("%q: unexpected %q", tt.expr, got)
		}
		if !found {
			t.Errorf("%q: want %s containing %q, got %q", tt.expr, tt.code, tt.contains, got)
		}
	}
}

// PCP 7 semantics (from the 6.2.2 and 7.1 rules;
// no PCP 7 libpcp is available to compare with).
func TestPCP7Semantics(t *testing.T) {
	src := liveMetadata(t)
	tests := []struct {
		config, name, want string
	}{
		{"m.x = defined(no.such) ? no.such : sample.long.one\n", "m.x", "valid"},
		{"m.x = defined(sample.long.one) ? sample.long.one : no.such\n", "m.x", "valid"},
		{"m.x = 1 ? no.such : sample.long.one\n", "m.x", "semantic error: operand no.such: Unknown metric for ternary expression"},
		{"m.x = sample.long.one > 0 ? no.such : sample.long.one\n", "m.x", "semantic error: operand no.such: Unknown metric for ternary expression"},
		{"m.x = no.such + 1\n", "m.x", "unbound"},
		{"m.a = sample.long.one\nm.x = m.a + 1\n", "m.x", "semantic error: operand m.a: Illegal nested derived metric"},
		{"m.a = sample.long.one\nm.x = m.a\n", "m.x", "valid"},
	}
	for _, tt := range tests {
		f := grammar.ParseConfig("t.conf", []byte(tt.config), grammar.Options{Version: pcpver.Latest})
		rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: pcpver.Latest})
		if err != nil {
			t.Fatal(err)
		}
		m := rep.ByName.Metric(tt.name)
		got := m.Status.String()
		if m.Status == SemanticError {
			got += ": " + m.Rendering() + ": " + m.Message()
		}
		if got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.config, got, tt.want)
		}
	}
}

// TestMissingPMDA: an unknown metric under the root of a PCP PMDA that
// has no metrics in the source is the PMDA missing (a warning, once per
// PMDA and file, later ones hints), not a mistake; a misspelt root or a
// misspelt name under an installed PMDA stays an error.
func TestMissingPMDA(t *testing.T) {
	src := liveMetadata(t)
	conf := "m.a = mssql.locks.wait_time / mssql.locks.requests\n" +
		"m.b = bcc.proc.io.net.tcp.recv.bytes\n" +
		"m.c = kernal.all.load\n" +
		"m.d = kernel.all.nosuch\n"
	f := grammar.ParseConfig("t.conf", []byte(conf), grammar.Options{Version: pcpver.V6_0_3})
	rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: pcpver.V6_0_3})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range rep.Diagnostics(f) {
		got = append(got, fmt.Sprintf("%d %s %s", d.Range.Start.Line, d.Severity, d.Code))
	}
	want := []string{"1 warning pmda-missing", "1 hint pmda-missing", "2 warning pmda-missing", "3 error unknown-metric", "4 error unknown-metric"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if msg := rep.Diagnostics(f)[0].Message; !strings.Contains(msg, "the mssql PMDA is not installed") {
		t.Errorf("message %q", msg)
	}
	if rep.ByName.Metric("m.a").Status != Unbound {
		t.Errorf("m.a is %v: libpcp still hides it", rep.ByName.Metric("m.a").Status)
	}
}
