package choose

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/snapshot"
)

// TestMaxMetadataEnv: $PCP_DERIVE_LSP_MAX_METADATA_MB sets the cap on a
// snapshot's size; unset or invalid leaves the default.
func TestMaxMetadataEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	// 1.5 MiB of whitespace before the document: over a 1 MiB cap only.
	doc := strings.Repeat(" ", 3<<19) + `{"format":"pcp-derive-lsp-snapshot","version":1,"source":"t","pcpVersion":"6.0.3","metrics":[],"indoms":[]}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		env     string
		tooBig  bool
		wantCap int64
	}{
		{"", false, 0},
		{"junk", false, 0},
		{"1", true, 1 << 20},
		{"2", false, 2 << 20},
	}
	for _, tc := range tests {
		getenv := func(k string) string {
			if k == "PCP_DERIVE_LSP_MAX_METADATA_MB" {
				return tc.env
			}
			return ""
		}
		if got := maxMetadata(getenv); got != tc.wantCap {
			t.Errorf("%q: cap %d, want %d", tc.env, got, tc.wantCap)
		}
		_, err := Open(context.Background(), Spec{Metadata: path, Getenv: getenv})
		if got := errors.Is(err, snapshot.ErrTooLarge); got != tc.tooBig || !tc.tooBig && err != nil {
			t.Errorf("$PCP_DERIVE_LSP_MAX_METADATA_MB=%q: error %v", tc.env, err)
		}
	}
}
