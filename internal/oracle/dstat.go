package oracle

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

//go:embed dstat.py
var dstatScript []byte

// DstatBinary is where Debian installs pcp-dstat, inside a release's
// root.
const DstatBinary = "usr/lib/pcp/bin/pcp-dstat"

// DstatPlugins runs the release's pcp-dstat on each plugin of one dstat
// file (name, content) against the test pmcd ($PCP_HOST 127.0.0.1), one
// sample: the file is
// the only one in a $HOME/.pcp/dstat of its own, with $PCP_SYSCONF_DIR's
// dstat directory empty (so no shipped plugin merges into it), and
// derived as $PCP_DERIVED_CONFIG ("" loads none). Each run is forked from
// one Python process that imported pcp-dstat once; Section names the
// plugin, and Stderr names the file name, not where it was put.
func (r Release) DstatPlugins(ctx context.Context, derived, name string, content []byte, plugins []string) ([]PmrepRun, error) {
	dir, err := os.MkdirTemp(filepath.Join("/", r.Root, "tmp"), "oracle-dstat-")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r, err)
	}
	defer os.RemoveAll(dir)
	home, sys := filepath.Join(dir, "home"), filepath.Join(dir, "sys")
	for _, d := range []string{filepath.Join(home, ".pcp", "dstat"), filepath.Join(sys, "dstat")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("%s: %w", r, err)
		}
	}
	file := filepath.Join(home, ".pcp", "dstat", name)
	if err := os.WriteFile(file, content, 0o644); err != nil {
		return nil, fmt.Errorf("%s: %w", r, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dstat.py"), dstatScript, 0o644); err != nil {
		return nil, fmt.Errorf("%s: %w", r, err)
	}
	inside := func(p string) string { return "/" + strings.TrimPrefix(strings.TrimPrefix(p, r.Root), "/") }
	file = inside(file)
	if derived == "" {
		derived = "-"
	}
	cmd := r.command(ctx, "python3", append([]string{inside(filepath.Join(dir, "dstat.py")), derived, inside(home), inside(sys)}, plugins...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: pcp-dstat of %s: %w: %.300s", r, name, err, stderr.String())
	}
	var runs []PmrepRun
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var run PmrepRun
		if err := dec.Decode(&run); err != nil {
			return nil, fmt.Errorf("%s: pcp-dstat of %s: %w", r, name, err)
		}
		run.Stderr = strings.ReplaceAll(run.Stderr, file, name)
		runs = append(runs, run)
	}
	if len(runs) != len(plugins) {
		return nil, fmt.Errorf("%s: pcp-dstat of %s: %d runs for %d plugins", r, name, len(runs), len(plugins))
	}
	return runs, nil
}
