package explain

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// TextOptions tune the text tree.
type TextOptions struct {
	// MaxInstances is how many values a line shows (default 5); the
	// rest are counted.
	MaxInstances int
}

// Limits of the text form, so a 10,000-node expression prints in space
// proportional to it: node text is shortened, and indentation stops
// growing past maxIndent levels (deeper lines say their depth).
const (
	maxLineText = 60
	maxIndent   = 24
	// maxJSONText bounds a node's "text" in JSON; "span" is exact.
	maxJSONText = 200
)

// WriteText prints the explanation as a tree, one line per node: source
// text, metadata, values, and what it computes; the node where values
// vanish says why, in capitals so it stands out.
func WriteText(w io.Writer, x *Explanation, opts TextOptions) error {
	bw := bufio.NewWriter(w)
	for _, l := range header(x) {
		fmt.Fprintf(bw, "# %s\n", l)
	}
	writeTree(bw, x, opts)
	if len(x.Origins) > 0 {
		o := x.Origins[0]
		fmt.Fprintf(bw, "%s: %s\n", verdict(x), o.EmptyBecause())
	}
	return bw.Flush()
}

// verdict is the last line's lead: why the whole metric is empty, or
// where values vanish below a root that still has some.
func verdict(x *Explanation) string {
	if x.Root.Empty() {
		return "no values"
	}
	return "values vanish below"
}

func header(x *Explanation) []string {
	name := x.Name
	if name == "" {
		name = "expression"
	}
	lines := []string{fmt.Sprintf("%s = %s", name, abbreviate(x.Expr, maxJSONText))}
	src := fmt.Sprintf("values from %s, following PCP %s", x.Source, x.Version)
	switch {
	case x.Samples == 0:
		src += "; not evaluated"
	case x.Recorded:
		src += "; the record at " + stamp(x.Timestamp)
		if x.History {
			src += " (delta and rate compare it with the record before)"
		}
	case x.History && x.Samples > 1:
		src += fmt.Sprintf("; sampled at %s, %v after the sample delta and rate compare it with", x.Timestamp.Format("15:04:05.000"), x.Interval)
	default:
		src += "; sampled at " + x.Timestamp.Format("15:04:05.000")
	}
	return append(lines, src)
}

func writeTree(w *bufio.Writer, x *Explanation, opts TextOptions) {
	type item struct {
		n      *Node
		depth  int
		prefix string // the bars of the ancestors, at most maxIndent levels
		last   bool
	}
	stack := []item{{x.Root, 0, "", true}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		lead, childPrefix := "", it.prefix
		if it.depth > 0 {
			switch {
			case it.depth > maxIndent:
				lead = fmt.Sprintf("%s┄ [depth %d] ", it.prefix, it.depth)
			case it.last:
				lead, childPrefix = it.prefix+"└─ ", it.prefix+"   "
			default:
				lead, childPrefix = it.prefix+"├─ ", it.prefix+"│  "
			}
		}
		fmt.Fprintf(w, "%s%s\n", lead, line(it.n, opts))
		for i := len(it.n.Children()) - 1; i >= 0; i-- {
			stack = append(stack, item{it.n.Children()[i], it.depth + 1, childPrefix, i == len(it.n.Children())-1})
		}
	}
}

// line is one node's line after its tree prefix.
func line(n *Node, opts TextOptions) string {
	meta := "no metadata"
	if n.Desc() != nil {
		meta = checker.DescText(*n.Desc())
	}
	return fmt.Sprintf("%s  [%s]  %s  — %s", abbreviate(n.Text(), maxLineText), meta, valuesText(n, opts), n.Explanation())
}

func valuesText(n *Node, opts TextOptions) string {
	switch {
	case !n.Evaluated():
		return "not evaluated"
	case n.EmptyBecause() != "" && n.Err() != nil:
		return "FAILS HERE: " + n.EmptyBecause()
	case n.EmptyBecause() != "":
		return "NO VALUES HERE: " + n.EmptyBecause()
	case n.Err() != nil:
		return "fails: " + n.Err().Error()
	case n.numValues() == 0:
		return "no values"
	}
	show := func(v Value) string {
		if v.Number {
			return v.Text
		}
		return strconv.Quote(v.Text)
	}
	if n.numValues() == 1 && n.value(0).Singular() {
		return "= " + show(n.value(0))
	}
	max := opts.MaxInstances
	if max <= 0 {
		max = 5
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s: ", n.numValues(), plural(n.numValues(), "value", "values"))
	for i := range n.numValues() {
		if i == max {
			fmt.Fprintf(&b, ", … (%d more)", n.numValues()-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		v := n.value(i)
		fmt.Fprintf(&b, "[%s] %s", instanceLabel(v), show(v))
	}
	return b.String()
}

func instanceLabel(v Value) string {
	switch {
	case v.Singular():
		return "singular"
	case v.Instance != "":
		return v.Instance
	}
	return strconv.Itoa(int(v.Inst))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Markdown is the explanation for an editor: a heading, the tree in a
// code block, and the reason values vanish.
func Markdown(x *Explanation, opts TextOptions) string {
	var b strings.Builder
	name := x.Name
	if name == "" {
		name = "expression"
	}
	fmt.Fprintf(&b, "**Explain `%s`**\n\n", name)
	h := header(x)
	fmt.Fprintf(&b, "%s\n\n```text\n", h[len(h)-1])
	bw := bufio.NewWriter(&b)
	writeTree(bw, x, opts)
	bw.Flush()
	b.WriteString("```\n")
	if len(x.Origins) > 0 {
		o := x.Origins[0]
		fmt.Fprintf(&b, "\n**%s** at `%s`: %s\n", strings.ToUpper(verdict(x)[:1])+verdict(x)[1:], abbreviate(o.Text(), maxLineText), o.EmptyBecause())
	}
	return b.String()
}

// WriteJSON prints the explanation in the documented schema (README,
// docs/explain.md): {"name", "expr", "source", "pcp_version", "root"}, and
// per node {"text", "kind", "span", "metadata", "values", "explanation",
// "empty_because" (only where values vanish), "children"}. It writes the
// tree with an explicit stack: no recursion, whatever the depth.
func WriteJSON(w io.Writer, x *Explanation) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"name":`)
	if x.Name == "" {
		bw.WriteString("null")
	} else {
		writeString(bw, x.Name)
	}
	bw.WriteString(`,"expr":`)
	writeString(bw, x.Expr)
	bw.WriteString(`,"source":`)
	writeString(bw, x.Source)
	bw.WriteString(`,"pcp_version":`)
	writeString(bw, x.Version.String())
	bw.WriteString(`,"root":`)
	type frame struct {
		n    *Node
		next int // the next child to write
	}
	stack := []frame{{x.Root, -1}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next == -1 {
			writeNodeHead(bw, f.n)
			f.next = 0
		}
		if f.next < len(f.n.Children()) {
			if f.next > 0 {
				bw.WriteByte(',')
			}
			c := f.n.Children()[f.next]
			f.next++
			stack = append(stack, frame{c, -1})
			continue
		}
		bw.WriteString("]}")
		stack = stack[:len(stack)-1]
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// writeNodeHead writes a node up to the opening of its children.
func writeNodeHead(w *bufio.Writer, n *Node) {
	w.WriteString(`{"text":`)
	writeString(w, abbreviate(n.Text(), maxJSONText))
	fmt.Fprintf(w, `,"kind":"%s","span":{"start":%d,"end":%d},"metadata":`, n.Kind(), n.Span().Start, n.Span().End)
	if n.Desc() == nil {
		w.WriteString("null")
	} else {
		writeMetadata(w, *n.Desc())
	}
	w.WriteString(`,"values":[`)
	if n.Evaluated() {
		for i := range n.numValues() {
			if i > 0 {
				w.WriteByte(',')
			}
			v := n.value(i)
			w.WriteString(`{"instance":`)
			if v.Singular() {
				w.WriteString("null")
			} else {
				writeString(w, instanceLabel(v))
			}
			w.WriteString(`,"value":`)
			if v.Number && isJSONNumber(v) {
				w.WriteString(v.Text)
			} else {
				writeString(w, v.Text)
			}
			w.WriteByte('}')
		}
	}
	w.WriteString(`],"explanation":`)
	writeString(w, n.Explanation())
	if n.EmptyBecause() != "" {
		w.WriteString(`,"empty_because":`)
		writeString(w, n.EmptyBecause())
	}
	w.WriteString(`,"children":[`)
}

func writeMetadata(w *bufio.Writer, d pmapi.Desc) {
	units := d.Units.String()
	if units == "" {
		units = "none"
	}
	w.WriteString(`{"type":`)
	writeString(w, d.Type.String())
	w.WriteString(`,"semantics":`)
	writeString(w, d.Sem.String())
	w.WriteString(`,"units":`)
	writeString(w, units)
	w.WriteString(`,"indom":`)
	writeString(w, d.InDom.String())
	w.WriteByte('}')
}

// isJSONNumber reports a value JSON can hold as a number: not nan or inf.
func isJSONNumber(v Value) bool { return json.Valid([]byte(v.Text)) }

// writeString writes s as a JSON string, without the HTML escapes
// encoding/json adds (expressions are full of < and &).
func writeString(w *bufio.Writer, s string) {
	const hex = "0123456789abcdef"
	w.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			w.WriteByte('\\')
			w.WriteRune(r)
		case r == '\n':
			w.WriteString(`\n`)
		case r == '\t':
			w.WriteString(`\t`)
		case r < 0x20:
			w.WriteString(`\u00`)
			w.WriteByte(hex[r>>4])
			w.WriteByte(hex[r&0xf])
		default:
			w.WriteRune(r) // invalid UTF-8 was decoded as U+FFFD
		}
	}
	w.WriteByte('"')
}
