package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// versionFlag is --pcp-version, shared by every command, with --dialect
// (pcp6, pcp7, auto) kept as its older spelling.
type versionFlag struct {
	value string
	set   string // which flag set it, for the reason shown to the user
}

func (v *versionFlag) register(fs *flag.FlagSet) {
	v.value, v.set = analysis.Auto, "--pcp-version"
	fs.Func("pcp-version", "follow the libpcp of PCP `VERSION` (X.Y or X.Y.Z, e.g. 5.2, 6.0.3, 7.2; latest; or auto: the version the metadata source reports, else the latest)", func(s string) error {
		v.value, v.set = s, "--pcp-version"
		return nil
	})
	fs.Func("dialect", "older spelling of --pcp-version: `pcp6` (6.0.3), pcp7 (the latest) or auto", func(s string) error {
		v.value, v.set = s, "--dialect"
		return nil
	})
}

// resolve is the one resolution of the release every command follows
// (analysis.ResolveVersion), reported on stderr when it fails.
func (v *versionFlag) resolve(ctx context.Context, env Env, cmd string, src pmclient.Source) (analysis.VersionChoice, bool) {
	choice, err := analysis.ResolveVersion(ctx, v.value, v.set, src)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp %s: %v\n", cmd, err)
		return choice, false
	}
	return choice, true
}

// isList reports a list of releases ("5.2,7.2" or "all"): check reports
// each definition's fate on every one of them.
func (v *versionFlag) isList() bool {
	return strings.Contains(v.value, ",") || strings.EqualFold(strings.TrimSpace(v.value), "all")
}
