package evaluator

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/snapshot"
)

// fixedValues serves a snapshot's metadata and one fixed value per metric.
type fixedValues struct {
	*snapshot.Source
	values map[string]float64
}

func (f fixedValues) Fetch(ctx context.Context, pmids []pmapi.PMID) (*pmclient.Result, error) {
	names, _, _ := f.NamesOf(ctx, pmids)
	descs, _, _ := f.Descs(ctx, pmids)
	res := &pmclient.Result{Timestamp: time.Unix(1795344578, 0)}
	for i, id := range pmids {
		v := f.values[names[i][0]]
		val := pmapi.Value{Inst: pmclient.InNull, Float: v, Int: int64(v), Uint: uint64(v)}
		if descs[i].Type == pmapi.TypeFloat {
			val.Float = float64(float32(v))
		}
		res.Metrics = append(res.Metrics, pmclient.MetricValues{PMID: id, Values: []pmapi.Value{val}})
	}
	return res, nil
}

// TestExtraUnitValues: rescale() between temperature, voltage, current
// and power scales gives the values of PCP's QA test 1667 (PCP 7.2's
// sample PMDA: 0 C, 240 V, 13 A, 42 kW).
func TestExtraUnitValues(t *testing.T) {
	f, err := os.Open("../checker/testdata/sample-7.2.snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	snap, err := snapshot.Read(f, "sample 7.2")
	if err != nil {
		t.Fatal(err)
	}
	src := fixedValues{snap, map[string]float64{
		"sample.temperature.celsius": 0, "sample.temperature.fahrenheit": 32, "sample.voltage.volt": 240,
		"sample.voltage.millivolt": 240000, "sample.current.amp": 13, "sample.current.milliamp": 13000,
		"sample.current.microamp": 13000000, "sample.power.kilowatt": 42, "sample.bigid": 4194303,
		"sampledso.long.ten": 10, "sampledso.long.hundred": 100,
	}}
	cases := []struct{ expr, want string }{
		{`rescale(sample.voltage.millivolt, "voltage (V)")`, "240"},
		{`sample.voltage.millivolt + rescale(sample.voltage.millivolt / 1000, "voltage (mV)")`, "240240"},
		{`rescale(sample.voltage.millivolt, "voltage (V)") + sample.voltage.volt`, "480"},
		{`rescale(sample.temperature.celsius, "temperature (F)")`, "32"},
		{`rescale(mkconst(212, units="temperature (F)"), "temperature (C)")`, "100"},
		{`rescale(sample.temperature.celsius, "temperature (K)")`, "273.14999"},
		{`rescale(sample.temperature.fahrenheit, "temperature (K)")`, "273.14999"},
		{`rescale(mkconst(300, type=32, units="temperature (K)"), "temperature (F)")`, "80"},
		{`sample.power.kilowatt * mkconst(24, units="hour")`, "1008"},
		{`rescale(sample.power.kilowatt, "power (mW)")`, "42000000"},
		{`sample.current.amp / (rescale(sample.current.milliamp, "current (A)") + rescale(sample.current.microamp, "current (A)"))`, "0.5"},
		{`sample.temperature.fahrenheit * 2`, "64"},
		{`sampledso.long.hundred / sample.temperature.fahrenheit`, "3.125"},
		// A parenthesised operand is scaled as the bare one: the plan
		// has no slot for a parenthesis, its inside carries the scales.
		{`mkconst(1, units="hour") + ((mkconst(30, units="min")))`, "1.5"},
		{`(mkconst(30, units="min")) + mkconst(1, units="hour")`, "1.5"},
		{`((mkconst(1, units="hour") + (mkconst(30, units="min")))) * 2`, "3"},
	}
	var config strings.Builder
	for i, c := range cases {
		fmt.Fprintf(&config, "qa.m%d = %s\n", i, c.expr)
	}
	_, _, ev := prepare(t, src, "extra.conf", config.String(), pcpver.Latest)
	s, err := ev.Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range s.Results {
		if r.Err != nil || len(r.Values) != 1 {
			got[r.Name] = fmt.Sprintf("err %v, %d values", r.Err, len(r.Values))
			continue
		}
		got[r.Name] = Format(r.Desc.Type, r.Values[0])
	}
	for i, c := range cases {
		if g := got[fmt.Sprintf("qa.m%d", i)]; g != c.want {
			t.Errorf("%s = %s, want %s", c.expr, g, c.want)
		}
	}
}

// TestConstantsWithInDom: in pcp7 a constant with meta= or indom= has one
// value per current instance of its domain (PCP 6.2.2+ and 7.1+), and
// meta= copies the metric's descriptor before the other keys override it.
func TestConstantsWithInDom(t *testing.T) {
	requirePCP(t)
	config := "m.c = mkconst(7, type=32, meta=sample.bin)\nm.e = mkconst(3, indom=60.2)\nm.g = mkconst(2, meta=sample.bin, type=64, semantics=counter)\nm.s = mkconst(5, type=u32)\n"
	_, rep, ev := prepare(t, livePmcd(t), "c.conf", config, pcpver.Latest)
	wantDesc := map[string]string{
		"m.c": "32-bit int instant, units none, indom 29.2",
		"m.e": "32-bit unsigned int discrete, units none, indom 60.2",
		"m.g": "64-bit int counter, units none, indom 29.2",
		"m.s": "32-bit unsigned int discrete, units none, singular",
	}
	for name, want := range wantDesc {
		if got := checker.DescText(rep.ByName.Metric(name).Desc); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	s, err := ev.Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range s.Results {
		var parts []string
		for _, v := range r.Values {
			parts = append(parts, fmt.Sprintf("%d=%s", v.Inst, Format(r.Desc.Type, v)))
		}
		got[r.Name] = strings.Join(parts, " ")
	}
	want := map[string]string{
		"m.c": "100=7 200=7 300=7 400=7 500=7 600=7 700=7 800=7 900=7",
		"m.e": "1=3 5=3 15=3",
		"m.g": "100=2 200=2 300=2 400=2 500=2 600=2 700=2 800=2 900=2",
		"m.s": "-1=5",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s = %s, want %s", name, got[name], w)
		}
	}
}
