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
// as " 86  13", as its describe lines say). The htop goldens cover a
// meter's label and suffix, and a column's units, format, width and
// instances from 6.1.0 (by type alone before).
func TestDescribeToolShown(t *testing.T) {
	dir := filepath.Join("testdata", "describe")
	meter, columns := filepath.Join(dir, "htop", "meters", "demo"), filepath.Join(dir, "htop", "columns", "demo")
	for _, tc := range []struct {
		golden, version string
		paths           []string
	}{
		{"dstat", "6.0.3", []string{"--kind", "dstat", filepath.Join(dir, "dstat")}},
		// Columns know format, width and instances from 6.1.0.
		{"htop", "7.2.2", []string{meter, columns}},
		{"htop-6.0.3", "6.0.3", []string{columns}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			args := append([]string{"describe", "--metadata", "embedded", "--pcp-version", tc.version}, tc.paths...)
			stdout, stderr, status := run(t, "", args...)
			if status != ExitOK {
				t.Fatalf("exit %d: %s", status, stderr)
			}
			golden.File(t, filepath.Join(dir, tc.golden+".golden"), stdout)

			stdout, stderr, status = run(t, "", append([]string{"describe", "--format", "json"}, args[1:]...)...)
			if status != ExitOK {
				t.Fatalf("json: exit %d: %s", status, stderr)
			}
			var doc struct {
				Metrics []describedMetric `json:"metrics"`
			}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatalf("json: %v\n%s", err, stdout)
			}
			if len(doc.Metrics) == 0 {
				t.Fatalf("json: no metrics:\n%s", stdout)
			}
			for _, m := range doc.Metrics {
				if m.Status == "valid" && m.Shown == "" {
					t.Errorf("json: %s has no \"shown\"", m.Name)
				}
			}
		})
	}
}
