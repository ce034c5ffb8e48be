package main

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMedianInterval(t *testing.T) {
	seq := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i + 1)
		}
		return v
	}
	cases := []struct {
		name   string
		sorted []float64
		lo, hi float64
	}{
		{"one value", []float64{7}, 7, 7},
		{"few values: the whole range", []float64{1, 2, 3, 4, 5}, 1, 5},
		{"six values: still the whole range", seq(6), 1, 6},
		// n = 9: P(X < 2) = 10/512 ≤ 2.5% < P(X < 3) = 46/512.
		{"nine values", seq(9), 2, 8},
		// The ranks of the binomial tables: 40th and 61st of 100, 180th
		// and 221st of 400.
		{"100 values", seq(100), 40, 61},
		{"400 values", seq(400), 180, 221},
	}
	for _, c := range cases {
		lo, hi := medianInterval(c.sorted)
		if n := len(c.sorted); n >= 6 {
			// The coverage the ranks give: at least 95%, and under 95%
			// one rank further in.
			k := int(lo)
			if cover := 1 - 2*binomialBelow(n, k); cover < 0.95 {
				t.Errorf("%s: coverage %.4f < 95%%", c.name, cover)
			}
			if cover := 1 - 2*binomialBelow(n, k+1); k+1 <= n/2 && cover >= 0.95 {
				t.Errorf("%s: rank %d also covers 95%% (%.4f): the interval is wider than it need be", c.name, k+1, cover)
			}
		}
		if lo != c.lo || hi != c.hi {
			t.Errorf("%s: interval %v–%v, want %v–%v", c.name, lo, hi, c.lo, c.hi)
		}
		if m := median(c.sorted); m < lo || m > hi {
			t.Errorf("%s: median %v outside its interval %v–%v", c.name, m, lo, hi)
		}
	}
}

// binomialBelow is P(X < k) for X binomial(n, 1/2), summed directly.
func binomialBelow(n, k int) float64 {
	p, c := 0.0, 1.0 // c is n choose j
	for j := 0; j < k; j++ {
		p += c
		c = c * float64(n-j) / float64(j+1)
	}
	return p / math.Pow(2, float64(n))
}

func TestSummarizePairsRounds(t *testing.T) {
	us := func(v float64) time.Duration { return time.Duration(v * 1e3) }
	// Each round's ratio is libpcp/ours of that round: 1.1, 1.0, 0.8,
	// 1.2, 1.05. Pairing across rounds (sorting each side first) would
	// give other ratios.
	ours := []timing{{us(100), us(30)}, {us(300), us(31)}, {us(200), us(32)}, {us(100), us(33)}, {us(400), us(34)}}
	libpcp := []timing{{us(110), us(40)}, {us(300), us(41)}, {us(160), us(42)}, {us(120), us(43)}, {us(420), us(44)}}
	s := summarize(ours, libpcp)
	if s.ratio != 1.05 {
		t.Errorf("paired median %v, want 1.05", s.ratio)
	}
	if s.ours != us(200) || s.libpcp != us(160) || s.oursCPU != us(32) || s.libpcpCPU != us(42) {
		t.Errorf("medians %v %v, CPU %v %v; want 200µs 160µs, 32µs 42µs", s.ours, s.libpcp, s.oursCPU, s.libpcpCPU)
	}
	// Five rounds are too few for an interval: the whole range.
	if s.ratioLo != 0.8 || s.ratioHi != 1.2 || s.ratioQ1 != 1.0 || s.ratioQ3 != 1.1 {
		t.Errorf("interval %v–%v, quartiles %v–%v; want 0.8–1.2 and 1–1.1", s.ratioLo, s.ratioHi, s.ratioQ1, s.ratioQ3)
	}
}

// recorder is a side that records the order of the bursts.
type recorder struct {
	name  string
	log   *[]string
	wall  time.Duration
	fail  int // the burst that fails, from 1; 0 for none
	calls int
}

func (r *recorder) burst(n int) (timing, error) {
	r.calls++
	*r.log = append(*r.log, r.name)
	if r.calls == r.fail {
		return timing{}, errors.New(r.name + " failed")
	}
	return timing{wall: r.wall + time.Duration(r.calls)}, nil
}

func TestAlternateTakesTurns(t *testing.T) {
	var log []string
	a := &recorder{name: "a", log: &log, wall: 1000}
	b := &recorder{name: "b", log: &log, wall: 2000}
	as, bs, err := alternate(a, b, 4, 50)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "b", "a", "a", "b", "b", "a"}; !slices.Equal(log, want) {
		t.Errorf("order %v, want %v", log, want)
	}
	// Each side's runs stay its own, in round order.
	for i := range 4 {
		if as[i].wall != 1000+time.Duration(i+1) || bs[i].wall != 2000+time.Duration(i+1) {
			t.Errorf("round %d: a %v, b %v", i, as[i].wall, bs[i].wall)
		}
	}
	log = nil
	if _, _, err := alternate(&recorder{name: "a", log: &log}, &recorder{name: "b", log: &log, fail: 2}, 4, 50); err == nil || !strings.Contains(err.Error(), "b failed") {
		t.Errorf("error %v, want b's", err)
	}
}

func TestChildAnswers(t *testing.T) {
	if got, err := parseTiming("331000 33000"); err != nil || got != (timing{331 * time.Microsecond, 33 * time.Microsecond}) {
		t.Errorf("parseTiming: %v, %v", got, err)
	}
	for _, bad := range []string{"", "331000", "1 2 3", "x 2", "-1 2", "Traceback (most recent call last):"} {
		if _, err := parseTiming(bad); err == nil {
			t.Errorf("parseTiming(%q) succeeded", bad)
		}
	}
	var c child
	if err := c.parseReady("ready 77 261"); err != nil || c.values != 77 || c.loop != 261 {
		t.Errorf("parseReady: %v, values %d, loop %v", err, c.values, c.loop)
	}
	for _, bad := range []string{"ready", "ready 77", "ready x 1", "ready 1 y", "steady 1 2"} {
		if err := c.parseReady(bad); err == nil {
			t.Errorf("parseReady(%q) succeeded", bad)
		}
	}
}
