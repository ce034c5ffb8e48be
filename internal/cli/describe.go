package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
)

func runDescribe(ctx context.Context, env Env, args []string) int {
	fs := newFlags(env, "describe", "[flags] PATH...",
		"Prints the type, semantics, units and instance domain libpcp will give each\nvalid derived metric, and why the others will not exist.")
	var version versionFlag
	version.register(fs)
	format := fs.String("format", "text", "output `FORMAT`: text, json or pminfo (as pminfo -c FILE -d NAMES prints)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to `FILE` (go tool pprof)")
	memProfile := fs.String("memprofile", "", "write a heap profile to `FILE` when the run ends (go tool pprof)")
	var src sourceFlags
	src.register(fs, forMetadata)
	paths, status, done := parseFlags(fs, env, args)
	if done {
		return status
	}
	if len(paths) == 0 {
		fs.Usage()
		return ExitUsage
	}
	prof, err := startProfiles(*cpuProfile, *memProfile)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp describe: %v\n", err)
		return ExitUsage
	}
	defer func() {
		if err := prof.stop(); err != nil {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp describe: %v\n", err)
		}
	}()
	source, err := src.open(ctx, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp describe: %v\n", err)
		return ExitUsage
	}
	choice, vok := version.resolve(ctx, env, "describe", source)
	if !vok {
		return ExitUsage
	}
	rep, ok := loadChecked(ctx, env, "describe", &src, source, choice.Version, paths)
	if rep == nil {
		return ExitUsage
	}
	status = ExitOK
	if !ok {
		status = ExitUsage
	}
	switch *format {
	case "pminfo":
		for m := range rep.Metrics.Values() {
			if m.Status == checker.Valid {
				fmt.Fprintf(env.Stdout, "\n%s\n%s", m.Def.Name, checker.PminfoDesc(m.Desc))
			}
		}
	case "json":
		type metric struct {
			Name      string `json:"name"`
			Status    string `json:"status"`
			Type      string `json:"type,omitempty"`
			Semantics string `json:"semantics,omitempty"`
			Units     string `json:"units,omitempty"`
			InDom     string `json:"indom,omitempty"`
			Problem   string `json:"problem,omitempty"`
		}
		var out []metric
		for m := range rep.Metrics.Values() {
			jm := metric{Name: m.Def.Name, Status: m.Status.String()}
			if m.Status == checker.Valid || m.Status == checker.Masked {
				jm.Type, jm.Semantics, jm.Units, jm.InDom = m.Desc.Type.String(), m.Desc.Sem.String(), m.Desc.Units.String(), m.Desc.InDom.String()
			}
			jm.Problem = problemText(m)
			out = append(out, jm)
		}
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"version": 2, "source": rep.Source, "pcpVersion": choice.Version.String(), "pcpVersionReason": choice.Reason, "metrics": out}); err != nil {
			return ExitUsage
		}
	default:
		fmt.Fprintf(env.Stdout, "# metadata: %s; %s\n", rep.Source, choice)
		for m := range rep.Metrics.Values() {
			if m.Status == checker.Valid {
				fmt.Fprintf(env.Stdout, "%s: %s\n", m.Def.Name, checker.DescText(m.Desc))
			} else {
				fmt.Fprintf(env.Stdout, "%s: %s: %s\n", m.Def.Name, m.Status, problemText(m))
			}
		}
	}
	return status
}

func problemText(m *checker.Metric) string {
	switch m.Status {
	case checker.SemanticError:
		return m.Rendering() + ": " + m.Message()
	case checker.Unbound:
		return fmt.Sprintf("unknown operand %v", m.Unknown())
	case checker.Masked:
		return "a real metric of this name hides it"
	case checker.Crashes:
		return m.Message()
	}
	return ""
}
