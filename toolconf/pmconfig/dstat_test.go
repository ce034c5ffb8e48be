package pmconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestDstatColumns: every column of a plugin is registered as
// dstat.PLUGIN.COLUMN, plugin-level keys are not, and the keys pcp-dstat
// cannot split fail as it fails.
func TestDstatColumns(t *testing.T) {
	src := "[top-x]\nwidth = 5\ngrouptype = 4\none = kernel.all.load\none.label = l\ntwo = \"1 + 2\"\ntwo.printtype = d\n" +
		"[bad]\nx = 1\nx.lable = l\na.b.c = 1\nwidth = wide\n"
	d := Read("dstat/x", grammar.NewText([]byte(src)), Options{Tool: Dstat, Version: pcpver.V6_0_3})
	var names []string
	for _, def := range d.File.Definitions.All() {
		names = append(names, def.Name+"="+def.Expr)
	}
	if got, want := strings.Join(names, " "), "dstat.top-x.one=kernel.all.load dstat.top-x.two=1 + 2 dstat.bad.x=1"; got != want {
		t.Errorf("registered %s, want %s", got, want)
	}
	var codes []string
	for _, f := range d.Findings {
		codes = append(codes, f.Code+"@"+f.Range.Start.String())
	}
	if got, want := strings.Join(codes, " "), "spec-key@10:3 spec-key@11:1 spec-value@12:9"; got != want {
		t.Errorf("findings %s, want %s", got, want)
	}
}

// TestShippedDstat: the plugins this machine's pcp-dstat ships register
// as many column expressions as PCP's own count (docs: tool-configs.md
// §7, 262 for 6.0.3) and read without a finding.
func TestShippedDstat(t *testing.T) {
	oracle.ReleasesFor(t) // fails, never skips, without the test environment (skips only when asked)
	paths, _ := filepath.Glob("/etc/pcp/dstat/*")
	if len(paths) == 0 {
		t.Fatal("no /etc/pcp/dstat: pcp-dstat is not installed (make testenv installs it)")
	}
	n := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		d := Read(p, grammar.NewText(b), Options{Tool: Dstat, Version: pcpver.V6_0_3})
		n += d.File.Definitions.Len()
		for _, f := range d.File.Diagnostics {
			if f.Severity == grammar.SeverityError {
				t.Errorf("%s:%s: %s", p, f.Range.Start, f.Message)
			}
		}
	}
	if len(paths) == 39 && n != 262 {
		t.Errorf("%d column expressions in %d files, want 262", n, len(paths))
	}
	t.Logf("%d column expressions in %d files", n, len(paths))
}
