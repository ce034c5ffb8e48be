package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/fleet"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/report"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/rules"
)

// releaseVerdict is what one release's libpcp does with one definition.
type releaseVerdict struct {
	Version string `json:"version"`
	fleet.Fate
}

// definitionAcross is one definition's verdicts over the releases.
type definitionAcross struct {
	Path     string           `json:"path"`
	Line     int              `json:"line"`
	Name     string           `json:"name"`
	Releases []releaseVerdict `json:"releases"`
	Same     bool             `json:"same"` // every release gives the same verdict and metadata
}

// acrossReleases checks the same inputs for every release and lines the
// verdicts up per definition: what no single libpcp can tell, for a
// config deployed to hosts of mixed releases.
func acrossReleases(versions []pcpver.Version, run func(pcpver.Version) (*report.Run, *checker.Report)) ([]definitionAcross, []*report.Run) {
	var out []definitionAcross
	index := map[string]int{} // path:line:name -> out index
	var runs []*report.Run
	for _, v := range versions {
		r, rep := run(v)
		if r == nil {
			return nil, nil
		}
		runs = append(runs, r)
		for _, rf := range r.Files {
			for _, d := range rf.File.Definitions.All() {
				line := int(d.Range.Start.Line) // d.Line is libpcp's count, which differs by release
				key := fmt.Sprintf("%s:%d:%s", rf.File.Path, line, d.Name)
				i, ok := index[key]
				if !ok {
					i = len(out)
					index[key] = i
					out = append(out, definitionAcross{Path: rf.File.Path, Line: line, Name: d.Name})
				}
				out[i].Releases = append(out[i].Releases, verdictOf(v, d, rep))
			}
		}
	}
	for i := range out {
		out[i].Same = len(out[i].Releases) == len(versions)
		for _, rv := range out[i].Releases[1:] {
			if rv.Status != out[i].Releases[0].Status || rv.Desc != out[i].Releases[0].Desc || rv.Message != out[i].Releases[0].Message {
				out[i].Same = false
			}
		}
	}
	return out, runs
}

func verdictOf(v pcpver.Version, d *grammar.Definition, rep *checker.Report) releaseVerdict {
	return releaseVerdict{Version: v.String(), Fate: fleet.FateOf(v, d, rep)}
}

// writeAcross prints the matrix: every definition whose fate differs
// between the releases, with the releases grouped by verdict, then a
// summary. all prints the definitions that agree too.
func writeAcross(w io.Writer, defs []definitionAcross, versions []pcpver.Version, all bool) error {
	names := make([]string, len(versions))
	for i, v := range versions {
		names[i] = v.String()
	}
	differ := 0
	for _, d := range defs {
		if !d.Same {
			differ++
		}
		if d.Same && !all {
			continue
		}
		fmt.Fprintf(w, "%s:%d: %s\n", d.Path, d.Line, d.Name)
		var groups []releaseVerdict
		var members [][]int // indices into names
		for i, rv := range d.Releases {
			found := false
			for gi, g := range groups {
				if g.Status == rv.Status && g.Desc == rv.Desc && g.Message == rv.Message {
					members[gi] = append(members[gi], i)
					found = true
					break
				}
			}
			if !found {
				groups = append(groups, rv)
				members = append(members, []int{i})
			}
		}
		labels := make([]string, len(groups))
		width := 24
		for gi := range groups {
			labels[gi] = releaseSpans(names, members[gi])
			width = max(width, len(labels[gi]))
		}
		for gi, g := range groups {
			text := g.Status
			switch {
			case g.Desc != "":
				text += ": " + g.Desc
			case g.Message != "":
				text += ": " + g.Message
			}
			fmt.Fprintf(w, "    PCP %-*s %s\n", width, labels[gi], text)
		}
	}
	_, err := fmt.Fprintf(w, "%d definitions across PCP %s: %d the same on every release, %d differ\n",
		len(defs), strings.Join(names, ", "), len(defs)-differ, differ)
	return err
}

// releaseSpans names the releases at the given indices of names (in
// order): three or more that follow each other as "5.2.6 to 6.2.0", the
// rest one by one, so a verdict most releases share stays one short line.
func releaseSpans(names []string, indices []int) string {
	var parts []string
	for start := 0; start < len(indices); {
		end := start
		for end+1 < len(indices) && indices[end+1] == indices[end]+1 {
			end++
		}
		if end-start >= 2 {
			parts = append(parts, names[indices[start]]+" to "+names[indices[end]])
		} else {
			for _, i := range indices[start : end+1] {
				parts = append(parts, names[i])
			}
		}
		start = end + 1
	}
	return strings.Join(parts, ", ")
}

func writeAcrossJSON(w io.Writer, defs []definitionAcross, versions []pcpver.Version, source string) error {
	names := make([]string, len(versions))
	for i, v := range versions {
		names[i] = v.String()
	}
	if defs == nil {
		defs = []definitionAcross{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"version": 1, "tool": "pcp-derive-lsp", "toolVersion": Version, "source": source,
		"pcpVersions": names, "definitions": defs})
}

// checkAcross is check --pcp-version A,B,... (or all): the same inputs
// checked for each release, reported per definition.
func checkAcross(ctx context.Context, env Env, paths []string, version *versionFlag, src *sourceFlags, source pmclient.Source, format string, threshold grammar.Severity, maxSize int64, rl rules.Rules, perCode int) int {
	value, flagName := version.value()
	versions, err := pcpver.ParseList(value)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: %s: %v\n", flagName, err)
		return ExitUsage
	}
	if format != "text" && format != "json" {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: --format %s: with several PCP versions, want text or json\n", format)
		return ExitUsage
	}
	cfg := analysis.Config{Source: source, InDoms: src.equivalence(env), Rules: rl, MaxPerCode: perCode, DerivedControl: derivedControl(env)}
	ioErrors := 0
	defs, runs := acrossReleases(versions, func(v pcpver.Version) (*report.Run, *checker.Report) {
		c := cfg
		c.Version = analysis.VersionChoice{Version: v, Reason: flagName + " " + value}
		run, res, n := analyse(ctx, env, paths, c, analysis.Options{}, maxSize, false)
		ioErrors = max(ioErrors, n)
		if run == nil {
			return nil, nil
		}
		return run, res.Report
	})
	if runs == nil {
		return ExitUsage
	}
	sourceName := runs[0].Source
	if format == "json" {
		err = writeAcrossJSON(env.Stdout, defs, versions, sourceName)
	} else {
		fmt.Fprintf(env.Stdout, "# metadata: %s\n", sourceName)
		err = writeAcross(env.Stdout, defs, versions, false)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp check: writing the report: %v\n", err)
		return ExitUsage
	}
	worst := ExitOK
	for _, r := range runs {
		errs, warnings, _ := r.Counts()
		if errs > 0 || (threshold == grammar.SeverityWarning && warnings > 0) {
			worst = ExitFindings
		}
	}
	if ioErrors > 0 {
		return ExitUsage
	}
	return worst
}
