package checker

import (
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// Status is libpcp's fate for one derived metric.
type Status uint8

const (
	// NotRegistered: libpcp rejected the definition (a syntax error, a
	// duplicate name) or never read it; the grammar reported why.
	NotRegistered Status = iota
	// Valid: the metric binds and passes every check.
	Valid
	// SemanticError: libpcp prints "Semantic error: ..." and hides it.
	SemanticError
	// Unbound: an operand is not in the namespace; PCP 6 hides the metric
	// without a word.
	Unbound
	// Masked: a real metric of the same name exists; libpcp uses that.
	Masked
	// Crashes: libpcp registers the metric, but binding or fetching it
	// crashes the tool (an expression too deep for its stack); Message
	// says why.
	Crashes
)

func (s Status) String() string {
	return [...]string{"not registered", "valid", "semantic error", "unbound", "masked", "crashes libpcp"}[s]
}

// Metric is the checker's verdict on one definition.
//
// Its fields are laid out for size (72 bytes): a check of a big config
// keeps one for each of up to a million definitions.
type Metric struct {
	Def *grammar.Definition
	// Desc is the inferred descriptor (Valid and Masked metrics).
	Desc pmapi.Desc
	// why is what libpcp says of a metric it does not make valid: nil
	// for most metrics (Message, Rendering and Unknown read it).
	why *why

	file *grammar.File // the file it is defined in, until checked and advised
	// nodes are the metadata the check inferred for the tree's nodes,
	// kept only while it checks and advises the metric (but see
	// release); inference is how (Report.NodesOf infers them again).
	nodes     Nodes
	inference *inference

	Status Status
	// Broken: libpcp registers the metric without a usable expression
	// (a ternary of two novalue()s); it has no values to compute.
	Broken bool
	state  checkState
	// inferred: the check inferred the nodes' metadata.
	inferred, boundUnfinished bool
}

// why is the rarely set part of a Metric, in 48 bytes: with PCP 6.2.2+
// every metric of a chain of definitions has one.
type why struct {
	message string
	// rendering is the operand text libpcp prints with message, or,
	// when operand is set, the name it prints after "operand " (kept
	// unjoined: the name is the definition's own text, the joined one a
	// string a metric).
	rendering string
	unknown   *[]string
	operand   bool
}

// Message is libpcp's error text for the metric: its semantic error
// (Rendering is the operand text printed with it), or why it crashes
// libpcp; "" for others.
func (m *Metric) Message() string {
	if m.why == nil {
		return ""
	}
	return m.why.message
}

// Rendering is the operand text libpcp prints with a semantic error.
func (m *Metric) Rendering() string {
	switch {
	case m.why == nil:
		return ""
	case m.why.operand:
		return "operand " + m.why.rendering
	}
	return m.why.rendering
}

// Unknown lists operand names the source does not know.
func (m *Metric) Unknown() []string {
	if m.why == nil || m.why.unknown == nil {
		return nil
	}
	return *m.why.unknown
}

// refuse records libpcp's message for the metric and the operand text
// it renders with it ("" for none).
func (m *Metric) refuse(status Status, message, rendering string) {
	m.Status = status
	w := m.whyOf()
	w.message, w.rendering, w.operand = message, rendering, false
}

// refuseOperand is refuse with the rendering "operand NAME".
func (m *Metric) refuseOperand(status Status, message, name string) {
	m.refuse(status, message, name)
	m.why.operand = true
}

// setUnknown records the operand names the source does not know.
func (m *Metric) setUnknown(names []string) {
	if names != nil {
		m.whyOf().unknown = &names
	} else if m.why != nil {
		m.why.unknown = nil
	}
}

// whyOf is the metric's why, made on first use.
func (m *Metric) whyOf() *why {
	if m.why == nil {
		m.why = &why{}
	}
	return m.why
}

// checkState lets a metric be checked on demand when another one binds it
// (libpcp binds a derived operand when first used, so order in the file
// does not matter).
type checkState uint8

const (
	unchecked checkState = iota
	checking
	checked
)

// metricSlab hands out a check's new Metrics from blocks of
// metricSlabSize: one allocation a block rather than one a metric (at
// 100,000 definitions, making the metrics was a twentieth of a check,
// all on one CPU). An editor's later versions keep most of these
// metrics and replace a few (Recheck allocates the new ones apart): a
// replaced metric stays in memory while another of its block lives, so
// what the blocks hold never exceeds the metrics of this check; a small
// block keeps that to a few for a few edits.
type metricSlab struct {
	free []Metric
	// left is how many more metrics the check may make at most (its
	// definitions): a block is no longer, so a small config's metrics
	// are not a block of 64 each.
	left int
}

const metricSlabSize = 64

func (s *metricSlab) next() *Metric {
	if len(s.free) == 0 {
		s.free = make([]Metric, max(1, min(metricSlabSize, s.left)))
	}
	s.left--
	m := &s.free[0]
	s.free = s.free[1:]
	return m
}
