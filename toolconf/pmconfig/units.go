package pmconfig

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// checkUnit checks a spec's unit as validate_metrics meets it: libpcp
// must parse it (pmParseUnitsStr), and the fetchgroup must convert the
// metric's units to it. The fetchgroup is handed the column's label,
// not the unit: for a counter pmrep rate-converts (not raw), the unit
// with " / s" appended when it has no "/" (then "sec" shortened to "s"
// and the spaces around "/" dropped). The label's dimensions must equal
// the metric's, or be them per unit of time (a rate, raw or not); any
// other unit stops pmrep with "Impossible value or scale conversion",
// naming no metric, unless ignore_incompat makes it drop the metric.
func (d *Doc) checkUnit(sm SpecMetric, i int) []Finding {
	f, ok := sm.Spec.Fields["unit"]
	if !ok || f.Text == "" || d.unitOverridden(sm) {
		return nil
	}
	rg := d.Range(f.Value.Offset(0), f.Value.End)
	scope := d.sectionScope(sm.Spec)
	if _, _, err := d.parseUnits(f.Text); err != nil {
		var ue *pmapi.UnitsError
		msg := err.Error()
		if errors.As(err, &ue) {
			msg = ue.Msg
		}
		tool := []string{fmt.Sprintf("PM_ERR_CONV Impossible value or scale conversion %s: %s.", msg, f.Text)}
		return []Finding{{Diagnostic: grammar.Diagnostic{Range: rg, Severity: grammar.SeverityError, Code: codes.SpecUnit,
			Message: fmt.Sprintf("libpcp cannot parse unit %q: %s; pmrep stops", f.Text, msg), PCP: tool},
			Section: scope, Phase: PhaseLookup, Fatal: true, Order: setupStep(i, stepUnit), Tool: tool}}
	}
	desc := sm.Desc
	if !desc.Type.Arithmetic() && desc.Type != pmapi.TypeString {
		return nil // the fetchgroup refuses the type whatever the unit
	}
	rate := d.rateConverted(sm)
	label := d.label(f.Text, rate)
	out, _, err := d.parseUnits(label)
	if err == nil && convertible(desc.Units, out) {
		return nil
	}
	units := unitsWords(desc.Units)
	shown := fmt.Sprintf("%q", label)
	if rate {
		shown = fmt.Sprintf("%q (its rate: the unit with \" / s\" when it has no \"/\")", label)
	}
	why := fmt.Sprintf("%s is in %s, and pmrep shows it in %s, which is neither %s nor %s per unit of time", sm.Spec.Metric, units, shown, units, units)
	if d.optionTrue(sm.Spec.Section, "ignore_incompat") {
		// The fetchgroup's error is caught: the metric is dropped.
		return []Finding{{Diagnostic: grammar.Diagnostic{Range: rg, Severity: grammar.SeverityWarning, Code: codes.SpecUnit,
			Message: why + ": with ignore_incompat pmrep drops the metric without a word"},
			Section: scope, Phase: PhaseLookup, Order: setupStep(i, stepConvert), dropped: true}}
	}
	tool := []string{"pmrep: Impossible value or scale conversion"}
	return []Finding{{Diagnostic: grammar.Diagnostic{Range: rg, Severity: grammar.SeverityError, Code: codes.SpecUnit,
		Message: why + ": pmrep stops with \"Impossible value or scale conversion\", naming no metric", PCP: tool},
		Section: scope, Phase: PhaseLookup, Fatal: true, Order: setupStep(i, stepConvert), Tool: tool}}
}

// ShownUnit is the unit pmrep shows a spec's metric in, as its column
// header says it: the spec's unit, else the section's or [options]'
// count_scale, space_scale or time_scale for the metric's kind of units
// (a *_scale_force option wins over both), else the metric's own units;
// " / s" added for a counter it rate-converts.
func (d *Doc) ShownUnit(sm SpecMetric) string {
	unit := ""
	if f, ok := sm.Spec.Fields["unit"]; ok {
		unit = f.Text
	}
	if kind := unitKind(sm.Desc.Units); kind != "" {
		if force, _ := d.runOption(sm.Spec.Section, kind+"_scale_force"); force != "" {
			unit = force
		} else if scale, _ := d.runOption(sm.Spec.Section, kind+"_scale"); scale != "" && unit == "" {
			unit = scale
		}
	}
	if out, _ := d.runOption(sm.Spec.Section, "output"); unit == "" || out == "archive" {
		unit = sm.Desc.Units.Format(d.Version.Has(pcpver.ExtraUnits))
	}
	return d.label(unit, d.rateConverted(sm))
}

// label is the column label of a unit (format_metric_label): for a
// rate-converted counter " / s" is added when the unit has no "/".
func (d *Doc) label(unit string, rate bool) string {
	if rate && !strings.Contains(unit, "/") {
		unit += " / s"
	}
	return shortLabel(unit)
}

// rateConverted says whether pmrep shows the rate of a spec's metric: a
// counter, not a string, not raw.
func (d *Doc) rateConverted(sm SpecMetric) bool {
	return !d.raw(sm) && sm.Desc.Type != pmapi.TypeString && sm.Desc.Sem == pmapi.SemCounter
}

// parseUnits is pmParseUnitsStr of the file's release.
func (d *Doc) parseUnits(s string) (pmapi.Units, float64, error) {
	if d.Version.Has(pcpver.ExtraUnits) {
		return pmapi.ParseUnitsExtra(s)
	}
	return pmapi.ParseUnits(s)
}

// convertible is the fetchgroup's test of a scale's units against a
// metric's: the same dimensions, or the metric's per unit of time with
// a time scale it can rate-convert to.
func convertible(metric, scale pmapi.Units) bool {
	if metric.DimSpace != scale.DimSpace || metric.DimCount != scale.DimCount {
		return false
	}
	switch metric.DimTime {
	case scale.DimTime:
		return true
	case scale.DimTime + 1:
		return scale.ScaleTime >= pmapi.TimeNSec && scale.ScaleTime <= pmapi.TimeHour
	}
	return false
}

// shortLabel is format_metric_label: a label with " / " in it has its
// time units shortened and the spaces around the slash dropped.
func shortLabel(label string) string {
	if !strings.Contains(label, " / ") {
		return label
	}
	return strings.NewReplacer("nanosec", "ns", "microsec", "us", "millisec", "ms", "sec", "s", "hour", "h", " / ", "/").Replace(label)
}

// raw says whether pmrep shows the spec's metric without rate
// conversion: its type is raw, or it has none and type_prefer is raw,
// or the type option is raw, or the output is an archive.
func (d *Doc) raw(sm SpecMetric) bool {
	s := sm.Spec.Section
	if t, ok := sm.Spec.Fields["type"]; ok && t.Text != "" {
		if t.Text == "raw" {
			return true
		}
	} else if v, _ := d.runOption(s, "type_prefer"); v == "raw" {
		return true
	}
	typ, _ := d.runOption(s, "type")
	out, _ := d.runOption(s, "output")
	return typ == "raw" || out == "archive"
}

// unitOverridden says whether pmrep shows the spec's metric in other
// units than its spec's: a *_scale_force option of the metric's kind of
// units, or an archive output (native units).
func (d *Doc) unitOverridden(sm SpecMetric) bool {
	s := sm.Spec.Section
	if out, _ := d.runOption(s, "output"); out == "archive" {
		return true
	}
	kind := unitKind(sm.Desc.Units)
	if kind == "" {
		return false
	}
	v, _ := d.runOption(s, kind+"_scale_force")
	return v != ""
}

// unitKind is the prefix of the scale options that apply to units: count,
// space or time for units of one dimension to the power one, "" for any
// other.
func unitKind(u pmapi.Units) string {
	switch {
	case u.DimCount == 1 && u.DimSpace == 0 && u.DimTime == 0:
		return "count"
	case u.DimSpace == 1 && u.DimCount == 0 && u.DimTime == 0:
		return "space"
	case u.DimTime == 1 && u.DimCount == 0 && u.DimSpace == 0:
		return "time"
	}
	return ""
}

// unitsWords names a metric's units in a message: "none" for a
// dimensionless count, as pminfo says.
func unitsWords(u pmapi.Units) string {
	if s := u.String(); s != "" {
		return s
	}
	return "none"
}
