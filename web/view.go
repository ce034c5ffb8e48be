package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/explain"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// View is the page's picture of one definition at one sample: the explain
// tree, flattened parents first, and, when asked, every node's values over
// the kept samples (the API's JSON, docs/explain.md).
type View struct {
	Name       string  `json:"name"`
	Expr       string  `json:"expr"`
	Source     string  `json:"source"`
	PCPVersion string  `json:"pcp_version"`
	Live       bool    `json:"live"`
	Interval   float64 `json:"interval_seconds,omitempty"`
	Window     struct {
		Samples int    `json:"samples"`
		Records int    `json:"records"`
		Stride  int    `json:"stride"`
		Fetches int    `json:"fetches"`
		Ended   string `json:"ended,omitempty"`
	} `json:"window"`
	// Times are the kept samples' times (milliseconds since the epoch);
	// Sample is the index of the one the tree shows.
	Times     []int64 `json:"times"`
	Sample    int     `json:"sample"`
	Timestamp string  `json:"timestamp,omitempty"`
	// Verdict: "values", "no values" (the root is empty), "values vanish
	// below" (a node under a root with values is), "not evaluated".
	Verdict string `json:"verdict"`
	// Origin is the node where values vanish first (-1: none).
	Origin int        `json:"origin"`
	Nodes  []ViewNode `json:"nodes"`
	// Error is a live source's last sampling failure.
	Error string `json:"error,omitempty"`
	// Series are the nodes' values over the kept samples, by node id
	// (asked for with series=1); WriteJSON writes them.
	Series []*Series `json:"series,omitempty"`
}

// ViewNode is one node of the tree.
type ViewNode struct {
	ID           int         `json:"id"`
	Parent       int         `json:"parent"` // -1 for the root
	Depth        int         `json:"depth"`
	Text         string      `json:"text"`
	Kind         string      `json:"kind"`
	Metadata     string      `json:"metadata"`
	Evaluated    bool        `json:"evaluated"`
	NotEvaluated string      `json:"not_evaluated,omitempty"`
	Values       []ViewValue `json:"values"`
	Error        string      `json:"error,omitempty"`
	Explanation  string      `json:"explanation"`
	EmptyBecause string      `json:"empty_because,omitempty"`
	// EmptyAt is the node where this one's values vanished (-1: none).
	EmptyAt int `json:"empty_at"`
}

// ViewValue is one instance's value at the sample shown.
type ViewValue struct {
	Instance *string `json:"instance"` // null for a singular value
	Value    string  `json:"value"`
}

// Series is one node's values over the kept samples: a line per instance
// (null where the instance has no value), and the stretches of samples
// where the node was evaluated and had no values or failed.
type Series struct {
	Instances []string `json:"instances"`
	Lines     []Line   `json:"lines"`
	// Empty are [first, last] sample indexes, inclusive.
	Empty [][2]int `json:"empty"`
	// Plotted is false for a node whose values are not numbers
	// (strings, events); Lines is then empty.
	Plotted bool `json:"plotted"`
}

// Line is one instance's values; NaN is a sample without one (JSON null).
type Line []float64

// UnmarshalJSON reads null as NaN (a client of the API in Go: the tests).
func (l *Line) UnmarshalJSON(b []byte) error {
	var vs []*float64
	if err := json.Unmarshal(b, &vs); err != nil {
		return err
	}
	*l = make(Line, len(vs))
	for i, v := range vs {
		(*l)[i] = math.NaN()
		if v != nil {
			(*l)[i] = *v
		}
	}
	return nil
}

// WriteJSON writes the view: its tree through encoding/json, then its
// series by hand, a number at a time (a 10,000-sample window has hundreds
// of thousands of them: encoding/json took half the answer's time
// validating what a Marshaler wrote).
func (v *View) WriteJSON(w io.Writer) error {
	series := v.Series
	v.Series = nil
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	v.Series = series
	if err != nil {
		return err
	}
	b := bytes.TrimSuffix(head.Bytes(), []byte("}\n"))
	if series != nil {
		b = append(b, `,"series":[`...)
		for i, s := range series {
			if i > 0 {
				b = append(b, ',')
			}
			b = s.appendJSON(b)
		}
		b = append(b, ']')
	}
	b = append(b, "}\n"...)
	_, err = w.Write(b)
	return err
}

func (s *Series) appendJSON(b []byte) []byte {
	names, _ := json.Marshal(s.Instances)
	b = append(b, `{"instances":`...)
	b = append(b, names...)
	b = append(b, `,"lines":[`...)
	for i, l := range s.Lines {
		if i > 0 {
			b = append(b, ',')
		}
		b = l.appendJSON(b)
	}
	b = append(b, `],"empty":[`...)
	for i, r := range s.Empty {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(r[0]), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r[1]), 10)
		b = append(b, ']')
	}
	b = append(b, `],"plotted":`...)
	b = strconv.AppendBool(b, s.Plotted)
	return append(b, '}')
}

// appendJSON writes the numbers: null for the gaps and for what JSON
// cannot hold, integers without strconv's float formatting.
func (l Line) appendJSON(b []byte) []byte {
	b = append(b, '[')
	for i, v := range l {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			b = append(b, "null"...)
		case v == math.Trunc(v) && math.Abs(v) < 1<<53:
			b = strconv.AppendInt(b, int64(v), 10)
		default:
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		}
	}
	return append(b, ']')
}

// view builds the page's picture of tr at kept sample i (negative: the
// latest), with the series when withSeries.
func (tr *Trace) view(ctx context.Context, i int, withSeries bool) (*View, error) {
	frames, nodes := tr.snapshot()
	if i < 0 || i >= len(frames) {
		i = len(frames) - 1
	}
	x, err := tr.Explain(ctx, frames, nodes, i)
	if err != nil {
		return nil, err
	}
	w := tr.Window()
	v := &View{Name: x.Name, Expr: x.Expr, Source: x.Source, PCPVersion: x.Version.String(), Live: w.Live, Sample: max(i, 0), Origin: -1}
	if w.Live {
		v.Interval = tr.limits.Interval.Seconds()
	}
	v.Window.Samples, v.Window.Records, v.Window.Stride, v.Window.Fetches, v.Window.Ended = w.Samples, w.Taken, w.Stride, w.Fetches, w.Ended
	if err := tr.Err(); err != nil {
		v.Error = err.Error()
	}
	v.Times = make([]int64, len(frames))
	for k, f := range frames {
		v.Times[k] = f.at.UnixMilli()
	}
	if len(frames) > 0 {
		v.Timestamp = frames[v.Sample].at.Format(time.RFC3339Nano)
	}
	switch {
	case !x.Root.Evaluated():
		v.Verdict = "not evaluated"
	case x.Root.Empty():
		v.Verdict = "no values"
	case len(x.Origins) > 0:
		v.Verdict = "values vanish below"
	default:
		v.Verdict = "values"
	}
	ids := map[*explain.Node]int{}
	var order []*explain.Node
	names := instanceNames{ctx: ctx, src: tr.src, lists: map[pmapi.InDom]map[int32]string{}}
	type item struct {
		n      *explain.Node
		parent int
		depth  int
	}
	stack := []item{{x.Root, -1, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := it.n
		id := len(v.Nodes)
		ids[n] = id
		order = append(order, n)
		vn := ViewNode{ID: id, Parent: it.parent, Depth: it.depth, Text: n.Text(), Kind: n.Kind().String(), Metadata: "no metadata", Evaluated: n.Evaluated(),
			NotEvaluated: n.NotEvaluated(), Explanation: n.Explanation(), EmptyBecause: n.EmptyBecause(), EmptyAt: -1, Values: []ViewValue{}}
		if n.Desc() != nil {
			vn.Metadata = checker.DescText(*n.Desc())
		}
		if n.Err() != nil {
			vn.Error = n.Err().Error()
		}
		for _, val := range n.Values() {
			vv := ViewValue{Value: val.Text}
			if !val.Singular() {
				name := val.Instance
				if name == "" {
					name = strconv.Itoa(int(val.Inst))
				}
				vv.Instance = &name
			}
			vn.Values = append(vn.Values, vv)
		}
		if withSeries {
			v.Series = append(v.Series, series(frames, slotOf(nodes, n.Syntax()), n, &names))
		}
		v.Nodes = append(v.Nodes, vn)
		for k, kids := len(n.Children())-1, n.Children(); k >= 0; k-- {
			stack = append(stack, item{kids[k], id, it.depth + 1})
		}
	}
	for k, n := range order {
		// EmptyAt may point at a node built after it, so it is set here.
		if n.EmptyAt() != nil {
			v.Nodes[k].EmptyAt = ids[n.EmptyAt()]
		}
	}
	if len(x.Origins) > 0 {
		v.Origin = ids[x.Origins[0]]
	}
	return v, nil
}

// slotOf is a node's slot in the frames (-1: never evaluated).
func slotOf(nodes []grammar.Node, n grammar.Node) int {
	for i, m := range nodes {
		if m == n {
			return i
		}
	}
	return -1
}

// series is a node's values over the frames (its slot in them), a line per
// instance in the order instances first appear.
func series(frames []frame, slot int, n *explain.Node, names *instanceNames) *Series {
	s := &Series{Instances: []string{}, Lines: []Line{}, Empty: [][2]int{}}
	typ := pmapi.TypeDouble
	indom := pmapi.InDomNull
	if d := n.Desc(); d != nil {
		typ, indom = d.Type, d.InDom
	}
	s.Plotted = typ.Arithmetic()
	line := map[int32]int{}
	for k, f := range frames {
		o := f.obs(slot)
		seen := o.seen
		if seen && (len(o.vals) == 0 || o.err != nil) {
			if last := len(s.Empty) - 1; last >= 0 && s.Empty[last][1] == k-1 {
				s.Empty[last][1] = k
			} else {
				s.Empty = append(s.Empty, [2]int{k, k})
			}
		}
		if !s.Plotted || !seen || o.err != nil {
			continue
		}
		for _, val := range o.vals {
			li, ok := line[val.Inst]
			if !ok {
				li = len(s.Lines)
				line[val.Inst] = li
				l := make(Line, len(frames))
				for j := range l {
					l[j] = math.NaN()
				}
				s.Lines = append(s.Lines, l)
				s.Instances = append(s.Instances, instanceLabel(val, indom, names))
			}
			s.Lines[li][k] = evaluator.Float64(typ, val)
		}
	}
	return s
}

func instanceLabel(v evaluator.Value, indom pmapi.InDom, names *instanceNames) string {
	if v.Inst == pmclient.InNull {
		return "value"
	}
	if name := names.name(indom, v.Inst); name != "" {
		return name
	}
	return strconv.Itoa(int(v.Inst))
}

// instanceNames names instances, one request per instance domain.
type instanceNames struct {
	ctx   context.Context
	src   pmclient.Source
	lists map[pmapi.InDom]map[int32]string
}

func (in *instanceNames) name(indom pmapi.InDom, id int32) string {
	if indom == pmapi.InDomNull {
		return ""
	}
	l, ok := in.lists[indom]
	if !ok {
		l = map[int32]string{}
		insts, _ := in.src.Instances(in.ctx, indom)
		for _, i := range insts {
			l[i.ID] = i.Name
		}
		in.lists[indom] = l
	}
	return l[id]
}
