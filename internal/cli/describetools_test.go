package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/golden"
)

// TestDescribeToolShown: describe of a pcp-dstat or pcp-htop file says,
// after each column's or expression's metadata, how the tool shows its
// values (testdata/describe/*.golden; -update rewrites them). The dstat
// golden covers each branch of pcp-dstat's cprint: a colorstep (no
// suffix), space in steps of 1024, a counter's rate, counts in steps of
// 1000, a width under 4, text, and time in seconds (pcp-dstat 6.0.3 on
// the test host prints its [mem] plugin as "984M   16G", its [cpu-adv]
// as " 86  13", as its describe lines say).
func TestDescribeToolShown(t *testing.T) {
	for _, tc := range []struct{ file, kind string }{
		{"dstat", "dstat"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "describe", tc.file)
			args := []string{"describe", "--metadata", "embedded", "--pcp-version", "6.0.3", "--kind", tc.kind}
			stdout, stderr, status := run(t, "", append(args, path)...)
			if status != ExitOK {
				t.Fatalf("exit %d: %s", status, stderr)
			}
			golden.File(t, path+".golden", stdout)

			stdout, stderr, status = run(t, "", append(args, "--format", "json", path)...)
			if status != ExitOK {
				t.Fatalf("json: exit %d: %s", status, stderr)
			}
			var doc struct {
				Metrics []describedMetric `json:"metrics"`
			}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatalf("json: %v\n%s", err, stdout)
			}
			for _, m := range doc.Metrics {
				if m.Status == "valid" && m.Shown == "" {
					t.Errorf("json: %s has no \"shown\"", m.Name)
				}
			}
		})
	}
}
