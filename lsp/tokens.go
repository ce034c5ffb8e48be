package lsp

import (
	"bytes"
	"context"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// The semantic token legend. Indexes into these slices are what the
// encoded tokens carry.
var (
	tokenTypes     = []string{"variable", "function", "keyword", "number", "string", "operator", "comment", "property", "regexp", "enumMember", "parameter"}
	tokenModifiers = []string{"declaration", "readonly", "defaultLibrary"}
)

const (
	ttVariable = iota
	ttFunction
	ttKeyword
	ttNumber
	ttString
	ttOperator
	ttComment
	ttProperty
	ttRegexp
	ttEnumMember
	ttParameter
)

const (
	tmDeclaration = 1 << iota
	tmReadonly
	tmDefaultLibrary
)

// semToken is one token before encoding: a byte range of the file.
type semToken struct {
	start, end int
	typ, mods  int
}

// SemanticTokensFull colours the whole file: comments, #control lines,
// definition names, metric names (derived ones as properties), functions,
// spec keywords, numbers, strings, instance names, patterns, operators
// and attribute lines.
func (s *server) SemanticTokensFull(ctx context.Context, params *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	a := s.parsed(ctx, params.TextDocument.URI)
	if a == nil {
		return nil, nil
	}
	return &protocol.SemanticTokens{Data: encodeTokens(a.file, fileTokens(a.file))}, nil
}

func fileTokens(f *grammar.File) []semToken {
	var toks []semToken
	for _, c := range f.Comments {
		start, end := f.Offsets(c)
		toks = append(toks, semToken{start, end, ttComment, 0})
	}
	derived := map[string]bool{}
	for _, d := range f.Definitions.All() {
		derived[d.Name] = true
	}
	for _, d := range f.Definitions.All() {
		start, end := f.Offsets(d.NameRange)
		toks = append(toks, semToken{start, end, ttVariable, tmDeclaration})
		for _, t := range d.Tokens() {
			typ, mods := -1, 0
			switch t.Kind {
			case grammar.TokName:
				typ = ttVariable
				name := t.Value(d.Expr)
				if derived[name] {
					typ = ttProperty
				}
				if strings.HasPrefix(name, "PM_TYPE_") {
					typ, mods = ttKeyword, tmReadonly
				}
			case grammar.TokFunc:
				typ, mods = ttFunction, tmDefaultLibrary
			case grammar.TokType, grammar.TokSemantics, grammar.TokUnits, grammar.TokIndom, grammar.TokMeta:
				typ = ttParameter
			case grammar.TokInteger, grammar.TokDouble:
				typ = ttNumber
			case grammar.TokString:
				typ = ttString
			case grammar.TokInstName:
				typ = ttEnumMember
			case grammar.TokPattern:
				typ = ttRegexp
			case grammar.TokEOS, grammar.TokError, grammar.TokLParen, grammar.TokRParen, grammar.TokComma:
			default:
				typ = ttOperator
			}
			if typ < 0 || t.End() <= t.Offset() {
				continue
			}
			toks = append(toks, semToken{f.ExprPos(d, t.Offset()), f.ExprPos(d, t.End()-1) + 1, typ, mods})
		}
	}
	for _, at := range f.Attributes {
		toks = append(toks, attributeTokens(f, at)...)
	}
	sort.Slice(toks, func(i, j int) bool { return toks[i].start < toks[j].start })
	return toks
}

// attributeTokens splits "name(attr) = value" into its parts.
func attributeTokens(f *grammar.File, at *grammar.Attribute) []semToken {
	start, end := f.Offsets(at.Range)
	text := string(f.Text.Slice(start, end))
	open := strings.IndexByte(text, '(')
	closing := strings.IndexByte(text, ')')
	if open <= 0 || closing < open {
		return nil
	}
	name := strings.TrimRight(text[:open], " \t")
	toks := []semToken{
		{start, start + len(name), ttVariable, 0},
		{start + open + 1, start + closing, ttProperty, 0},
	}
	if eq := strings.IndexByte(text[closing:], '='); eq >= 0 {
		v := closing + eq + 1
		for v < len(text) && (text[v] == ' ' || text[v] == '\t') {
			v++
		}
		end := len(strings.TrimRight(text, " \t\r\n"))
		if v < end {
			toks = append(toks, semToken{start + v, start + end, ttString, 0})
		}
	}
	return toks
}

// encodeTokens turns byte ranges into LSP's relative encoding, splitting
// tokens that span lines.
func encodeTokens(f *grammar.File, toks []semToken) []uint32 {
	data := make([]uint32, 0, 5*len(toks))
	prevLine, prevCol := 0, 0
	emit := func(line, col, length, typ, mods int) {
		if length <= 0 {
			return
		}
		dl := line - prevLine
		dc := col
		if dl == 0 {
			dc = col - prevCol
		}
		data = append(data, uint32(dl), uint32(dc), uint32(length), uint32(typ), uint32(mods))
		prevLine, prevCol = line, col
	}
	lastEnd := 0
	for _, t := range toks {
		if t.start < lastEnd {
			continue // overlapping (a comment inside a multi-line value)
		}
		lastEnd = t.end
		for t.start < t.end {
			// One token a line, as LSP counts lines ("\n", "\r\n", a
			// lone "\r").
			line, col := f.Text.Position(t.start)
			lineEnd := t.end
			if k := bytes.IndexAny(f.Text.Slice(t.start, t.end), "\r\n"); k >= 0 {
				lineEnd = t.start + k
			}
			_, endCol := f.Text.Position(lineEnd)
			emit(line, col, endCol-col, t.typ, t.mods)
			t.start = lineEnd + 1
		}
	}
	return data
}
