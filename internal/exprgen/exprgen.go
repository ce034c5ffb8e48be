// Package exprgen generates random derived-metric expressions for
// differential tests against libpcp: mostly well-formed ones built from the
// grammar, and a share deliberately broken by token-level mutations.
package exprgen

import (
	"math/rand/v2"
	"strings"
)

// Generator produces expressions from a seeded source, so a failing case
// can be reproduced from its seed and index.
type Generator struct {
	rng *rand.Rand
	// Metrics are the metric names leaves draw from.
	Metrics []string
	// PCP7 allows constructs of the latest PCP (novalue, delta of an
	// expression, meta=, indom=, double spec values).
	PCP7 bool
	// BrokenShare is the fraction of expressions mutated into (probably)
	// invalid ones.
	BrokenShare float64
}

// New returns a generator with a fixed seed.
func New(seed uint64, metrics []string) *Generator {
	return &Generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), Metrics: metrics, BrokenShare: 0.2}
}

// Next returns one expression.
func (g *Generator) Next() string {
	e := g.expr(0)
	if g.rng.Float64() < g.BrokenShare {
		e = g.mutate(e)
	}
	return e
}

func (g *Generator) pick(xs ...string) string { return xs[g.rng.IntN(len(xs))] }

func (g *Generator) space() string {
	switch g.rng.IntN(6) {
	case 0:
		return ""
	case 1:
		return "  "
	case 2:
		return "\t"
	default:
		return " "
	}
}

var binaryOps = []string{"+", "-", "*", "/", "<", "<=", "==", ">=", ">", "!=", "&&", "||"}

func (g *Generator) expr(depth int) string {
	if depth > 4 {
		return g.leaf()
	}
	switch g.rng.IntN(12) {
	case 0, 1, 2:
		return g.leaf()
	case 3, 4, 5:
		s := g.space()
		return g.expr(depth+1) + s + g.pick(binaryOps...) + s + g.expr(depth+1)
	case 6:
		return g.pick("-", "!", "- ", "! ") + g.expr(depth+1)
	case 7:
		return "(" + g.space() + g.expr(depth+1) + g.space() + ")" + g.optInst()
	case 8:
		return g.expr(depth+1) + " ? " + g.expr(depth+1) + " : " + g.branch(depth+1)
	default:
		return g.function(depth + 1)
	}
}

func (g *Generator) branch(depth int) string {
	if g.PCP7 && g.rng.IntN(5) == 0 {
		return "novalue(" + g.pick("", "type=u32", "units=\"byte\"") + ")"
	}
	return g.expr(depth)
}

func (g *Generator) metric() string {
	if len(g.Metrics) == 0 || g.rng.IntN(20) == 0 {
		return g.pick("no.such.metric", "sum", "count", "x", "a.b.", "x._y", "novalue", "meta", "indom", "a1.b2", "m.1b")
	}
	return g.Metrics[g.rng.IntN(len(g.Metrics))]
}

func (g *Generator) optInst() string {
	if g.rng.IntN(5) != 0 {
		return ""
	}
	return g.space() + "[" + g.pick("bin-100", "red", "1 minute", "", `a\]b`, `x\\y`, "5") + "]"
}

func (g *Generator) leaf() string {
	switch g.rng.IntN(8) {
	case 0:
		return g.pick("0", "1", "42", "007", "4294967295", "4294967296", "100000000000000000000", "65536")
	case 1:
		return g.pick("1.5", ".5", "3.", ".", "0.0", "2.25")
	case 2:
		return g.mkconst()
	default:
		return g.metric() + g.optInst()
	}
}

func (g *Generator) mkconst() string {
	value := g.pick("1", "0", "42", "1.5", "4294967295", "2.0")
	var specs []string
	for range 1 + g.rng.IntN(3) {
		specs = append(specs, g.spec())
	}
	return "mkconst(" + value + ", " + strings.Join(specs, ", ") + ")"
}

func (g *Generator) spec() string {
	switch g.rng.IntN(4) {
	case 0:
		return "type=" + g.pick("32", "u32", "U64", "64", "float", "double", "DOUBLE", "string", "\"32\"")
	case 1:
		return "semantics=" + g.pick("counter", "instant", "discrete", "COUNTER", "rate")
	case 2:
		return "units=" + g.units()
	default:
		if g.PCP7 {
			return g.pick("indom=29.2", "indom=null", "indom=600.1", "meta=sample.bin", "type=2.5")
		}
		return "units=" + g.units()
	}
}

func (g *Generator) units() string {
	return g.pick(`"byte"`, `"Kbyte/sec"`, `"count"`, `""`, `"sec"`, `"msec"`, `"fortnight"`, `"count x 10^3"`,
		`"byte^2 / sec"`, `"1/sec"`, `Kbyte`, `"millisec"`, `"Mbyte / hour"`, `"byte*sec"`, `"/ count"`)
}

func (g *Generator) function(depth int) string {
	nameOnly := []string{"avg", "count", "max", "min", "sum", "defined"}
	switch g.rng.IntN(8) {
	case 0, 1:
		arg := g.metric()
		if g.rng.IntN(6) == 0 {
			arg = g.expr(depth)
		}
		return g.pick(nameOnly...) + "(" + arg + ")"
	case 2, 3:
		arg := g.metric()
		if g.PCP7 || g.rng.IntN(6) == 0 {
			arg = g.expr(depth)
		}
		return g.pick("delta", "rate", "instant") + "(" + arg + ")"
	case 4:
		return "rescale(" + g.expr(depth) + ", " + g.units() + ")"
	case 5:
		return "matchinst(" + g.pick("", "!", "! ") + "/" + g.pick("bin", "^1$", "[", "a|b", `bin-[1-8]`, `\\.`, "(x", "*a", "a{2,1}", "red") + "/, " + g.matchinstArg(depth) + ")"
	case 6:
		return "scalar(" + g.expr(depth) + ")"
	default:
		return "anon(" + g.pick("PM_TYPE_32", "PM_TYPE_U64", "PM_TYPE_DOUBLE") + ")"
	}
}

// matchinstArg avoids "/" inside matchinst, which libpcp lexes as a
// pattern; the mutations still produce such cases now and then.
func (g *Generator) matchinstArg(depth int) string {
	e := g.expr(depth)
	return strings.ReplaceAll(e, "/", "*")
}

var junk = []string{"+", "-", "*", "/", "(", ")", "?", ":", ",", "!", "=", "<", "&&", "||", "[x]", "\"s\"", "1", "a.b", "&", "|", "#", "_", "$", "{", "]", "\\", "sum(", "mkconst(", "matchinst(", "/p/", "type", "units"}

// mutate breaks an expression: drop, duplicate or insert a token, or cut
// the text short.
func (g *Generator) mutate(e string) string {
	fields := tokenize(e)
	if len(fields) == 0 {
		return g.pick(junk...)
	}
	i := g.rng.IntN(len(fields))
	switch g.rng.IntN(5) {
	case 0:
		fields = append(fields[:i], fields[i+1:]...)
	case 1:
		fields = append(fields[:i+1], fields[i:]...)
	case 2:
		fields = append(fields[:i], append([]string{g.pick(junk...)}, fields[i:]...)...)
	case 3:
		fields = fields[:i+1]
	default:
		fields[i] = g.pick(junk...)
	}
	out := strings.Join(fields, " ")
	if strings.TrimSpace(out) == "" {
		return g.pick(junk...)
	}
	return out
}

// tokenize splits roughly at token boundaries; exactness is not needed.
func tokenize(e string) []string {
	var out []string
	cur := strings.Builder{}
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range e {
		switch {
		case r == ' ' || r == '\t':
			flush()
		case strings.ContainsRune("()+-*,?:", r):
			flush()
			out = append(out, string(r))
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}
