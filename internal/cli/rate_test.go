package cli

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// TestCounterRates: counters become rates per second from the second
// sample on (pmval's display), a counter of milliseconds a utilisation,
// a counter that went backwards no value, and other metrics stay as
// they are.
func TestCounterRates(t *testing.T) {
	bytes := pmapi.Desc{Type: pmapi.TypeU64, Sem: pmapi.SemCounter, Units: pmapi.Units{DimSpace: 1}}
	busy := pmapi.Desc{Type: pmapi.TypeU32, Sem: pmapi.SemCounter, Units: pmapi.Units{DimTime: 1, ScaleTime: pmapi.TimeMSec}}
	gauge := pmapi.Desc{Type: pmapi.TypeDouble, Sem: pmapi.SemInstant}
	sample := func(at time.Time, in, busyMs uint64, g float64) *evaluator.Sample {
		return &evaluator.Sample{Timestamp: at, Results: []evaluator.Result{
			{Name: "in", Desc: bytes, Values: []evaluator.Value{{Inst: 0, Uint: in}, {Inst: 1, Uint: in}}},
			{Name: "busy", Desc: busy, Values: []evaluator.Value{{Uint: busyMs}}},
			{Name: "g", Desc: gauge, Values: []evaluator.Value{{Float: g}}},
		}}
	}
	c := newCounterRates()
	t0 := time.Unix(1000, 0)
	first := sample(t0, 1000, 100, 1.5)
	rated := c.convert(first)
	if !rated["in"] || !rated["busy"] || rated["g"] || !errors.Is(first.Results[0].Err, errFirstRate) || first.Results[2].Values[0].Float != 1.5 {
		t.Fatalf("first sample: rated %v, %+v", rated, first.Results)
	}
	second := sample(t0.Add(2*time.Second), 5000, 600, 2.5)
	c.convert(second)
	in, b := second.Results[0], second.Results[1]
	if in.Err != nil || len(in.Values) != 2 || in.Values[0].Float != 2000 || in.Desc.Units.String() != "byte / sec" || in.Desc.Type != pmapi.TypeDouble {
		t.Errorf("bytes rate: %+v (%s)", in, in.Desc.Units)
	}
	if math.Abs(b.Values[0].Float-0.25) > 1e-12 || !b.Desc.Units.Dimensionless() {
		t.Errorf("millisecond counter: %+v, want a utilisation of 0.25", b)
	}
	third := sample(t0.Add(3*time.Second), 10, 700, 0)
	c.convert(third)
	if len(third.Results[0].Values) != 0 {
		t.Errorf("a counter that went backwards has no rate: %+v", third.Results[0].Values)
	}
}

// TestCounterRatesRestartAfterAGap: a sample without a counter's value
// (a gap in an archive) restarts its rate, as pmval does: the next
// value is not compared with one from before the gap.
func TestCounterRatesRestartAfterAGap(t *testing.T) {
	ctr := pmapi.Desc{Type: pmapi.TypeU64, Sem: pmapi.SemCounter, Units: pmapi.Units{DimCount: 1}}
	sample := func(sec int64, vals ...evaluator.Value) *evaluator.Sample {
		return &evaluator.Sample{Timestamp: time.Unix(1000+sec, 0), Results: []evaluator.Result{{Name: "c", Desc: ctr, Values: vals}}}
	}
	c := newCounterRates()
	for i, tc := range []struct {
		s    *evaluator.Sample
		want []evaluator.Value
	}{
		{sample(0, evaluator.Value{Inst: 1, Uint: 10}, evaluator.Value{Inst: 2, Uint: 10}), nil},
		{sample(1, evaluator.Value{Inst: 1, Uint: 14}, evaluator.Value{Inst: 2, Uint: 12}), []evaluator.Value{{Inst: 1, Float: 4}, {Inst: 2, Float: 2}}},
		{sample(2), nil}, // the gap
		{sample(3, evaluator.Value{Inst: 1, Uint: 30}, evaluator.Value{Inst: 2, Uint: 30}), nil},
		{sample(4, evaluator.Value{Inst: 1, Uint: 31}), []evaluator.Value{{Inst: 1, Float: 1}}},
		{sample(5, evaluator.Value{Inst: 1, Uint: 33}, evaluator.Value{Inst: 2, Uint: 40}), []evaluator.Value{{Inst: 1, Float: 2}}},
	} {
		c.convert(tc.s)
		if got := tc.s.Results[0].Values; len(got) != len(tc.want) || (len(got) > 0 && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("sample %d: rates %+v, want %+v", i, got, tc.want)
		}
	}
}
