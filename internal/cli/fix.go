package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/report"
)

// fileFix is the safe edits check --fix applies to one file.
type fileFix struct {
	file  *grammar.File
	edits []grammar.Edit
	fixed map[int]bool // indexes of the findings the edits resolve
}

// safeFixes collects, per file, the edits of findings that have exactly
// one fix and that fix is safe (grammar.Fix.Safe). Overlapping edits keep
// the first; files read from stdin cannot be rewritten and are skipped.
func safeFixes(run *report.Run) []fileFix {
	var out []fileFix
	for _, rf := range run.Files {
		if rf.File.Path == "<stdin>" {
			continue
		}
		ff := fileFix{file: rf.File, fixed: map[int]bool{}}
		end := -1
		type indexed struct {
			k    int
			edit grammar.Edit
		}
		var cands []indexed
		for k, d := range rf.Diagnostics {
			if len(d.Fixes) == 1 && d.Fixes[0].Safe && len(d.Fixes[0].Edits) == 1 {
				cands = append(cands, indexed{k, d.Fixes[0].Edits[0]})
			}
		}
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].edit.Range.Start.Before(cands[j].edit.Range.Start) })
		for _, c := range cands {
			start, stop := rf.File.Offsets(c.edit.Range)
			if start < end {
				continue
			}
			ff.edits = append(ff.edits, c.edit)
			ff.fixed[c.k] = true
			end = stop
		}
		if len(ff.edits) > 0 {
			out = append(out, ff)
		}
	}
	return out
}

// apply returns the file's text with the edits made (sorted, disjoint).
func (ff fileFix) apply() []byte {
	var b bytes.Buffer
	ff.writeTo(&b) // a bytes.Buffer never fails
	return b.Bytes()
}

// writeTo writes the file's text with the edits made, a piece at a time.
func (ff fileFix) writeTo(w io.Writer) error {
	src := ff.file.Text.Bytes()
	at := 0
	for _, e := range ff.edits {
		start, end := ff.file.Offsets(e.Range)
		if _, err := w.Write(src[at:start]); err != nil {
			return err
		}
		if _, err := io.WriteString(w, e.NewText); err != nil {
			return err
		}
		at = end
	}
	_, err := w.Write(src[at:])
	return err
}

// writeFixes saves each fixed file as an editor saves it (fileSaver.save)
// and drops the findings fixed from the report. It returns how many
// findings were fixed in how many files, and an error for each file not
// rewritten; the others are saved all the same.
func writeFixes(fixes []fileFix, run *report.Run, s fileSaver) (findings, files int, err error) {
	var saved []fileFix
	var errs []error
	for _, ff := range fixes {
		if err := s.save(ff); err != nil {
			errs = append(errs, err)
			continue
		}
		saved = append(saved, ff)
		findings += len(ff.edits)
	}
	dropFixed(saved, run)
	return findings, len(saved), errors.Join(errs...)
}

func dropFixed(fixes []fileFix, run *report.Run) {
	byFile := map[*grammar.File]map[int]bool{}
	for _, ff := range fixes {
		byFile[ff.file] = ff.fixed
	}
	for i, rf := range run.Files {
		fixed := byFile[rf.File]
		if fixed == nil {
			continue
		}
		var kept []grammar.Diagnostic
		for k, d := range rf.Diagnostics {
			if !fixed[k] {
				kept = append(kept, d)
			}
		}
		run.Files[i].Diagnostics = kept
	}
}

// writeDiff prints the fixes as a unified diff (a/ and b/ paths, three
// lines of context), as patch and git apply read it.
func writeDiff(w io.Writer, fixes []fileFix) error {
	for _, ff := range fixes {
		old := splitLines(ff.file.Text.Bytes())
		newText := ff.apply()
		if _, err := fmt.Fprintf(w, "--- a/%s\n+++ b/%s\n", strings.TrimPrefix(ff.file.Path, "/"), strings.TrimPrefix(ff.file.Path, "/")); err != nil {
			return err
		}
		for _, h := range hunks(ff, old, splitLines(newText)) {
			if _, err := io.WriteString(w, h); err != nil {
				return err
			}
		}
	}
	return nil
}

// splitLines splits text into lines, each with its newline.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// hunks renders the changed lines of each edit with context, merging
// edits whose context overlaps. Edits never add or remove newlines here
// except where their own text does, so line shifts are tracked per edit.
func hunks(ff fileFix, old, new []string) []string {
	const context = 3
	type span struct{ oldFrom, oldTo, newFrom, newTo int } // 0-based, exclusive ends
	var spans []span
	shift := 0
	for _, e := range ff.edits {
		from, to := int(e.Range.Start.Line)-1, int(e.Range.End.Line) // lines the edit touches
		added := strings.Count(e.NewText, "\n") - int(e.Range.End.Line-e.Range.Start.Line)
		if n := len(spans); n > 0 && from < spans[n-1].oldTo {
			// Another edit on a line already changed: one change.
			shift += added
			spans[n-1].oldTo = max(spans[n-1].oldTo, to)
			spans[n-1].newTo = spans[n-1].oldTo + shift
			continue
		}
		newFrom := from + shift
		shift += added
		spans = append(spans, span{from, to, newFrom, to + shift})
	}
	var out []string
	for i := 0; i < len(spans); {
		j := i
		for j+1 < len(spans) && spans[j+1].oldFrom-spans[j].oldTo <= 2*context {
			j++
		}
		first, last := spans[i], spans[j]
		oFrom, nFrom := max(first.oldFrom-context, 0), max(first.newFrom-context, 0)
		oTo, nTo := min(last.oldTo+context, len(old)), min(last.newTo+context, len(new))
		var b strings.Builder
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", oFrom+1, oTo-oFrom, nFrom+1, nTo-nFrom)
		at := oFrom // next old line to print
		for _, sp := range spans[i : j+1] {
			for ; at < sp.oldFrom; at++ {
				b.WriteString(" " + withNewline(old[at]))
			}
			for k := sp.oldFrom; k < sp.oldTo; k++ {
				b.WriteString("-" + withNewline(old[k]))
			}
			for k := sp.newFrom; k < sp.newTo; k++ {
				b.WriteString("+" + withNewline(new[k]))
			}
			at = sp.oldTo
		}
		for ; at < oTo; at++ {
			b.WriteString(" " + withNewline(old[at]))
		}
		out = append(out, b.String())
		i = j + 1
	}
	return out
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n\\ No newline at end of file\n"
}
