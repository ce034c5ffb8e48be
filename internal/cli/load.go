package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf"
)

// loadOptions say how load reads and checks the config paths.
type loadOptions struct {
	kind toolconf.Kind // --kind
	// bounded: for a whole config's worth of output (describe); see load.
	bounded bool
	// extra inputs (explain -e's expression) are loaded after the paths;
	// before are loaded with a tool's file as the derived configs libpcp
	// loads before it (eval's plain metrics, which a tool's file, a
	// config path of its own, could not see otherwise).
	extra, before []analysis.Input
}

// loadChecked reads config paths (as one config path) and checks them
// against a source through the shared analysis, for the commands that
// work on checked metrics (eval, explain). Inputs that cannot be read
// are reported and skipped; ok is false then, or when the paths hold no
// config at all. rep is nil when the check itself failed, or when the
// paths are more than one config path (tool files are each their own;
// said on stderr).
func loadChecked(ctx context.Context, env Env, cmd string, src *sourceFlags, source pmclient.Source, version pcpver.Version, paths []string, opts loadOptions) (rep *checker.Report, ok bool) {
	res, ok := load(ctx, env, cmd, src, source, version, paths, opts)
	if res == nil {
		return nil, false
	}
	if rep = oneReport(res); rep == nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp %s: %s: more than one config path (each pmrep, pcp-dstat or pcp-htop file is one of its own): name one file\n", cmd, strings.Join(paths, " "))
		return nil, false
	}
	return rep, ok
}

// oneReport is the checker's report of res's one config path: the
// whole result's, or that of its one tool file; nil for several.
func oneReport(res *analysis.Result) *checker.Report {
	if res.Report != nil {
		return res.Report
	}
	if len(res.Files) == 1 {
		return res.Files[0].CheckReport()
	}
	return nil
}

// load reads and checks the paths. It tells env.InputsRead the input's
// size (opts.extra's too), so that the binary bounds describe's and
// explain's memory as it does check's. With opts.bounded, for a whole
// config's worth of output (describe), it keeps only what the output
// needs of each definition
// (analysis.Config.FindingsOnly: no syntax tree or node metadata once
// checked; at most analysis.DefaultMaxPerCode findings of a code): the
// trees are the largest part of a checked config's heap, and describe's
// peak grew faster than its input without this (docs/limits.md). res is
// nil when the check itself failed.
func load(ctx context.Context, env Env, cmd string, src *sourceFlags, source pmclient.Source, version pcpver.Version, paths []string, opts loadOptions) (res *analysis.Result, ok bool) {
	inputs := analysis.ReadInputs(paths, env.Stdin, analysis.DefaultMaxSize)
	ok = len(inputs) > 0 || len(paths) == 0 && len(opts.extra) > 0
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
	for _, in := range opts.extra {
		total += int64(len(in.Src))
	}
	inputs = append(inputs, opts.extra...)
	if env.InputsRead != nil {
		env.InputsRead(total)
	}
	cfg := analysis.Config{Version: analysis.VersionChoice{Version: version}, Source: source, InDoms: src.equivalence(env),
		ToolDerived: append(toolDerived(env), opts.before...), DerivedControl: derivedControl(env)}
	if opts.bounded {
		cfg.FindingsOnly, cfg.MaxPerCode = true, analysis.DefaultMaxPerCode
	}
	res = analysis.Run(ctx, inputs, cfg, analysis.Options{Kind: opts.kind})
	if res.CheckErr != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp %s: %v\n", cmd, res.CheckErr)
		return nil, false
	}
	return res, ok
}

// selectNames are names with each SECTION:KEY that picks a spec of a
// pmrep or pcp-dstat file of res replaced by that spec's metric name (as
// the tool registers or shows it); other names as they are.
func selectNames(res *analysis.Result, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = selectName(res, n)
	}
	return out
}

func selectName(res *analysis.Result, name string) string {
	if !strings.Contains(name, ":") {
		return name
	}
	for _, f := range res.Files {
		if doc := f.ToolDoc(); doc != nil {
			if metric, ok := doc.Select(name); ok {
				return metric
			}
		}
	}
	return name
}
