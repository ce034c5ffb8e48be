package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"iter"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/report"
)

func runDescribe(ctx context.Context, env Env, args []string) int {
	fs := newFlags(env, "describe", "[flags] PATH...",
		"Prints the type, semantics, units and instance domain libpcp will give each\nvalid derived metric, and why the others will not exist. Definitions libpcp\nrejects as syntax errors are not listed: check reports them. In a pmrep\nconfig, each spec's metric (or formula) with its metadata and the unit pmrep\nwill show it in.")
	var version versionFlag
	version.register(fs)
	format := fs.String("format", "text", "output `FORMAT`: text, json or pminfo (as pminfo -c FILE -d NAMES prints)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to `FILE` (go tool pprof)")
	memProfile := fs.String("memprofile", "", "write a heap profile to `FILE` when the run ends (go tool pprof)")
	var kindOpt kindFlag
	kindOpt.register(fs)
	var src sourceFlags
	src.register(fs, forMetadata)
	paths, status, done := parseFlags(fs, env, args)
	if done {
		return status
	}
	kind, ok := kindOpt.resolve(env, "describe")
	if !ok {
		return ExitUsage
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
	res, ok := load(ctx, env, "describe", &src, source, choice.Version, paths, loadOptions{kind: kind, bounded: true})
	if res == nil {
		return ExitUsage
	}
	status = ExitOK
	if !ok {
		status = ExitUsage
	}
	if !writeDescription(env.Stdout, *format, res, choice) {
		return ExitUsage
	}
	return status
}

// writeDescription writes describe's output: one line or object a
// metric, as each is read (a big config's output is several times its
// text, and held whole it was the peak of the run: --format json built
// every metric's object, then the whole document in one buffer), then
// the specs of the pmrep files. false when JSON could not be written.
func writeDescription(out io.Writer, format string, res *analysis.Result, choice analysis.VersionChoice) bool {
	if format != "json" {
		esc := report.NewEscaper(out) // names and help text are input
		defer esc.Flush()
		out = esc
	}
	w := bufio.NewWriterSize(out, 64<<10)
	specs, own, shown := describedSpecs(res), ownMetrics(res), toolShown(res)
	switch format {
	case "pminfo":
		for m := range own {
			if m.Status == checker.Valid {
				fmt.Fprintf(w, "\n%s\n%s", m.Def.Name, checker.PminfoDesc(m.Desc))
			}
		}
		for _, sp := range specs {
			if sp.desc != nil {
				fmt.Fprintf(w, "\n%s\n%s", sp.Metric, checker.PminfoDesc(*sp.desc))
			}
		}
	case "json":
		if err := describeJSON(w, own, shown, specs, res.SourceName, choice); err != nil {
			return false
		}
	default:
		fmt.Fprintf(w, "# metadata: %s; %s\n", res.SourceName, choice)
		for m := range own {
			if m.Status == checker.Valid {
				line := m.Def.Name + ": " + checker.DescText(m.Desc)
				if how := shown(m); how != "" {
					line += "; " + how
				}
				fmt.Fprintln(w, line)
			} else {
				fmt.Fprintf(w, "%s: %s: %s\n", m.Def.Name, m.Status, problemText(m))
			}
		}
		for _, sp := range specs {
			fmt.Fprintln(w, sp.text())
		}
	}
	return w.Flush() == nil || format != "json"
}

// describedMetric is one metric of describe's JSON document.
type describedMetric struct {
	Name      string `json:"name"`
	Status    string `json:"status"`
	Type      string `json:"type,omitempty"`
	Semantics string `json:"semantics,omitempty"`
	Units     string `json:"units,omitempty"`
	InDom     string `json:"indom,omitempty"`
	Problem   string `json:"problem,omitempty"`
	// Shown is how a pcp-dstat column's or a pcp-htop expression's values
	// are shown by the tool (toolShown).
	Shown string `json:"shown,omitempty"`
}

// describeJSON writes describe's JSON document a metric at a time, byte
// for byte as json.Encoder with an indent of two spaces wrote it from one
// map holding every metric (keys in sorted order; "metrics": null when
// there is none).
func describeJSON(w io.Writer, metrics iter.Seq[*checker.Metric], shown func(*checker.Metric) string, specs []describedSpec, source string, choice analysis.VersionChoice) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("    ", "  ") // an element of "metrics", two levels in
	io.WriteString(w, "{\n  \"metrics\": ")
	n := 0
	for m := range metrics {
		jm := describedMetric{Name: m.Def.Name, Status: m.Status.String()}
		if m.Status == checker.Valid || m.Status == checker.Masked {
			jm.Type, jm.Semantics, jm.Units, jm.InDom = m.Desc.Type.String(), m.Desc.Sem.String(), m.Desc.Units.String(), m.Desc.InDom.String()
		}
		jm.Problem = problemText(m)
		if m.Status == checker.Valid {
			jm.Shown = shown(m)
		}
		buf.Reset()
		if err := enc.Encode(jm); err != nil {
			return err
		}
		if n == 0 {
			io.WriteString(w, "[\n    ")
		} else {
			io.WriteString(w, ",\n    ")
		}
		w.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		n++
	}
	if n == 0 {
		io.WriteString(w, "null")
	} else {
		io.WriteString(w, "\n  ]")
	}
	for _, kv := range []struct {
		key   string
		value any
	}{{"pcpVersion", choice.Version.String()}, {"pcpVersionReason", choice.Reason}, {"source", source}, {"specs", specs}, {"version", 2}} {
		if kv.key == "specs" && len(specs) == 0 {
			continue // a derived config's document, as before specs
		}
		v, err := json.MarshalIndent(kv.value, "  ", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, ",\n  %q: %s", kv.key, v)
	}
	_, err := io.WriteString(w, "\n}\n")
	return err
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
