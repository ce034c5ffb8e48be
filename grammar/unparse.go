package grammar

import (
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// LibpcpLeaf renders an operand the way libpcp's semantic messages do:
// the literal text of a metric name, an integer or double literal (for
// mkconst, its number), and "<expr>" for anything else.
func LibpcpLeaf(n Node) string {
	switch n := Unwrap(n).(type) {
	case *Metric:
		if n.Inst == nil {
			return n.Name
		}
	case *Number:
		return n.Text
	case *Mkconst:
		return n.Value.Text
	}
	return "<expr>"
}

// LibpcpRendering renders a failing node as libpcp's "Semantic error:
// derived metric NAME: RENDERING: MESSAGE" does. For a rescale node, units
// is the target's units text ("" renders as "none").
func LibpcpRendering(n Node) string {
	switch n := Unwrap(n).(type) {
	case *Binary:
		return LibpcpLeaf(n.L) + " " + n.Op + " " + LibpcpLeaf(n.R)
	case *Unary:
		return n.Op + " " + LibpcpLeaf(n.X)
	case *Call:
		arg := "(null)"
		switch a := Unwrap(n.Arg).(type) {
		case *Metric:
			if a.Inst == nil {
				arg = a.Name
			}
		case *Number:
			arg = a.Text
		case *Mkconst:
			arg = a.Value.Text
		}
		return strings.ToUpper(n.Func) + "(" + arg + ")"
	case *Ternary:
		return LibpcpLeaf(n.Cond) + " ? " + LibpcpLeaf(n.Then) + " : " + LibpcpLeaf(n.Else)
	case *Metric:
		return "operand " + n.Name
	}
	return "<expr>"
}

// LibpcpRescaleRendering is the rendering of a failing rescale node.
func LibpcpRescaleRendering(n *Rescale, unitsText string) string {
	if unitsText == "" {
		unitsText = "none"
	}
	return LibpcpLeaf(n.X) + " RESCALE " + unitsText
}

// Format renders an expression in canonical form: single spaces around
// binary operators and "? :", none after unary operators or inside
// parentheses, ", " between arguments. Parentheses are kept as written, so
// the tree (and libpcp's parse of it) is unchanged.
func Format(n Node) string {
	var b strings.Builder
	format(&b, n)
	return b.String()
}

func format(b *strings.Builder, n Node) {
	switch n := n.(type) {
	case *Metric:
		b.WriteString(n.Name)
		if n.Inst != nil {
			formatInst(b, n.Inst.Name)
		}
	case *Number:
		b.WriteString(n.Text)
	case *Paren:
		b.WriteByte('(')
		format(b, n.X)
		b.WriteByte(')')
	case *Filter:
		format(b, &Paren{X: n.X})
		formatInst(b, n.Inst.Name)
	case *Unary:
		b.WriteString(n.Op)
		format(b, n.X)
	case *Binary:
		format(b, n.L)
		b.WriteString(" " + n.Op + " ")
		format(b, n.R)
	case *Ternary:
		format(b, n.Cond)
		b.WriteString(" ? ")
		format(b, n.Then)
		b.WriteString(" : ")
		format(b, n.Else)
	case *Call:
		b.WriteString(n.Func + "(")
		format(b, n.Arg)
		b.WriteByte(')')
	case *Rescale:
		b.WriteString("rescale(")
		format(b, n.X)
		b.WriteString(`, "` + n.Units + `")`)
	case *Matchinst:
		b.WriteString("matchinst(")
		if n.Invert {
			b.WriteByte('!')
		}
		b.WriteString("/" + escape(n.Pattern, '/') + "/, ")
		format(b, n.X)
		b.WriteByte(')')
	case *Mkconst:
		b.WriteString("mkconst(" + n.Value.Text)
		for _, s := range n.Specs {
			b.WriteString(", ")
			formatSpec(b, s)
		}
		b.WriteByte(')')
	case *Novalue:
		b.WriteString("novalue(")
		for i, s := range n.Specs {
			if i > 0 {
				b.WriteString(", ")
			}
			formatSpec(b, s)
		}
		b.WriteByte(')')
	}
}

func formatSpec(b *strings.Builder, s Spec) {
	b.WriteString(s.Key + "=")
	if s.Quoted {
		b.WriteString(`"` + s.Value + `"`)
	} else {
		b.WriteString(s.Value)
	}
}

func formatInst(b *strings.Builder, name string) {
	b.WriteString("[" + escape(name, ']') + "]")
}

// escape undoes libpcp's backslash removal for an instance name or pattern.
func escape(s string, delim byte) string {
	if !strings.ContainsAny(s, string(delim)+`\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == delim || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// FormatDefinition renders "name = expression" canonically. In the pcp7
// dialect a definition longer than width is laid out over continuation
// lines ("\\" newline, PCP 6.2.2+), one operand of the top-level
// operator per line; pcp6 has no continuations, so it stays on one line.
func FormatDefinition(name string, tree Node, v pcpver.Version, width int) string {
	one := name + " = " + Format(tree)
	if !v.Has(pcpver.Continuation) || len(one) <= width {
		return one
	}
	const indent = "    "
	switch root := tree.(type) {
	case *Binary:
		// The left spine of operators of the root's precedence: a - b + c.
		prec := binaryPrec[root.Op]
		var ops []string
		var rights []Node
		n := Node(root)
		for {
			b, ok := n.(*Binary)
			if !ok || binaryPrec[b.Op] != prec {
				break
			}
			ops = append(ops, b.Op)
			rights = append(rights, b.R)
			n = b.L
		}
		lines := []string{name + " = " + Format(n)}
		for i := len(ops) - 1; i >= 0; i-- {
			lines = append(lines, indent+ops[i]+" "+Format(rights[i]))
		}
		return strings.Join(lines, " \\\n")
	case *Ternary:
		return strings.Join([]string{name + " = " + Format(root.Cond), indent + "? " + Format(root.Then), indent + ": " + Format(root.Else)}, " \\\n")
	}
	return one
}
