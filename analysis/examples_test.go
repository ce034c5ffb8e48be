package analysis

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf/htop"
)

// TestCodeExamples runs every registry example (docs/codes/CODE.md shows
// them) through the analysis against the embedded metadata: the example
// must get a finding of its code at the registered default severity, and
// its fix must get no finding at all. The codes without an example config
// are made to happen here some other way, except internal (a bug report),
// missing-lparen (libpcp's own order of checks makes it unreachable),
// host-unreachable (it needs a fleet with a host down: the fleet tests)
// and empty-now (live values in the editor: lsp's explain.txtar).
func TestCodeExamples(t *testing.T) {
	cfg := embeddedConfig(t)
	for _, in := range codes.All() {
		t.Run(in.Code, func(t *testing.T) {
			version := pcpver.Latest
			if in.Release != "" {
				v, err := pcpver.Parse(in.Release)
				if err != nil {
					t.Fatal(err)
				}
				version = v
			}
			c := cfg
			c.Version = VersionChoice{Version: version}
			var input Input
			path := examplePath(in.Code)
			switch {
			case in.Example != "":
				input = Buffer(path, []byte(in.Example))
			case in.Code == "too-large":
				input = classify("example.conf", []byte("m.a = 1\n"), 4)
			case in.Code == "nul-byte":
				input = Buffer("example.conf", []byte(strings.Repeat("#\n", 4200)+"m.a = 1\x00 + 2\n"))
			case in.Code == codes.HtopNotRead:
				c.Version = VersionChoice{Version: pcpver.V5_2_6} // before pcp-htop read meters
				input = Buffer(path, []byte("[load]\nl.metric = kernel.all.load\n"))
			case in.Code == codes.HtopNulByte:
				input = Buffer(path, []byte("[m]\nm.metric = kernel.all.load\x00\nm.color = red\n"))
			case in.Code == codes.HtopLostLine:
				input = Buffer(path, []byte("[m]\nm.metric = kernel.all.load\n"+strings.Repeat("#", 1024)))
			case in.Code == "internal", in.Code == "missing-lparen":
				return // a bug report; unreachable as in libpcp (NoExample says)
			case in.Code == "host-unreachable":
				return // a fleet's down host: fleet's and lsp's fleet tests make it happen
			case in.Code == "empty-now":
				return // live values: the editor's preview makes it (lsp/testdata/explain.txtar)
			default:
				t.Fatalf("%s has no example and no other way to make it happen here", in.Code)
			}
			got := Run(context.Background(), []Input{input}, c, Options{}).Files[0].Findings.Slice()
			found := false
			for _, d := range got {
				if d.Code == in.Code {
					found = true
					if d.Severity != in.Severity {
						t.Errorf("the example's finding is a %s, the registry's default is %s: %s", d.Severity, in.Severity, d.Message)
					}
				}
			}
			if !found {
				t.Errorf("the example gets no %s finding; it gets:\n%s", in.Code, findingLines(got))
			}
			if in.Example == "" {
				return
			}
			if in.Fix == "" {
				t.Fatal("an example without its fix")
			}
			fixed := Run(context.Background(), []Input{Buffer(path, []byte(in.Fix))}, c, Options{}).Files[0].Findings.Slice()
			if len(fixed) > 0 {
				t.Errorf("the fixed example still gets findings:\n%s", findingLines(fixed))
			}
		})
	}
}

func findingLines(diags []grammar.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "  %d:%d %s %s: %s\n", d.Range.Start.Line, d.Range.Start.Col, d.Severity, d.Code, d.Message)
	}
	return b.String()
}

// examplePath is where a code's example is checked from: example.conf,
// or for pcp-htop's codes a file in htop's directory of the example's
// kind (a pcp-htop file is told by its directory).
func examplePath(code string) string {
	if strings.HasPrefix(code, "htop-") {
		return "/etc/pcp/htop/" + htop.ExampleKind(code).Dir() + "/example"
	}
	return "example.conf"
}
