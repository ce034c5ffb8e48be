package pmproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// descFrom reads a descriptor from pmproxy's text forms: pmIDStr,
// pmInDomStr, pmproxy's own type names ("32", "u64", "unsupported"),
// pmSemStr and pmUnitsStr ("none" when dimensionless).
func descFrom(m *metricJSON) (pmapi.Desc, error) {
	var d pmapi.Desc
	var err error
	var ok bool
	if d.PMID, err = pmapi.ParsePMID(m.PMID); err != nil {
		return d, err
	}
	d.InDom = pmapi.InDomNull
	if m.InDom != "" && m.InDom != "none" {
		if d.InDom, err = pmapi.ParseInDom(m.InDom); err != nil {
			return d, err
		}
	}
	if d.Type, err = typeFrom(m.Type); err != nil {
		return d, err
	}
	if m.Sem == "???" {
		d.Sem = 0 // pmSemStr says only that it is none of the three
	} else if d.Sem, ok = pmapi.ParseSem(m.Sem); !ok {
		return d, fmt.Errorf("semantics %q", m.Sem)
	}
	if d.Units, err = unitsFrom(m.Units); err != nil {
		return d, err
	}
	return d, nil
}

// typeFrom reads pmproxy's type names: pmTypeStr's in lower case, and
// "unsupported" for PM_TYPE_NOSUPPORT (whose pmTypeStr name it never
// uses).
func typeFrom(s string) (pmapi.Type, error) {
	if s == "unsupported" {
		return pmapi.TypeNoSupport, nil
	}
	if t, ok := pmapi.ParseType(strings.ToUpper(s)); ok && t != pmapi.TypeNoSupport {
		return t, nil
	}
	return 0, fmt.Errorf("type %q", s)
}

// unitsFrom inverts pmUnitsStr. The text is exact except for scales of
// a dimension that is zero, which pmUnitsStr does not print (and which
// mean nothing); it is checked by rendering it back.
func unitsFrom(s string) (pmapi.Units, error) {
	if s == "none" || s == "" {
		return pmapi.Units{}, nil
	}
	if rest, ok := strings.CutPrefix(s, "x 10"); ok {
		// A count scale with no count dimension (libpcp before 7.2).
		n := 1
		if rest != "" {
			var err error
			if n, err = strconv.Atoi(strings.TrimPrefix(rest, "^")); err != nil || !strings.HasPrefix(rest, "^") {
				return pmapi.Units{}, fmt.Errorf("units %q", s)
			}
		}
		return pmapi.Units{ScaleCount: int8(n)}, nil
	}
	u, _, err := pmapi.ParseUnitsExtra(s)
	if err != nil {
		return pmapi.Units{}, fmt.Errorf("units %q: %w", s, err)
	}
	if u.Format(false) != s && u.Format(true) != s {
		return pmapi.Units{}, fmt.Errorf("units %q: read as %q", s, u.Format(false))
	}
	return u, nil
}

// parseLabels reads a JSON object of labels into the form pmcd's label
// sets take: sorted by name, values as compact JSON text. null or
// absent is no labels.
func parseLabels(raw json.RawMessage) ([]pmclient.Label, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	out := make([]pmclient.Label, 0, len(obj))
	for k, v := range obj {
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			return nil, err
		}
		out = append(out, pmclient.Label{Name: k, Value: b.String()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// parseTimestamp reads pmproxy's "seconds.nanoseconds", written as two
// integers (the second not zero-padded: 5 µs past is ".5000").
func parseTimestamp(n json.Number) (time.Time, error) {
	sec, nsec, _ := strings.Cut(n.String(), ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp %q", n)
	}
	var ns int64
	if nsec != "" {
		if ns, err = strconv.ParseInt(nsec, 10, 64); err != nil || ns < 0 || ns >= 1e9 {
			return time.Time{}, fmt.Errorf("timestamp %q", n)
		}
	}
	return time.Unix(s, ns), nil
}

// valueOf reads one fetched value by the metric's type into the field
// pmapi.Value names for it. pmproxy prints floats with %.8g and doubles
// with %.16g.
func valueOf(t pmapi.Type, inst json.Number, v any) (pmapi.Value, error) {
	out := pmapi.Value{Inst: pmclient.InNull}
	if inst != "" {
		n, err := strconv.ParseInt(inst.String(), 10, 64)
		if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
			return out, fmt.Errorf("instance %q", inst)
		}
		out.Inst = int32(n)
	}
	num, isNum := v.(json.Number)
	str, isStr := v.(string)
	var err error
	switch {
	case (t == pmapi.Type32 || t == pmapi.Type64) && isNum:
		out.Int, err = strconv.ParseInt(num.String(), 10, 64)
	case (t == pmapi.TypeU32 || t == pmapi.TypeU64) && isNum:
		out.Uint, err = strconv.ParseUint(num.String(), 10, 64)
	case t == pmapi.TypeFloat && isNum:
		var f float64
		f, err = strconv.ParseFloat(num.String(), 32)
		out.Float = float64(float32(f))
	case t == pmapi.TypeDouble && isNum:
		out.Float, err = strconv.ParseFloat(num.String(), 64)
	case t == pmapi.TypeString && isStr:
		out.String = str
	case (t == pmapi.TypeAggregate || t == pmapi.TypeAggregateStatic) && isStr:
		out.Blob = []byte(str)
	default:
		return out, fmt.Errorf("value %v for a metric of type %s", v, t)
	}
	if err != nil {
		return out, fmt.Errorf("value %v for a metric of type %s: %w", v, t, err)
	}
	// A 32-bit value is kept as pmFetch would give it (see pmapi.Value).
	switch t {
	case pmapi.Type32:
		out.Int = int64(int32(out.Int))
	case pmapi.TypeU32:
		out.Uint = uint64(uint32(out.Uint))
	}
	return out, nil
}
