package cli

import (
	"errors"
	"math"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive/interp"
)

// counterRates turns counter values into rates between successive
// samples, as pmval shows counters: (this - last) / seconds between, in
// units per second; a counter of time (say millisec) becomes the
// fraction of the time it counted (a utilisation, units none). The
// arithmetic is pmval's (printrates): values and times as doubles, the
// time between two samples the difference of their times since the
// epoch, scaled to the counter's time unit.
type counterRates struct {
	last map[string]map[int32]evaluator.Value // each counter's values at the last sample
	at   time.Time
}

// errFirstRate marks a counter's first sample: a rate needs two.
var errFirstRate = errors.New("rate available from the next sample")

func newCounterRates() *counterRates {
	return &counterRates{last: map[string]map[int32]evaluator.Value{}}
}

// convert rewrites the counter results of s in place and returns the
// names it turned into rates. Like pmval, it compares each value with
// the same instance's in the sample just before, only: after a sample
// without it (a gap in an archive, a missing value) the rate starts
// again. A counter that went backwards has no rate (pmval prints "!"
// for it, pmrep nothing).
func (c *counterRates) convert(s *evaluator.Sample) map[string]bool {
	rated := map[string]bool{}
	dt := interp.Seconds(s.Timestamp) - interp.Seconds(c.at)
	first := c.at.IsZero() || dt <= 0
	c.at = s.Timestamp
	for i := range s.Results {
		r := &s.Results[i]
		if r.Desc.Sem != pmapi.SemCounter || !numeric(r.Desc.Type) {
			continue
		}
		prev := c.last[r.Name]
		now := map[int32]evaluator.Value{}
		c.last[r.Name] = now
		if r.Err != nil {
			continue
		}
		var rates []evaluator.Value
		for _, v := range r.Values {
			now[v.Inst] = v
			p, seen := prev[v.Inst]
			if first || !seen {
				continue
			}
			d := evaluator.Float64(r.Desc.Type, v) - evaluator.Float64(r.Desc.Type, p)
			if d < 0 {
				continue
			}
			rates = append(rates, evaluator.Value{Inst: v.Inst, Float: d / (timeScale(r.Desc.Units) * dt)})
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

// timeScale is pmval's scale for a counter of time: how many of its
// units a second holds (1000 for milliseconds, 1/60 for minutes), so
// that its rate is the fraction of each second it counted; 1 for other
// counters.
func timeScale(u pmapi.Units) float64 {
	if u.DimTime != 1 {
		return 1
	}
	if u.ScaleTime > pmapi.TimeSec {
		return math.Pow(60, float64(pmapi.TimeSec-int(u.ScaleTime)))
	}
	return math.Pow(1000, float64(pmapi.TimeSec-int(u.ScaleTime)))
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
