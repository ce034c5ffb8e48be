package htop

import (
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
)

// dotted splits an "X.attr" key of the current section and finds X's
// slot; a key without a dot is one htop ignores, reported by unknown
// (a format of the key alone, so that the cap on findings keeps a file
// of such keys cheap).
func (p *parser) dotted(e Entry, unknown string) (sl *slot, x, attr string, ok bool) {
	dot := strings.IndexByte(e.Key, '.')
	if dot < 0 {
		p.warn(codes.HtopUnknownKey, e.KeyOff, e.KeyEnd(), unknown, short(e.Key))
		return nil, "", "", false
	}
	x, attr = e.Key[:dot], e.Key[dot+1:]
	return p.sect.slot(x, e.KeyOff, e.KeyOff+dot), x, attr, true
}

// meterColors are the names htop's meter parser knows for X.color.
var meterColors = []string{"gray", "darkgray", "red", "green", "blue", "cyan", "magenta", "yellow", "white"}

func (p *parser) meterKey(e Entry, s split, a, b, htopLine int) {
	switch e.Key {
	case "caption", "description":
		p.dupKey(e, a, b)
		return
	case "type", "maximum":
		p.dupKey(e, a, b)
		raw := p.text[s.rawOff:s.rawEnd]
		if e.Key == "type" && raw != "bar" && raw != "text" && raw != "graph" && raw != "led" {
			p.warn(codes.HtopInertKey, e.ValueOff, e.ValueEnd(), "htop compares the untrimmed text %q with bar, text, graph and led, and no release uses a meter's type anyway: the line does nothing", short(raw))
		} else {
			p.warn(codes.HtopInertKey, e.KeyOff, e.KeyEnd(), "htop stores a meter's %s but never uses it: the line does nothing", e.Key)
		}
		return
	}
	sl, x, attr, ok := p.dotted(e, "htop ignores the meter key %q: a meter knows caption, description, type, maximum and X.metric, X.color, X.label, X.suffix")
	if !ok {
		return
	}
	switch attr {
	case "metric":
		p.register(sl, "htop.meter."+p.sect.sec.Stored+"."+x, e, a, b, htopLine)
	case "color":
		p.dupKey(e, a, b)
		if !contains(meterColors, e.Value) {
			if p.warn(codes.HtopUnknownColor, e.ValueOff, e.ValueEnd(), "htop knows no colour %q and ignores the line silently (the metric keeps the default colour)%s; the colours are %s", short(e.Value), suggest(e.Value, meterColors), strings.Join(meterColors, ", ")) {
				p.fixLast(e.ValueOff, e.ValueEnd(), nearest(e.Value, meterColors))
			}
		}
	case "label", "suffix":
		p.dupKey(e, a, b)
	default:
		if p.warn(codes.HtopUnknownKey, e.KeyOff+len(x)+1, e.KeyEnd(), "htop ignores %q after %s. (a meter metric knows metric, color, label and suffix)%s, though the line still adds a metric %s to the meter", short(attr), short(x), suggest(attr, []string{"metric", "color", "label", "suffix"}), short(x)) {
			p.fixLast(e.KeyOff+len(x)+1, e.KeyEnd(), nearest(attr, []string{"metric", "color", "label", "suffix"}))
		}
	}
}

func (p *parser) columnKey(e Entry, a, b, htopLine int) {
	o := p.sect
	known := []string{"caption", "heading", "description", "width", "metric"}
	if p.r.Rules.ColumnOptions {
		known = append(known, "format", "instances", "default", "enabled")
	}
	if !contains(known, e.Key) {
		if p.warn(codes.HtopUnknownKey, e.KeyOff, e.KeyEnd(), "PCP %s's pcp-htop ignores the column key %q%s; a column knows %s", p.r.Rules.Version, short(e.Key), suggest(e.Key, known), strings.Join(known, ", ")) {
			p.fixLast(e.KeyOff, e.KeyEnd(), nearest(e.Key, known))
		}
		return
	}
	switch e.Key {
	case "metric":
		sl := o.slot("", e.KeyOff, e.KeyEnd())
		if o.sec.Stored == "" {
			return // PCPDynamicColumn_addMetric refuses an empty name
		}
		p.register(sl, "htop.column."+o.sec.Stored, e, a, b, htopLine)
		return
	case "width":
		p.width(e)
	case "format":
		p.format(e)
	case "instances":
		p.boolean(e, "true")
	case "default", "enabled":
		p.boolean(e, "false")
	}
	p.dupKey(e, a, b)
}

func (p *parser) screenKey(e Entry, a, b, htopLine int) {
	o := p.sect
	switch e.Key {
	case "heading", "caption", "sortKey":
		p.dupKey(e, a, b)
		return
	case "sortDirection":
		p.dupKey(e, a, b)
		if _, clean := atoi(e.Value); !clean {
			p.warn(codes.HtopBadValue, e.ValueOff, e.ValueEnd(), "htop reads sortDirection with atoi: %q is not an integer", short(e.Value))
		}
		return
	case "default", "enabled":
		p.dupKey(e, a, b)
		if !contains([]string{"true", "True", "false", "False"}, e.Value) {
			p.warn(codes.HtopBadValue, e.ValueOff, e.ValueEnd(), "htop knows true, True, false and False here and ignores %q (the screen stays enabled)", short(e.Value))
		}
		return
	}
	sl, x, attr, ok := p.dotted(e, "htop ignores the screen key %q: a screen knows heading, caption, sortKey, sortDirection, default, enabled and X.metric, X.heading, X.caption, X.description, X.width, X.format, X.instances, X.default")
	if !ok {
		return
	}
	if len(x)+len(o.sec.Stored)+1 >= nameSize {
		sl.dropped = true
		if !sl.dropNoted {
			sl.dropNoted = true
			if p.r.Rules.ScreenNameCheck {
				p.problem(e.KeyOff, e.KeyOff+len(x), codes.HtopScreenColumnName, fmt.Sprintf("%q is %d bytes, more than htop's %d: htop drops the column %s without a word", short(o.sec.Stored+":"+x), len(x)+len(o.sec.Stored)+1, nameSize-1, short(x)), nil, false)
			} else {
				p.problem(e.KeyOff, e.KeyOff+len(x), codes.HtopScreenColumnName, fmt.Sprintf("%q is %d bytes, more than htop's %d: PCP %s's pcp-htop crashes (segmentation fault) reading this line", short(o.sec.Stored+":"+x), len(x)+len(o.sec.Stored)+1, nameSize-1, p.r.Rules.Version), nil, true)
			}
		}
		if attr == "metric" {
			x := &Expr{Name: "htop.screen." + o.sec.Stored + "." + x, Text: e.Value, Off: e.ValueOff, KeyOff: e.KeyOff, KeyEnd: e.KeyEnd(),
				Line: e.Line, HtopLine: htopLine, Start: a, End: b, Section: o.sec.Stored, Skip: true, Why: "name too long"}
			p.f.Exprs = append(p.f.Exprs, x)
		}
		return
	}
	switch attr {
	case "metric":
		p.register(sl, "htop.screen."+o.sec.Stored+"."+x, e, a, b, htopLine)
		return
	case "caption", "heading", "description":
	case "width":
		p.width(e)
	case "format":
		p.format(e)
	case "instances":
		p.boolean(e, "true")
	case "default":
		p.boolean(e, "false")
	default:
		known := []string{"metric", "heading", "caption", "description", "width", "format", "instances", "default"}
		if p.warn(codes.HtopUnknownKey, e.KeyOff+len(x)+1, e.KeyEnd(), "htop ignores %q after %s. (a screen column knows %s)%s, though the line still adds a column %s to the screen", short(attr), short(x), strings.Join(known, ", "), suggest(attr, known), short(x)) {
			p.fixLast(e.KeyOff+len(x)+1, e.KeyEnd(), nearest(attr, known))
		}
		return
	}
	p.dupKey(e, a, b)
}

// width checks a column width as htop reads it (strtoul before 6.1.0,
// atoi since: both stop at the first byte that is not a digit): 0 or a
// width beyond DYNAMIC_MAX_COLUMN_WIDTH falls back to the default, -5.
func (p *parser) width(e Entry) {
	n, clean := atoi(e.Value)
	limit := p.r.Rules.maxColumnWidth()
	switch {
	case !clean:
		p.warn(codes.HtopBadWidth, e.ValueOff, e.ValueEnd(), "%q is not an integer: htop reads it as %d%s", short(e.Value), n, widthFallback(n, limit))
	case n == 0 || n > limit || n < -limit:
		p.warn(codes.HtopBadWidth, e.ValueOff, e.ValueEnd(), "a width must be 1 to %d (negative: left-aligned)%s", limit, widthFallback(n, limit))
	}
}

func widthFallback(n, limit int) string {
	if n == 0 || n > limit || n < -limit {
		return ", so htop uses its default width, 5 left-aligned"
	}
	return ""
}

// columnFormats are the formats htop's column code compares with.
var columnFormats = []string{"percent", "process", "command", "device", "cgroup"}

func (p *parser) format(e Entry) {
	if !contains(columnFormats, e.Value) {
		if p.warn(codes.HtopBadValue, e.ValueOff, e.ValueEnd(), "htop knows the formats %s and shows %q columns unformatted%s", strings.Join(columnFormats, ", "), short(e.Value), suggest(e.Value, columnFormats)) {
			p.fixLast(e.ValueOff, e.ValueEnd(), nearest(e.Value, columnFormats))
		}
	}
}

// boolean checks a true/false value: htop compares with one word's two
// spellings (word and Word) and takes anything else as the other one.
func (p *parser) boolean(e Entry, word string) {
	if contains([]string{"true", "True", "false", "False"}, e.Value) {
		return
	}
	other := map[string]string{"true": "false", "false": "true"}[word]
	p.warn(codes.HtopBadValue, e.ValueOff, e.ValueEnd(), "htop compares %s with %s and %s only, so %q means %s", e.Key, word, strings.ToUpper(word[:1])+word[1:], short(e.Value), other)
}
