package fleet

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/report"
)

// Group is the hosts that share one verdict on a definition.
type Group struct {
	Verdict
	Hosts []string
}

// Row is one definition across the fleet.
type Row struct {
	Definition
	// Groups are the verdicts, valid first, then by how many hosts.
	Groups []Group
	// Counts are hosts by class (Valid, Invalid, Absent, Masked).
	Counts [4]int
	// NotChecked are the hosts with no verdict: not checked, or their
	// release does not read the definition there.
	NotChecked []string
}

// Rows lines each definition's verdicts up across the hosts.
func (r *Result) Rows() []Row {
	rows := make([]Row, len(r.Definitions))
	for i, d := range r.Definitions {
		row := Row{Definition: d}
		byID := map[int32]int{}
		for _, h := range r.Hosts {
			if h.outcome == nil || h.outcome.verdicts[i] < 0 {
				row.NotChecked = append(row.NotChecked, h.Name)
				continue
			}
			id := h.outcome.verdicts[i]
			g, ok := byID[id]
			if !ok {
				g = len(row.Groups)
				byID[id] = g
				row.Groups = append(row.Groups, Group{Verdict: r.verdicts[id]})
			}
			row.Groups[g].Hosts = append(row.Groups[g].Hosts, h.Name)
			row.Counts[r.verdicts[id].Class()]++
		}
		sort.SliceStable(row.Groups, func(a, b int) bool {
			ca, cb := row.Groups[a].Class(), row.Groups[b].Class()
			if ca != cb {
				return ca < cb
			}
			return len(row.Groups[a].Hosts) > len(row.Groups[b].Hosts)
		})
		rows[i] = row
	}
	return rows
}

// hostList names hosts, at most limit of them and how many more.
func hostList(hosts []string, limit int) string {
	if len(hosts) <= limit {
		return strings.Join(hosts, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(hosts[:limit], ", "), len(hosts)-limit)
}

// Summary says in one line where the definition works and where not:
// "valid on 37 of 40 hosts; fails on h3, h9, h12: operand x: Unknown
// operand metric" (what the language server shows with the fleet setting).
func (row Row) Summary() string {
	total := len(row.NotChecked)
	for _, g := range row.Groups {
		total += len(g.Hosts)
	}
	var parts []string
	switch valid := row.Counts[Valid]; {
	case valid == total && total > 0:
		return fmt.Sprintf("valid on all %d hosts", total)
	default:
		parts = append(parts, fmt.Sprintf("valid on %d of %d hosts", valid, total))
	}
	for _, g := range row.Groups {
		hosts := hostList(g.Hosts, 5)
		switch g.Class() {
		case Invalid:
			parts = append(parts, fmt.Sprintf("fails on %s: %s", hosts, g.Message))
		case Absent:
			parts = append(parts, fmt.Sprintf("silently absent on %s: %s", hosts, g.Message))
		case Masked:
			parts = append(parts, fmt.Sprintf("masked on %s: %s", hosts, g.Message))
		}
	}
	if len(row.NotChecked) > 0 {
		parts = append(parts, "not checked on "+hostList(row.NotChecked, 5))
	}
	return strings.Join(parts, "; ")
}

// fateText is a group's verdict for the text report: "valid on h1, h2:
// double instant ...".
func fateText(f Fate, hosts string) string {
	text := f.Status + " on " + hosts
	switch {
	case f.Desc != "":
		text += ": " + f.Desc
	case f.Message != "":
		text += ": " + f.Message
	}
	return text
}

// TextOptions change the text report.
type TextOptions struct {
	// GridLimit is the most hosts for which the summary is a grid of
	// definitions by hosts (default 16); past it, counts per class.
	GridLimit int
}

// WriteText writes the report for people: the hosts, then every
// definition with its verdicts grouped by host, then the summary matrix.
func WriteText(w io.Writer, r *Result, opts TextOptions) error {
	if opts.GridLimit == 0 {
		opts.GridLimit = 16
	}
	ew := &errWriter{w: w}
	checked := 0
	for _, h := range r.Hosts {
		if h.State == Checked {
			checked++
		}
	}
	ew.printf("# fleet: %d hosts, %d checked\n", len(r.Hosts), checked)
	width := 4
	for _, h := range r.Hosts {
		width = max(width, min(len(h.Name), 24))
	}
	for _, h := range r.Hosts {
		switch h.State {
		case Checked:
			ew.printf("#   %-*s checked      PCP %s (%s) in %.2fs\n", width, h.Name, h.PCP.Version, h.PCP.Reason, h.Elapsed.Seconds())
		default:
			ew.printf("#   %-*s %-12s %s\n", width, h.Name, h.State, h.Err)
		}
	}
	rows := r.Rows()
	for _, row := range rows {
		ew.printf("%s:%d: %s\n", row.Path, row.Line, row.Name)
		for _, g := range row.Groups {
			ew.printf("    %s\n", fateText(g.Fate, hostList(g.Hosts, 12)))
			for _, f := range g.Findings {
				if f.Severity == grammar.SeverityHint {
					continue
				}
				ew.printf("        %d:%d: %s: %s [%s]\n", f.Range.Start.Line, f.Range.Start.Col, f.Severity, f.Message, f.Code)
			}
		}
		if len(row.NotChecked) > 0 {
			ew.printf("    not checked on %s\n", hostList(row.NotChecked, 12))
		}
	}
	ew.printf("\n")
	if len(r.Hosts) <= opts.GridLimit {
		writeGrid(ew, r, rows)
	} else {
		writeCounts(ew, rows)
	}
	return ew.err
}

// gridMark is a cell of the grid.
var gridMark = [...]string{Valid: "ok", Invalid: "FAIL", Absent: "absent", Masked: "masked"}

func writeGrid(ew *errWriter, r *Result, rows []Row) {
	names := make([]string, len(rows))
	nameWidth := len("definition")
	for i, row := range rows {
		names[i] = row.Name
		nameWidth = max(nameWidth, min(len(names[i]), 40))
	}
	ew.printf("%-*s", nameWidth, "definition")
	widths := make([]int, len(r.Hosts))
	for j, h := range r.Hosts {
		widths[j] = max(min(len(h.Name), 16), len("absent"))
		ew.printf(" %-*s", widths[j], h.Name[:min(len(h.Name), 16)])
	}
	ew.printf("\n")
	for i := range rows {
		ew.printf("%-*s", nameWidth, names[i][:min(len(names[i]), 40)])
		for j, h := range r.Hosts {
			mark := "-"
			if v, ok := r.Verdict(h, i); ok {
				mark = gridMark[v.Class()]
			}
			ew.printf(" %-*s", widths[j], mark)
		}
		ew.printf("\n")
	}
}

func writeCounts(ew *errWriter, rows []Row) {
	nameWidth := len("definition")
	for _, row := range rows {
		nameWidth = max(nameWidth, min(len(row.Name), 40))
	}
	ew.printf("%-*s %7s %7s %7s %7s %11s\n", nameWidth, "definition", "valid", "invalid", "absent", "masked", "not-checked")
	for _, row := range rows {
		ew.printf("%-*s %7d %7d %7d %7d %11d\n", nameWidth, row.Name[:min(len(row.Name), 40)],
			row.Counts[Valid], row.Counts[Invalid], row.Counts[Absent], row.Counts[Masked], len(row.NotChecked))
	}
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// JSON is the fleet report's document (format version 1).
type JSON struct {
	Version     int              `json:"version"`
	Tool        string           `json:"tool"`
	ToolVersion string           `json:"toolVersion"`
	Hosts       []JSONHost       `json:"hosts"`
	Definitions []JSONDefinition `json:"definitions"`
}

// JSONHost is one host.
type JSONHost struct {
	Name             string  `json:"name"`
	Target           string  `json:"target"`
	Source           string  `json:"source,omitempty"`
	State            string  `json:"state"`
	Error            string  `json:"error,omitempty"`
	PCPVersion       string  `json:"pcpVersion,omitempty"`
	PCPVersionReason string  `json:"pcpVersionReason,omitempty"`
	Seconds          float64 `json:"seconds"`
}

// JSONDefinition is one definition across the fleet.
type JSONDefinition struct {
	Path       string         `json:"path"`
	Line       int            `json:"line"`
	Name       string         `json:"name"`
	Summary    string         `json:"summary"`
	Counts     map[string]int `json:"counts"`
	Verdicts   []JSONVerdict  `json:"verdicts"`
	NotChecked []string       `json:"notChecked"`
}

// JSONVerdict is hosts sharing a verdict.
type JSONVerdict struct {
	Class string `json:"class"`
	Fate
	Findings []JSONFinding `json:"findings"`
	Hosts    []string      `json:"hosts"`
}

// JSONFinding is a finding with its position.
type JSONFinding struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
}

// Document builds the JSON report.
func (r *Result) Document(toolVersion string) JSON {
	doc := JSON{Version: 1, Tool: "pcp-derive-lsp", ToolVersion: toolVersion, Hosts: []JSONHost{}, Definitions: []JSONDefinition{}}
	for _, h := range r.Hosts {
		jh := JSONHost{Name: h.Name, Target: h.Target.String(), Source: h.SourceName, State: h.State.String(), Error: h.Err, Seconds: h.Elapsed.Seconds()}
		if h.State == Checked {
			jh.PCPVersion, jh.PCPVersionReason = h.PCP.Version.String(), h.PCP.Reason
		}
		doc.Hosts = append(doc.Hosts, jh)
	}
	for _, row := range r.Rows() {
		jd := JSONDefinition{Path: row.Path, Line: row.Line, Name: row.Name, Summary: row.Summary(), Verdicts: []JSONVerdict{},
			NotChecked: append([]string{}, row.NotChecked...),
			Counts:     map[string]int{"notChecked": len(row.NotChecked)}}
		for c := Valid; c <= Masked; c++ {
			jd.Counts[c.String()] = row.Counts[c]
		}
		for _, g := range row.Groups {
			jv := JSONVerdict{Class: g.Class().String(), Fate: g.Fate, Hosts: g.Hosts, Findings: []JSONFinding{}}
			for _, f := range g.Findings {
				if f.Severity == grammar.SeverityHint {
					continue
				}
				jv.Findings = append(jv.Findings, JSONFinding{Code: f.Code, Severity: f.Severity.String(), Message: f.Message,
					Line: int(f.Range.Start.Line), Column: int(f.Range.Start.Col)})
			}
			jd.Verdicts = append(jd.Verdicts, jv)
		}
		doc.Definitions = append(doc.Definitions, jd)
	}
	return doc
}

// WriteJSON writes the JSON report.
func WriteJSON(w io.Writer, r *Result, toolVersion string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.Document(toolVersion))
}

// Run turns the result into one report.Run for the CI formats (SARIF):
// each finding once, said of the hosts where it holds ("on 3 of 40
// hosts (h3, h9, h12): ..."), and a host-unreachable finding for each
// host not checked.
func (r *Result) Run(tool, toolVersion string) *report.Run {
	run := &report.Run{Tool: tool, Version: toolVersion, Source: fmt.Sprintf("fleet of %d hosts", len(r.Hosts))}
	if len(r.Files) == 0 {
		return run
	}
	checked := 0
	for _, h := range r.Hosts {
		if h.State == Checked {
			checked++
			if run.PCPVersion.Major == 0 {
				run.PCPVersion, run.PCPVersionReason = h.PCP.Version, "each host's own release; this is the first checked host's"
			}
		}
	}
	byPath := map[string]int{}
	for i, f := range r.Files {
		byPath[f.Path] = i
		run.Files = append(run.Files, report.File{File: f})
	}
	for _, row := range r.Rows() {
		fi, ok := byPath[row.Path]
		if !ok {
			continue
		}
		type key struct {
			code, msg string
			at        grammar.Pos
		}
		hostsOf := map[key][]string{}
		var order []key
		found := map[key]Finding{}
		for _, g := range row.Groups {
			for _, f := range g.Findings {
				if f.Severity == grammar.SeverityHint {
					continue
				}
				k := key{f.Code, f.Message, f.Range.Start}
				if _, ok := hostsOf[k]; !ok {
					order = append(order, k)
					found[k] = f
				}
				hostsOf[k] = append(hostsOf[k], g.Hosts...)
			}
		}
		for _, k := range order {
			f, hosts := found[k], hostsOf[k]
			msg := f.Message
			if len(hosts) < checked {
				msg = fmt.Sprintf("on %d of %d hosts (%s): %s", len(hosts), checked, hostList(hosts, 10), f.Message)
			}
			run.Files[fi].Diagnostics = append(run.Files[fi].Diagnostics, grammar.Diagnostic{Range: f.Range, Severity: f.Severity, Code: f.Code, Message: msg})
		}
	}
	for _, h := range r.Hosts {
		if h.State != Checked {
			run.Files[0].Diagnostics = append(run.Files[0].Diagnostics, grammar.Diagnostic{
				Range: grammar.Range{Start: grammar.Pos{Line: 1, Col: 1}, End: grammar.Pos{Line: 1, Col: 1}}, Severity: grammar.SeverityError,
				Code: codes.HostUnreachable, Message: fmt.Sprintf("host %s not checked (%s): %s", h.Name, h.State, h.Err)})
		}
	}
	for i := range run.Files {
		d := run.Files[i].Diagnostics
		sort.SliceStable(d, func(a, b int) bool { return d[a].Range.Start.Before(d[b].Range.Start) })
	}
	return run
}
