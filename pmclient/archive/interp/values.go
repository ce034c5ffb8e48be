package interp

import (
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// value computes an instance's value at tReq from its bounds, as the
// result-building loop of __pmLogFetchInterp does; ok is false when it
// gives none. The arithmetic is C's on x86-64: doubles throughout (no
// fused multiply-add: each product is rounded, hence the float64()
// conversions), integer differences wrapping in the operands' type,
// and gcc's conversions back to integers.
func (ic *inst) value(tReq float64, nearest bool) (pmclient.Value, bool) {
	m := ic.metric
	out := pmclient.Value{Inst: ic.id}
	switch m.desc.Type {
	case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble:
	default:
		// Strings, aggregates, events: the value before, whatever the
		// semantics (and in every release).
		if ic.tPrior < 0 {
			return out, false
		}
		return ic.vPrior, true
	}
	switch {
	case ic.tPrior == tReq:
		return ic.vPrior, true
	case ic.tNext == tReq:
		return ic.vNext, true
	}
	switch m.desc.Sem {
	case pmapi.SemDiscrete:
		if ic.tPrior < 0 {
			return out, false
		}
		// 6.3.2+: the later observation when it is a value and nearer.
		if nearest && ic.sNext&stValue != 0 && tReq > (ic.tPrior+ic.tNext)/2 {
			return ic.vNext, true
		}
		return ic.vPrior, true
	case pmapi.SemInstant:
		if ic.tPrior < 0 || ic.tNext < 0 {
			return out, false
		}
		if nearest && tReq > (ic.tPrior+ic.tNext)/2 {
			return ic.vNext, true
		}
		return ic.vPrior, true
	}
	// A counter: linear interpolation between the observations.
	if ic.tPrior < 0 || ic.tNext < 0 {
		return out, false
	}
	return ic.interpolate(tReq), true
}

// interpolate is libpcp's linear interpolation of a counter (without
// $PCP_COUNTER_WRAP: a counter that went down is interpolated downwards).
func (ic *inst) interpolate(tReq float64) pmclient.Value {
	out := pmclient.Value{Inst: ic.id}
	elapsed := tReq - ic.tPrior
	span := ic.tNext - ic.tPrior
	switch ic.metric.desc.Type {
	case pmapi.Type32:
		p, n := int32(ic.vPrior.Int), int32(ic.vNext.Int)
		v := cInt32(0.5 + float64(p) + float64(elapsed*float64(n-p))/span)
		out.Int = int64(v)
	case pmapi.TypeU32:
		p, n := uint32(ic.vPrior.Uint), uint32(ic.vNext.Uint)
		var v uint32
		if n >= p {
			v = cUint32(0.5 + float64(p) + float64(elapsed*float64(n-p))/span)
		} else {
			v = cUint32(0.5 + float64(p) - float64(elapsed*float64(p-n))/span)
		}
		out.Int, out.Uint = int64(v), uint64(v)
	case pmapi.Type64:
		p, n := ic.vPrior.Int, ic.vNext.Int
		out.Int = cInt64(0.5 + float64(p) + float64(elapsed*float64(n-p))/span)
	case pmapi.TypeU64:
		// libpcp copies the values into signed 64-bit variables: the
		// comparison and the conversion of the one before are signed.
		p, n := int64(ic.vPrior.Uint), int64(ic.vNext.Uint)
		if n >= p {
			out.Uint = cUint64(0.5 + float64(p) + float64(elapsed*float64(uint64(n-p)))/span)
		} else {
			out.Uint = cUint64(0.5 + float64(p) - float64(elapsed*float64(uint64(p-n)))/span)
		}
	case pmapi.TypeFloat:
		p, n := float32(ic.vPrior.Float), float32(ic.vNext.Float)
		diff := n - p // float arithmetic, as C does for two floats
		out.Float = float64(float32(float64(p) + float64(elapsed*float64(diff))/span))
	case pmapi.TypeDouble:
		p, n := ic.vPrior.Float, ic.vNext.Float
		out.Float = p + float64(elapsed*(n-p))/span
	}
	return out
}
