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
// (pcp6, pcp7, auto) kept as its older spelling. Which one counts is
// decided as the server decides it (analysis.VersionRequest).
type versionFlag struct {
	req analysis.VersionRequest
}

func (v *versionFlag) register(fs *flag.FlagSet) {
	v.req = analysis.VersionRequest{PCPVersion: analysis.Auto, PCPVersionName: "--pcp-version", DialectName: "--dialect"}
	fs.Func("pcp-version", "follow the libpcp of PCP `VERSION` (X.Y or X.Y.Z, e.g. 5.2, 6.0.3, 7.2; latest; or auto: the version the metadata source reports, else the latest)", func(s string) error {
		v.req.PCPVersion = s
		return nil
	})
	fs.Func("dialect", "older spelling of --pcp-version: `pcp6` (6.0.3), pcp7 (the latest) or auto", func(s string) error {
		v.req.Dialect = s
		return nil
	})
}

// value is the setting that counts, and the flag that set it.
func (v *versionFlag) value() (value, flag string) { return v.req.Pick() }

// resolve is the one resolution of the release every command follows
// (analysis.VersionRequest), reported on stderr when it fails.
func (v *versionFlag) resolve(ctx context.Context, env Env, cmd string, src pmclient.Source) (analysis.VersionChoice, bool) {
	choice, err := v.req.Resolve(ctx, src)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp %s: %v\n", cmd, err)
		return choice, false
	}
	return choice, true
}

// isList reports a list of releases ("5.2,7.2" or "all"): check reports
// each definition's fate on every one of them.
func (v *versionFlag) isList() bool {
	value, _ := v.value()
	return strings.Contains(value, ",") || strings.EqualFold(strings.TrimSpace(value), "all")
}
