package choose

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
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
		_, err := Open(context.Background(), Spec{Metadata: path}, Options{Getenv: getenv})
		if got := errors.Is(err, snapshot.ErrTooLarge); got != tc.tooBig || !tc.tooBig && err != nil {
			t.Errorf("$PCP_DERIVE_LSP_MAX_METADATA_MB=%q: error %v", tc.env, err)
		}
	}
}

// TestEditorSettingsSchema: VS Code's settings schema offers every field
// of the one description of a source, with its type, and nothing else
// under pcpDerived.source, and the extension reads each and passes it to
// the server (editors/vscode/src/config.ts): the server decodes its
// source settings into a Spec, so a field added here and not there could
// not be set.
func TestEditorSettingsSchema(t *testing.T) {
	b, err := os.ReadFile("../../editors/vscode/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]struct {
					Type string `json:"type"`
				} `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	ts, err := os.ReadFile("../../editors/vscode/src/config.ts")
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "pcpDerived.source."
	props := pkg.Contributes.Configuration.Properties
	jsonType := map[reflect.Kind]string{reflect.String: "string", reflect.Bool: "boolean"}
	want := map[string]bool{}
	spec := reflect.TypeFor[Spec]()
	for i := range spec.NumField() {
		f := spec.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			t.Errorf("Spec.%s has no JSON name: the settings could not name it", f.Name)
			continue
		}
		want[prefix+name] = true
		for _, use := range []string{"get('source." + name + "')", "s.source." + name} {
			if !strings.Contains(string(ts), use) {
				t.Errorf("editors/vscode/src/config.ts has no %s (Spec.%s)", use, f.Name)
			}
		}
		p, ok := props[prefix+name]
		switch {
		case !ok:
			t.Errorf("package.json has no setting %s%s (Spec.%s)", prefix, name, f.Name)
		case p.Type != jsonType[f.Type.Kind()]:
			t.Errorf("%s%s is of type %q in package.json, want %q (Spec.%s)", prefix, name, p.Type, jsonType[f.Type.Kind()], f.Name)
		}
	}
	for name := range props {
		if strings.HasPrefix(name, prefix) && !want[name] {
			t.Errorf("package.json offers %s, which Spec has no field for", name)
		}
	}
	if len(want) < 6 {
		t.Errorf("%d source settings checked, want at least 6", len(want))
	}
}
