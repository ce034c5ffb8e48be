package codes

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Markdown is the code's documentation page (docs/codes/CODE.md):
// summary, default severity, the libpcp behaviour behind it, the example
// with what check reports for it (reported, rendered by the caller, who
// runs the analysis), and the fix.
func (in Info) Markdown(reported string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# `%s`: %s\n\n", in.Code, in.Summary)
	b.WriteString("<!-- Generated from the registry (codes/codes.go) by `go test ./analysis -run TestCodePages -update`: edit the registry, not this page. -->\n\n")
	fmt.Fprintf(&b, "Default severity: **%s**", in.Severity)
	if in.SeverityNote != "" {
		fmt.Fprintf(&b, " (%s)", in.SeverityNote)
	}
	fmt.Fprintf(&b, ". Kind: %s. [All codes](README.md).\n\n", in.Kind)
	fmt.Fprintf(&b, "## What libpcp does\n\n%s\n\n## Example\n\n", in.Behaviour)
	if in.Example == "" {
		fmt.Fprintf(&b, "No example config: %s\n\n", in.NoExample)
	} else {
		release := "the latest PCP release"
		if in.Release != "" {
			release = "PCP " + in.Release + " (`--pcp-version " + in.Release + "`)"
		}
		fmt.Fprintf(&b, "Checked for %s against the embedded metadata (`--metadata embedded`):\n\n", release)
		fence(&b, "", in.Example)
		b.WriteString("`pcp-derive-lsp check` reports:\n\n")
		fence(&b, "", reported)
	}
	fmt.Fprintf(&b, "## Fix\n\n%s\n\n", in.FixNote)
	if in.Fix != "" {
		fence(&b, "", in.Fix)
	}
	fmt.Fprintf(&b, "## Turning it off\n\nSuppress one finding with a comment line before its definition, `# pcp-derive-lsp: ignore[%s]`. For a whole project, turn the code off or change its severity in `.pcp-derive-lsp.yaml` (or with `check --disable %s`, `--severity %s=LEVEL`):\n\n", in.Code, in.Code, in.Code)
	other := SevWarning
	if in.Severity == SevWarning {
		other = SevError
	}
	fence(&b, "yaml", fmt.Sprintf("severity:\n  %s: %s\n", in.Code, other))
	return b.String()
}

// IndexMarkdown is docs/codes/README.md: every code by kind, with its
// default severity and summary.
func IndexMarkdown() string {
	var b strings.Builder
	b.WriteString("# Finding codes\n\n")
	b.WriteString("<!-- Generated from the registry (codes/codes.go) by `go test ./analysis -run TestCodePages -update`: edit the registry, not this page. -->\n\n")
	b.WriteString("Every finding of `pcp-derive-lsp check` and of the language server carries one of these codes. Each page says what libpcp does behind the finding, shows an example with what `check` reports, and the fix. The editor links each diagnostic to its page, and SARIF rules point here too. Suppress a finding with `# pcp-derive-lsp: ignore[CODE]` on the line before its definition; turn codes off or change their severity for a project in `.pcp-derive-lsp.yaml` (see the README).\n")
	for _, k := range Kinds {
		fmt.Fprintf(&b, "\n## %s\n\n| code | default severity | summary |\n|---|---|---|\n", k)
		for _, in := range ByKind(k) {
			fmt.Fprintf(&b, "| [`%s`](%s.md) | %s | %s |\n", in.Code, in.Code, in.Severity, strings.ReplaceAll(in.Summary, "|", "\\|"))
		}
	}
	return b.String()
}

// fence writes text as a fenced code block, with the bytes no page
// could show (NUL, other control characters, invalid UTF-8) escaped as
// \xNN.
func fence(b *strings.Builder, lang, text string) {
	fmt.Fprintf(b, "```%s\n", lang)
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size <= 1, r != '\n' && r != '\t' && unicode.IsControl(r):
			fmt.Fprintf(b, `\x%02x`, text[i])
		default:
			b.WriteString(text[i : i+size])
		}
		i += size
	}
	if !strings.HasSuffix(text, "\n") {
		b.WriteString("\n```\n\n(The last line has no newline.)\n\n")
		return
	}
	b.WriteString("```\n\n")
}
