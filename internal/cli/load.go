package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// loadChecked reads config paths (as one config path) and checks them
// against a source through the shared analysis, for the commands that
// work on checked metrics (eval, explain). Inputs that cannot be read
// are reported and skipped; ok is false then, or when the paths hold no
// config at all. rep is nil when the check itself failed. extra inputs
// (explain -e's expression) are loaded after the paths.
func loadChecked(ctx context.Context, env Env, cmd string, src *sourceFlags, source pmclient.Source, version pcpver.Version, paths []string, extra ...analysis.Input) (rep *checker.Report, ok bool) {
	return load(ctx, env, cmd, src, source, version, paths, false, extra...)
}

// load is loadChecked; bounded, for a whole config's worth of output
// (describe), also tells env.InputsRead the input's size, so that the
// binary bounds the memory as it does check's, and keeps only what the
// output needs of each definition (analysis.Config.FindingsOnly: no
// syntax tree or node metadata once checked; at most
// analysis.DefaultMaxPerCode findings of a code): the trees are the
// largest part of a checked config's heap, and describe's peak grew
// faster than its input without this (docs/limits.md).
func load(ctx context.Context, env Env, cmd string, src *sourceFlags, source pmclient.Source, version pcpver.Version, paths []string, bounded bool, extra ...analysis.Input) (rep *checker.Report, ok bool) {
	inputs := analysis.ReadInputs(paths, env.Stdin, analysis.DefaultMaxSize)
	ok = len(inputs) > 0 || len(paths) == 0 && len(extra) > 0
	if !ok {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp %s: no config file in %s\n", cmd, strings.Join(paths, " "))
	}
	var total int64
	for _, in := range inputs {
		total += int64(len(in.Src))
		if in.Err != nil || in.Problem != "" {
			why := in.Problem
			if in.Err != nil {
				why = in.Err.Error()
			}
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp %s: %s: %s\n", cmd, in.Path, why)
			ok = false
		}
	}
	inputs = append(inputs, extra...)
	cfg := analysis.Config{Version: analysis.VersionChoice{Version: version}, Source: source, InDoms: src.equivalence(env), DerivedControl: derivedControl(env)}
	if bounded {
		if env.InputsRead != nil {
			env.InputsRead(total)
		}
		cfg.FindingsOnly, cfg.MaxPerCode = true, analysis.DefaultMaxPerCode
	}
	res := analysis.Run(ctx, inputs, cfg, analysis.Options{})
	if res.CheckErr != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp %s: %v\n", cmd, res.CheckErr)
		return nil, false
	}
	return res.Report, ok
}
