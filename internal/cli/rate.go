package cli

import (
	"errors"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// counterRates turns counter values into rates between successive
// samples, as pmval shows counters: (this - last) / seconds between, in
// units per second; a counter of time (say millisec) becomes the
// fraction of the time it counted (a utilisation, units none).
type counterRates struct {
	last map[rateKey]evaluator.Value
	at   time.Time
}

type rateKey struct {
	name string
	inst int32
}

// errFirstRate marks a counter's first sample: a rate needs two.
var errFirstRate = errors.New("rate available from the next sample")

func newCounterRates() *counterRates { return &counterRates{last: map[rateKey]evaluator.Value{}} }

// convert rewrites the counter results of s in place and returns the
// names it turned into rates.
func (c *counterRates) convert(s *evaluator.Sample) map[string]bool {
	rated := map[string]bool{}
	dt := s.Timestamp.Sub(c.at).Seconds()
	first := c.at.IsZero() || dt <= 0
	c.at = s.Timestamp
	for i := range s.Results {
		r := &s.Results[i]
		if r.Err != nil || r.Desc.Sem != pmapi.SemCounter || !numeric(r.Desc.Type) {
			continue
		}
		var rates []evaluator.Value
		for _, v := range r.Values {
			k := rateKey{r.Name, v.Inst}
			prev, seen := c.last[k]
			c.last[k] = v
			if first || !seen {
				continue
			}
			d := evaluator.Float64(r.Desc.Type, v) - evaluator.Float64(r.Desc.Type, prev)
			if d < 0 {
				continue // counter wrapped or reset: pmval skips it too
			}
			rates = append(rates, evaluator.Value{Inst: v.Inst, Float: d / dt * timeFactor(r.Desc.Units)})
		}
		r.Desc.Type, r.Desc.Sem = pmapi.TypeDouble, pmapi.SemInstant
		r.Desc.Units = rateUnits(r.Desc.Units)
		r.Values = rates
		if first {
			r.Err = errFirstRate
		}
		rated[r.Name] = true
	}
	return rated
}

func numeric(t pmapi.Type) bool {
	switch t {
	case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble:
		return true
	}
	return false
}

// timeSeconds is each time scale in seconds.
var timeSeconds = map[int8]float64{pmapi.TimeNSec: 1e-9, pmapi.TimeUSec: 1e-6, pmapi.TimeMSec: 1e-3, pmapi.TimeSec: 1, pmapi.TimeMin: 60, pmapi.TimeHour: 3600}

// timeFactor converts a counter of time to seconds, so its rate is a
// fraction of a second per second; other counters are left as they are.
func timeFactor(u pmapi.Units) float64 {
	if u.DimTime == 1 {
		return timeSeconds[u.ScaleTime]
	}
	return 1
}

// rateUnits is a counter's units per second.
func rateUnits(u pmapi.Units) pmapi.Units {
	switch u.DimTime {
	case 1:
		u.DimTime, u.ScaleTime = 0, 0
	case 0:
		u.DimTime, u.ScaleTime = -1, pmapi.TimeSec
	default:
		u.DimTime--
	}
	return u
}
