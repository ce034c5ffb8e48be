package cli

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// sampleWriter prints evaluated samples in one of eval's formats.
type sampleWriter interface {
	write(s *evaluator.Sample, rated map[string]bool) error
	flush()
}

// namer names instances: from the evaluator's latest instance lists, else
// (an archive read in interpolation mode may give a value for an
// instance its domain no longer lists) from the source's whole history,
// else by number.
type namer struct {
	ev  *evaluator.Evaluator
	src instanceNamer
}

// instanceNamer is implemented by interp.Source: an instance's name from
// the whole history of its domain.
type instanceNamer interface {
	InstanceName(pmapi.InDom, int32) string
}

func (n namer) name(indom pmapi.InDom, id int32) string {
	if s := n.ev.InstanceName(indom, id); s != "" {
		return s
	}
	if n.src != nil {
		if s := n.src.InstanceName(indom, id); s != "" {
			return s
		}
	}
	return strconv.Itoa(int(id))
}

func newSampleWriter(env Env, o evalFlags, loc *time.Location, ev *evaluator.Evaluator, src pmclient.Source, live bool) sampleWriter {
	nm := namer{ev: ev}
	if s, ok := src.(instanceNamer); ok {
		nm.src = s
	}
	errs := &errorOnce{w: env.Stderr, last: map[string]string{}}
	switch o.format {
	case "csv":
		cw := &csvWriter{w: csv.NewWriter(env.Stdout), loc: loc, prec: o.precision, errs: errs, cols: columns{name: nm.name}}
		if !live {
			cw.hold = holdRows
		}
		return cw
	case "json":
		return &jsonWriter{w: json.NewEncoder(env.Stdout), loc: loc, prec: o.precision, name: nm.name}
	case "text":
		return &textWriter{w: env.Stdout, loc: loc, prec: o.precision, name: nm.name}
	case "pminfo":
		return &pminfoWriter{w: env.Stdout, name: ev.InstanceName}
	}
	prec := o.precision
	if prec < 0 {
		prec = 3 // pmrep's default
	}
	tw := &tableWriter{w: env.Stdout, loc: loc, prec: prec, minWidth: o.width, errs: errs, cols: columns{name: nm.name}}
	if !live {
		tw.hold = holdRows
	}
	return tw
}

// noValues reports a result with nothing to show: no values, or a rate's
// first sample.
func noValues(r evaluator.Result) bool {
	return len(r.Values) == 0 || errors.Is(r.Err, errFirstRate)
}

// failed is a result's error worth reporting (not a rate's first sample).
func failed(r evaluator.Result) error {
	if r.Err == nil || errors.Is(r.Err, errFirstRate) {
		return nil
	}
	return r.Err
}

// valueText formats a value: rates and floating point values with prec
// digits after the point (prec < 0: libpcp's %.16g, %.8g for floats),
// integers whole, strings as they are.
func valueText(r evaluator.Result, v evaluator.Value, rated bool, prec int) string {
	t := r.Desc.Type
	if rated {
		t = pmapi.TypeDouble
	}
	switch t {
	case pmapi.TypeFloat, pmapi.TypeDouble:
		if prec >= 0 && !math.IsInf(v.Float, 0) && !math.IsNaN(v.Float) {
			return strconv.FormatFloat(v.Float, 'f', prec, 64)
		}
	case pmapi.TypeString:
		return v.String
	}
	return evaluator.Format(t, v)
}

// errorOnce reports each metric's error on stderr when it first appears
// or changes, rather than in every row.
type errorOnce struct {
	w    io.Writer
	last map[string]string
}

func (e *errorOnce) report(s *evaluator.Sample) {
	for _, r := range s.Results {
		text := ""
		if err := failed(r); err != nil {
			text = err.Error()
		}
		if text != "" && e.last[r.Name] != text {
			fmt.Fprintf(e.w, "pcp-derive-lsp eval: %s: %s\n", r.Name, text)
		}
		e.last[r.Name] = text
	}
}

// column is one metric's values, or one instance's.
type column struct {
	metric                string
	inst                  int32
	perInst               bool // a column of one instance (else the metric's only one)
	name, instName, units string
	width                 int
}

// columns are a table's or CSV file's columns: every metric asked for,
// in order, a column per instance seen so far (by instance number), or
// one for a metric without an instance domain or not seen with values
// yet. A column once shown stays, so that rows line up; a new one means
// a new header.
type columns struct {
	name func(pmapi.InDom, int32) string
	cols []column
}

type colKey struct {
	metric  string
	inst    int32
	perInst bool
}

// update adds the columns a sample needs and reports whether any was
// added.
func (c *columns) update(s *evaluator.Sample) bool {
	have := map[colKey]bool{}
	for _, col := range c.cols {
		have[colKey{col.metric, col.inst, col.perInst}] = true
	}
	changed := false
	var next []column
	for _, r := range s.Results {
		var mine []column
		for _, col := range c.cols {
			if col.metric == r.Name {
				mine = append(mine, col)
			}
		}
		units := r.Desc.Units.String()
		if r.Desc.InDom != pmapi.InDomNull && !noValues(r) {
			for _, v := range r.Values {
				if k := (colKey{r.Name, v.Inst, true}); !have[k] {
					have[k] = true
					changed = true
					mine = append(mine, column{metric: r.Name, inst: v.Inst, perInst: true, name: r.Name, instName: c.name(r.Desc.InDom, v.Inst), units: units})
				}
			}
			// An instance column replaces the placeholder.
			kept := mine[:0]
			for _, col := range mine {
				if col.perInst {
					kept = append(kept, col)
				}
			}
			if len(kept) != len(mine) {
				changed = true
			}
			mine = kept
		}
		if len(mine) == 0 {
			changed = true
			mine = []column{{metric: r.Name, inst: pmclient.InNull, name: r.Name, units: units}}
		}
		sort.SliceStable(mine, func(i, j int) bool { return mine[i].inst < mine[j].inst })
		next = append(next, mine...)
	}
	c.cols = next
	return changed
}

// waiting reports a metric with an instance domain whose instances have
// not shown yet (its columns will change).
func (c *columns) waiting(s *evaluator.Sample) bool {
	for _, r := range s.Results {
		if r.Desc.InDom == pmapi.InDomNull {
			continue
		}
		shown := false
		for _, col := range c.cols {
			if col.metric == r.Name && col.perInst {
				shown = true
				break
			}
		}
		if !shown {
			return true
		}
	}
	return false
}

// cells are a sample's values by column.
func (c *columns) cells(s *evaluator.Sample, rated map[string]bool, prec int) []string {
	vals := map[colKey]string{}
	failedMetric := map[string]bool{}
	for _, r := range s.Results {
		if failed(r) != nil {
			failedMetric[r.Name] = true
			continue
		}
		if noValues(r) {
			continue
		}
		for _, v := range r.Values {
			vals[colKey{r.Name, v.Inst, r.Desc.InDom != pmapi.InDomNull}] = valueText(r, v, rated[r.Name], prec)
		}
	}
	out := make([]string, len(c.cols))
	for i, col := range c.cols {
		text, ok := vals[colKey{col.metric, col.inst, col.perInst}]
		switch {
		case ok:
			out[i] = text
		case failedMetric[col.metric]:
			out[i] = "ERR"
		default:
			out[i] = "N/A"
		}
	}
	return out
}

// tableWriter prints pmrep's layout: a header of metric names, instance
// names and units, then a row per sample with its time; columns
// right-aligned, widened (and the header printed again) when a value or
// a new column needs it. From an archive, the first rows are held until
// every metric has shown its instances (or holdRows rows), so that the
// header is printed once.
type tableWriter struct {
	w        io.Writer
	loc      *time.Location
	prec     int
	minWidth int
	errs     *errorOnce
	cols     columns
	holdback
	headed bool
}

// heldSample is a sample not printed yet.
type heldSample struct {
	s     *evaluator.Sample
	rated map[string]bool
}

// holdback holds the first samples back while a metric's instances are
// still to show (up to hold samples), so that the first header has every
// column.
type holdback struct {
	hold    int
	held    []heldSample
	started bool
}

// take holds s back and reports true, or returns every sample to print
// now, s last.
func (h *holdback) take(c *columns, s *evaluator.Sample, rated map[string]bool) (bool, []heldSample) {
	if !h.started && len(h.held) < h.hold && c.waiting(s) {
		h.held = append(h.held, heldSample{s, rated})
		return true, nil
	}
	h.started = true
	rows := append(h.held, heldSample{s, rated})
	h.held = nil
	return false, rows
}

// rest releases the samples still held at the end.
func (h *holdback) rest() []heldSample {
	rows := h.held
	h.held, h.started = nil, true
	return rows
}

const (
	tableTime = "15:04:05.000"
	// holdRows bounds the rows held back before the first header.
	holdRows = 10
	// minColumn is a column's least width: room for a value like 99.999.
	minColumn = 6
)

func (t *tableWriter) write(s *evaluator.Sample, rated map[string]bool) error {
	t.errs.report(s)
	changed := t.cols.update(s)
	held, rows := t.take(&t.cols, s, rated)
	if held {
		return nil
	}
	return t.print(rows, changed)
}

// print prints rows, the header first when a column was added or widened.
func (t *tableWriter) print(rows []heldSample, changed bool) error {
	var cells [][]string
	for _, h := range rows {
		cells = append(cells, t.cols.cells(h.s, h.rated, t.prec))
	}
	for i := range t.cols.cols {
		col := &t.cols.cols[i]
		w := max(t.minWidth, minColumn, len(col.name), len(col.instName), len(col.units))
		for _, row := range cells {
			w = max(w, len(row[i]))
		}
		if w > col.width {
			col.width = w
			changed = true
		}
	}
	if changed || !t.headed {
		t.header()
	}
	for i, h := range rows {
		if err := t.row(h.s, cells[i]); err != nil {
			return err
		}
	}
	return nil
}

func (t *tableWriter) row(s *evaluator.Sample, cells []string) error {
	var b strings.Builder
	b.WriteString(s.Timestamp.In(t.loc).Format(tableTime))
	for i, col := range t.cols.cols {
		fmt.Fprintf(&b, "  %*s", col.width, cells[i])
	}
	b.WriteByte('\n')
	_, err := io.WriteString(t.w, b.String())
	return err
}

func (t *tableWriter) header() {
	if t.headed {
		fmt.Fprintln(t.w)
	}
	t.headed = true
	var names, insts, units strings.Builder
	pad := strings.Repeat(" ", len(tableTime))
	names.WriteString(pad)
	insts.WriteString(pad)
	units.WriteString(pad)
	anyInst, anyUnits := false, false
	for _, col := range t.cols.cols {
		fmt.Fprintf(&names, "  %*s", col.width, col.name)
		fmt.Fprintf(&insts, "  %*s", col.width, col.instName)
		fmt.Fprintf(&units, "  %*s", col.width, col.units)
		anyInst = anyInst || col.instName != ""
		anyUnits = anyUnits || col.units != ""
	}
	fmt.Fprintln(t.w, strings.TrimRight(names.String(), " "))
	if anyInst {
		fmt.Fprintln(t.w, strings.TrimRight(insts.String(), " "))
	}
	if anyUnits {
		fmt.Fprintln(t.w, strings.TrimRight(units.String(), " "))
	}
}

// flush prints the rows still held (an archive whose metrics never all
// had values).
func (t *tableWriter) flush() {
	if rows := t.rest(); len(rows) > 0 {
		t.print(rows, false)
	}
}

// csvWriter writes a header row (again when a column is added) and a
// row per sample: the time, then the values; an empty field for no
// value. From an archive, the first rows are held as in a table.
type csvWriter struct {
	w    *csv.Writer
	loc  *time.Location
	prec int
	errs *errorOnce
	cols columns
	holdback
	headed bool
}

const csvTime = "2006-01-02 15:04:05.000000"

func (c *csvWriter) write(s *evaluator.Sample, rated map[string]bool) error {
	c.errs.report(s)
	changed := c.cols.update(s)
	held, rows := c.take(&c.cols, s, rated)
	if held {
		return nil
	}
	return c.print(rows, changed)
}

func (c *csvWriter) print(rows []heldSample, changed bool) error {
	if changed || !c.headed {
		c.headed = true
		head := []string{"time"}
		for _, col := range c.cols.cols {
			if col.perInst {
				head = append(head, col.name+"["+col.instName+"]")
			} else {
				head = append(head, col.name)
			}
		}
		c.w.Write(head)
	}
	for _, h := range rows {
		row := []string{h.s.Timestamp.In(c.loc).Format(csvTime)}
		for _, v := range c.cols.cells(h.s, h.rated, c.prec) {
			if v == "N/A" || v == "ERR" {
				v = ""
			}
			row = append(row, v)
		}
		c.w.Write(row)
	}
	c.w.Flush()
	return c.w.Error()
}

func (c *csvWriter) flush() {
	if rows := c.rest(); len(rows) > 0 {
		c.print(rows, false)
	}
	c.w.Flush()
}

// jsonWriter writes one JSON object per sample and line.
type jsonWriter struct {
	w    *json.Encoder
	loc  *time.Location
	prec int
	name func(pmapi.InDom, int32) string
}

func (j *jsonWriter) write(s *evaluator.Sample, rated map[string]bool) error {
	type value struct {
		Instance string `json:"instance,omitempty"`
		Inst     *int32 `json:"inst,omitempty"`
		Value    any    `json:"value"`
	}
	type metric struct {
		Name   string  `json:"name"`
		Units  string  `json:"units"`
		Rate   bool    `json:"rate,omitempty"`
		Error  string  `json:"error,omitempty"`
		Values []value `json:"values"`
	}
	ms := []metric{}
	for _, r := range s.Results {
		m := metric{Name: r.Name, Units: r.Desc.Units.String(), Rate: rated[r.Name], Values: []value{}}
		if err := failed(r); err != nil {
			m.Error = err.Error()
		}
		if !noValues(r) {
			for _, v := range r.Values {
				jv := value{Value: jsonValue(r, v, rated[r.Name], j.prec)}
				if r.Desc.InDom != pmapi.InDomNull {
					id := v.Inst
					jv.Instance, jv.Inst = j.name(r.Desc.InDom, v.Inst), &id
				}
				m.Values = append(m.Values, jv)
			}
		}
		ms = append(ms, m)
	}
	return j.w.Encode(struct {
		Timestamp string   `json:"timestamp"`
		Metrics   []metric `json:"metrics"`
	}{s.Timestamp.In(j.loc).Format(time.RFC3339Nano), ms})
}

// jsonValue is a number for a number JSON can hold (exactly as printed:
// 64-bit integers keep every digit), else a string.
func jsonValue(r evaluator.Result, v evaluator.Value, rated bool, prec int) any {
	text := valueText(r, v, rated, prec)
	switch {
	case rated || r.Desc.Type == pmapi.TypeFloat || r.Desc.Type == pmapi.TypeDouble:
		if math.IsInf(v.Float, 0) || math.IsNaN(v.Float) {
			return text
		}
	case r.Desc.Type == pmapi.TypeString, !numeric(r.Desc.Type):
		return text
	}
	return json.Number(text)
}

func (j *jsonWriter) flush() {}

// textWriter prints each sample as its time and a line per value.
type textWriter struct {
	w    io.Writer
	loc  *time.Location
	prec int
	name func(pmapi.InDom, int32) string
}

func (t *textWriter) write(s *evaluator.Sample, rated map[string]bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", s.Timestamp.In(t.loc).Format(tableTime))
	prec := t.prec
	for _, r := range s.Results {
		units := ""
		if u := r.Desc.Units.String(); u != "" {
			units = " " + u
		}
		p := prec
		if p < 0 && rated[r.Name] {
			p = 3 // pmval shows rates to three decimals
		}
		switch {
		case errors.Is(r.Err, errFirstRate):
			fmt.Fprintf(&b, "  %s: (a rate: values from the next sample)\n", r.Name)
		case r.Err != nil:
			fmt.Fprintf(&b, "  %s: error: %v\n", r.Name, r.Err)
		case len(r.Values) == 0:
			fmt.Fprintf(&b, "  %s: no values\n", r.Name)
		case r.Desc.InDom == pmapi.InDomNull:
			fmt.Fprintf(&b, "  %s = %s%s\n", r.Name, quotedText(r, r.Values[0], rated[r.Name], p), units)
		default:
			fmt.Fprintf(&b, "  %s:\n", r.Name)
			for _, v := range r.Values {
				fmt.Fprintf(&b, "    [%s] %s%s\n", t.name(r.Desc.InDom, v.Inst), quotedText(r, v, rated[r.Name], p), units)
			}
		}
	}
	_, err := io.WriteString(t.w, b.String())
	return err
}

func (t *textWriter) flush() {}

// quotedText is valueText with strings quoted, as pminfo -f shows them.
func quotedText(r evaluator.Result, v evaluator.Value, rated bool, prec int) string {
	if r.Desc.Type == pmapi.TypeString && !rated {
		return strconv.Quote(v.String)
	}
	return valueText(r, v, rated, prec)
}

// pminfoWriter prints as pminfo -f does.
type pminfoWriter struct {
	w    io.Writer
	name func(pmapi.InDom, int32) string
}

func (p *pminfoWriter) write(s *evaluator.Sample, _ map[string]bool) error {
	evaluator.WritePminfo(p.w, s, p.name)
	return nil
}

func (p *pminfoWriter) flush() {}
