package main

import (
	"math"
	"slices"
	"time"
)

// summary is what the bursts say.
type summary struct {
	ours, libpcp       time.Duration // medians of the bursts' wall time a fetch
	oursCPU, libpcpCPU time.Duration // medians of the bursts' CPU time a fetch
	// ratio is the median of the rounds' libpcp/ours; ratioLo and ratioHi
	// bound it at 95% confidence, ratioQ1 and ratioQ3 are the quartiles.
	ratio, ratioLo, ratioHi, ratioQ1, ratioQ3 float64
}

// summarize pairs the bursts of each round: ours[i] and libpcp[i] ran
// next to each other in time.
func summarize(ours, libpcp []timing) summary {
	n := min(len(ours), len(libpcp))
	ratios := make([]float64, 0, n)
	for i := range n {
		if ours[i].wall > 0 {
			ratios = append(ratios, float64(libpcp[i].wall)/float64(ours[i].wall))
		}
	}
	slices.Sort(ratios)
	s := summary{
		ours:      medianOf(ours[:n], func(t timing) time.Duration { return t.wall }),
		libpcp:    medianOf(libpcp[:n], func(t timing) time.Duration { return t.wall }),
		oursCPU:   medianOf(ours[:n], func(t timing) time.Duration { return t.cpu }),
		libpcpCPU: medianOf(libpcp[:n], func(t timing) time.Duration { return t.cpu }),
	}
	if len(ratios) > 0 {
		s.ratio = median(ratios)
		s.ratioLo, s.ratioHi = medianInterval(ratios)
		s.ratioQ1, s.ratioQ3 = ratios[(len(ratios)-1)/4], ratios[3*(len(ratios)-1)/4]
	}
	return s
}

func medianOf(ts []timing, f func(timing) time.Duration) time.Duration {
	if len(ts) == 0 {
		return 0
	}
	v := make([]float64, len(ts))
	for i, t := range ts {
		v[i] = float64(f(t))
	}
	slices.Sort(v)
	return time.Duration(median(v))
}

// median of a sorted, non-empty list.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// medianInterval is a 95% confidence interval of the median of a sorted
// list by order statistics, distribution-free: the number of values below
// the true median is binomial(n, 1/2), so the k-th smallest and the k-th
// largest value bound it with probability 1 - 2·P(X < k); k is the
// largest rank that keeps this at 95% or more. With fewer than 6 values
// no rank does, and it is the whole range.
func medianInterval(sorted []float64) (lo, hi float64) {
	n := len(sorted)
	k := max(medianRank(n, 0.025), 1)
	return sorted[k-1], sorted[n-k]
}

// medianRank is the largest k with P(X < k) ≤ alpha for X binomial(n,
// 1/2), 0 when there is none (P(X = 0) > alpha).
func medianRank(n int, alpha float64) int {
	k, below := 0, 0.0
	for j := 0; j < n; j++ {
		below += math.Exp(logChoose(n, j) - float64(n)*math.Ln2)
		if below > alpha {
			break
		}
		k = j + 1
	}
	return k
}

// logChoose is log(n choose k).
func logChoose(n, k int) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return lg(n) - lg(k) - lg(n-k)
}
