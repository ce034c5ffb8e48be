package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// loadChecked reads config paths (as one config path) and checks them
// against a source, for the commands that work on checked metrics
// (describe, eval). Inputs that cannot be read are reported and skipped;
// ok is false then, or when the paths hold no config at all. rep is nil
// when the check itself failed. extra configs (explain -e's expression)
// are loaded after the paths.
func loadChecked(ctx context.Context, env Env, cmd string, src *sourceFlags, source pmclient.Source, version pcpver.Version, paths []string, extra ...grammar.Source) (rep *checker.Report, ok bool) {
	inputs := collectInputs(paths, env.Stdin, 64<<20)
	ok = len(inputs) > 0 || len(paths) == 0 && len(extra) > 0
	if !ok {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp %s: no config file in %s\n", cmd, strings.Join(paths, " "))
	}
	var srcs []grammar.Source
	for _, in := range inputs {
		if in.err != nil || in.problem != "" {
			why := in.problem
			if in.err != nil {
				why = in.err.Error()
			}
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp %s: %s: %s\n", cmd, in.path, why)
			ok = false
			continue
		}
		srcs = append(srcs, grammar.Source{Path: in.path, Src: in.src})
	}
	files := grammar.ParseConfigs(append(srcs, extra...), version)
	rep, err := checker.Check(ctx, files, source, checker.Options{Version: version, InDoms: src.equivalence(env)})
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp %s: %v\n", cmd, err)
		return nil, false
	}
	return rep, ok
}
