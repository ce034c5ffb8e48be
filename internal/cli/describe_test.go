package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestDescribeJSONAsOneDocument: describe --format json, written a
// metric at a time, is byte for byte what json.Encoder (indent of two
// spaces) wrote from one map of the whole document: sorted keys, HTML
// characters escaped, "metrics": null for a config without definitions.
func TestDescribeJSONAsOneDocument(t *testing.T) {
	for name, config := range map[string]string{
		"none": "# nothing defined\n",
		"one":  "m.a = sample.long.one\n",
		"several": "m.a = sample.long.one\nm.b = sample.bin + sample.long.ten\n" +
			"m.c = rescale(max(mem.util.used), \"Kbyte/sec\")\nm.d = no.such.metric\nsample.long.one = 1\n",
	} {
		stdout, stderr, status := run(t, config, "describe", "--metadata", "embedded", "--pcp-version", "6.0.3", "--format", "json", "-")
		if status != ExitOK {
			t.Fatalf("%s: exit %d: %s", name, status, stderr)
		}
		var doc struct {
			Metrics          []describedMetric `json:"metrics"`
			PCPVersion       string            `json:"pcpVersion"`
			PCPVersionReason string            `json:"pcpVersionReason"`
			Source           string            `json:"source"`
			Version          int               `json:"version"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stdout)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"version": doc.Version, "source": doc.Source, "pcpVersion": doc.PCPVersion, "pcpVersionReason": doc.PCPVersionReason, "metrics": doc.Metrics}); err != nil {
			t.Fatal(err)
		}
		if stdout != want.String() {
			t.Errorf("%s: got\n%s\nwant\n%s", name, stdout, want.String())
		}
		if name == "several" && !strings.Contains(stdout, `\u003c`) {
			t.Errorf("%s: no escaped <expr> in a problem: %s", name, stdout)
		}
	}
}
