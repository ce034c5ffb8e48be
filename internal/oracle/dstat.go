package oracle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

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
	inside := func(p string) string { return "/" + strings.TrimPrefix(strings.TrimPrefix(p, r.Root), "/") }
	runs := make([]toolRun, len(plugins))
	for i, plugin := range plugins {
		runs[i] = toolRun{Name: plugin, Argv: []string{"--" + plugin, "1", "0"}}
	}
	// The test pmcd over TCP, as the analysis sees it, in every release
	// (its default, local:, is the unix socket with credentials on this
	// machine, TCP in a chroot).
	env := map[string]string{"PCP_DERIVED_CONFIG": derived, "HOME": inside(home), "PCP_SYSCONF_DIR": inside(sys), "PCP_HOST": "127.0.0.1"}
	out, err := r.toolRuns(ctx, "/"+DstatBinary, env, runs)
	if err != nil {
		return nil, fmt.Errorf("%s: pcp-dstat of %s: %w", r, name, err)
	}
	for i := range out {
		out[i].Stderr = strings.ReplaceAll(out[i].Stderr, inside(file), name)
	}
	return out, nil
}
