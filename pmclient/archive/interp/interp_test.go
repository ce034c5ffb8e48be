package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/recordtest"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
)

// window is one way pmval -a or pmrep -a walks an archive: the first
// fetch's time (from the label's start, or a record's own time), the
// interval, and enough fetches to run past the end.
type window struct {
	name     string
	offset   time.Duration // from the label's start
	atRecord int           // > 0: start at this record's time instead
	interval time.Duration
}

var windows = []window{
	{"start/100ms", 0, 0, 100 * time.Millisecond},
	{"start/250ms", 0, 0, 250 * time.Millisecond},
	{"start/1s", 0, 0, time.Second},
	{"+0.37s/330ms", 370 * time.Millisecond, 0, 330 * time.Millisecond},
	{"+1.2s/770ms", 1200 * time.Millisecond, 0, 770 * time.Millisecond},
	{"+0.5s/2.5s", 500 * time.Millisecond, 0, 2500 * time.Millisecond},
	{"record 6/250ms", 0, 6, 250 * time.Millisecond},
	{"record 3/500ms", 0, 3, 500 * time.Millisecond},
	{"record 9/1s", 0, 9, time.Second},
}

// canonical prints fetches as internal/oracle's archive.py does.
func canonical(t *testing.T, src *Source, names []string, samples int) string {
	t.Helper()
	ctx := context.Background()
	pmids, errs, err := src.LookupNames(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	var ids []pmapi.PMID
	for i, n := range names {
		if errs[i] == nil {
			kept, ids = append(kept, n), append(ids, pmids[i])
		}
	}
	descs, _, _ := src.Descs(ctx, ids)
	var b strings.Builder
	for range samples {
		res, err := src.Fetch(ctx, ids)
		if errors.Is(err, io.EOF) {
			b.WriteString("EOL\n")
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "T %d.%06d\n", res.Timestamp.Unix(), res.Timestamp.Nanosecond()/1000)
		for i, mv := range res.Metrics {
			switch {
			case mv.Err != nil:
				var pe pmclient.Error
				errors.As(mv.Err, &pe)
				fmt.Fprintf(&b, "%s ERR %d\n", kept[i], int32(pe))
			case len(mv.Values) == 0:
				fmt.Fprintf(&b, "%s NOVALUES\n", kept[i])
			}
			for _, v := range mv.Values {
				fmt.Fprintf(&b, "%s %d %s\n", kept[i], v.Inst, format(descs[i].Type, v))
			}
		}
	}
	return b.String()
}

func format(t pmapi.Type, v pmclient.Value) string {
	switch t {
	case pmapi.Type32, pmapi.Type64:
		return strconv.FormatInt(v.Int, 10)
	case pmapi.TypeU32:
		return strconv.FormatUint(uint64(uint32(v.Uint)), 10)
	case pmapi.TypeU64:
		return strconv.FormatUint(v.Uint, 10)
	case pmapi.TypeFloat, pmapi.TypeDouble:
		return strconv.FormatFloat(v.Float, 'g', -1, 64)
	case pmapi.TypeString:
		return v.String
	}
	return "?"
}

// compare counts the value lines of two canonical outputs and the lines
// that differ (numbers compared as numbers: %.17g round-trips exactly).
func compare(want, got string) (lines, differ int, first string) {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w == "" && g == "" {
			continue
		}
		lines++
		if !sameLine(w, g) {
			differ++
			if first == "" {
				first = fmt.Sprintf("line %d: libpcp %q, ours %q", i+1, w, g)
			}
		}
	}
	return lines, differ, first
}

func sameLine(w, g string) bool {
	if w == g {
		return true
	}
	wf, gf := strings.SplitN(w, " ", 3), strings.SplitN(g, " ", 3)
	if len(wf) != 3 || len(gf) != 3 || wf[0] != gf[0] || wf[1] != gf[1] {
		return false
	}
	a, err1 := strconv.ParseFloat(wf[2], 64)
	b, err2 := strconv.ParseFloat(gf[2], 64)
	return err1 == nil && err2 == nil && (a == b || math.IsNaN(a) && math.IsNaN(b))
}

// TestAgainstLibpcp: every logged metric (counters, instantaneous and
// discrete values of every type, strings, changing and large instance
// domains, a <mark>) fetched in interpolation mode over several windows
// and intervals gives, value for value, what each release's libpcp
// gives: 6.0.3 (the machine's), 5.2.6 (a version 2 archive), 6.3.8 and
// 7.2.2 (the nearer-observation rule).
func TestAgainstLibpcp(t *testing.T) {
	recs := recordtest.Archives(t)
	ctx := context.Background()
	var mu sync.Mutex // the totals, added to by the releases in parallel
	total, differ := 0, 0
	oracle.EachRelease(t, func(t *testing.T, rel oracle.Release) {
		relTotal, relDiffer := 0, 0
		paths := []string{recs.Mixed, recs.Merged, recs.V2}
		if rel.Version.Less(pcpver.V6_0_3) {
			paths = []string{recs.V2} // PCP 5 reads no version 3 archive
		}
		for _, path := range paths {
			a, err := archive.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			end, err := a.End(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range append(windows, acrossMark(t, a)...) {
				origin := a.Start().Add(w.offset)
				if w.atRecord > 0 {
					origin = recordTime(t, a, w.atRecord)
				}
				samples := int(end.Sub(origin)/w.interval) + 3
				want, err := rel.Interpolate(ctx, path, "", recordtest.Logged, origin, w.interval, samples)
				if err != nil {
					t.Fatal(err)
				}
				src, err := New(ctx, a, Options{Origin: origin, Interval: w.interval, Nearest: rel.Version.Has(pcpver.InterpNearest)})
				if err != nil {
					t.Fatal(err)
				}
				got := canonical(t, src, recordtest.Logged, samples)
				src.Close()
				n, d, first := compare(want, got)
				mu.Lock()
				total, differ = total+n, differ+d
				mu.Unlock()
				relTotal, relDiffer = relTotal+n, relDiffer+d
				if d > 0 {
					t.Errorf("%s, %s, %s: %d of %d lines differ; first at %s", rel, pathName(path), w.name, d, n, first)
				}
			}
		}
		t.Logf("%s: %d lines compared, %d differ", rel, relTotal, relDiffer)
	})
	t.Logf("%d lines compared, %d differ", total, differ)
}

// acrossMark is, for an archive with a <mark>, a window whose fetches
// fall between two records before the mark, then between two records
// after it (records of the 250 millisecond group, not pmlogger's
// prologue): counters that had values before have none after it for
// one fetch (libpcp's seen_mark), though values bound them on both sides.
func acrossMark(t *testing.T, a *archive.Archive) []window {
	ids, _, err := a.LookupNames(context.Background(), []string{"sample.milliseconds"})
	if err != nil {
		t.Fatal(err)
	}
	rd := a.Records()
	defer rd.Close()
	var before, after []time.Time
	marked := false
	for {
		rec, err := rd.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Mark {
			marked = true
		}
		for _, m := range rec.Metrics {
			if m.PMID == ids[0] {
				if marked {
					after = append(after, rec.Timestamp)
				} else {
					before = append(before, rec.Timestamp)
				}
			}
		}
	}
	if !marked || len(before) < 2 || len(after) < 2 {
		return nil
	}
	from := before[len(before)-2].Add(before[len(before)-1].Sub(before[len(before)-2]) / 2)
	to := after[0].Add(after[1].Sub(after[0]) / 2)
	return []window{{name: "across the mark", offset: from.Sub(a.Start()).Round(time.Microsecond), interval: to.Sub(from).Round(time.Microsecond)}}
}

func pathName(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// recordTime is the time of an archive's n-th record (from 1).
func recordTime(t *testing.T, a *archive.Archive, n int) time.Time {
	t.Helper()
	rd := a.Records()
	defer rd.Close()
	for i := 1; ; i++ {
		rec, err := rd.Next(context.Background())
		if err != nil {
			t.Fatalf("record %d: %v", n, err)
		}
		if i == n {
			return rec.Timestamp
		}
	}
}

// TestReadingAgainPastTheCaps: with room for almost nothing read ahead,
// fetches read the records again from the archive and give the same
// values.
func TestReadingAgainPastTheCaps(t *testing.T) {
	recs := recordtest.Archives(t)
	ctx := context.Background()
	for _, path := range []string{recs.Mixed, recs.Merged} {
		a, err := archive.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Origin: a.Start().Add(130 * time.Millisecond), Interval: 370 * time.Millisecond}
		roomy, err := New(ctx, a, opts)
		if err != nil {
			t.Fatal(err)
		}
		tight, err := New(ctx, a, opts)
		if err != nil {
			t.Fatal(err)
		}
		tight.maxRecords, tight.maxValues = 2, 40
		want := canonical(t, roomy, recordtest.Logged, 40)
		got := canonical(t, tight, recordtest.Logged, 40)
		if n, d, first := compare(want, got); d > 0 || n < 1000 {
			t.Errorf("%s: %d of %d lines differ; first at %s", pathName(path), d, n, first)
		}
	}
}

// TestSince: times are measured in long double and rounded to a double
// once at the end, as libpcp does; rounding the nanoseconds to a double
// first differs for some.
func TestSince(t *testing.T) {
	start := stamp{1795600698, 488142635}
	if got := since(stamp{1795600699, 488142635}, start); got != 1 {
		t.Errorf("a second: %v", got)
	}
	if got := since(start, stamp{1795600699, 0}); got != -0.511857365 {
		t.Errorf("backwards: %v", got)
	}
	differs := 0
	for ns := int64(0); ns < 200000; ns += 7 {
		a := stamp{1795600700, ns}
		naive := float64(a.sec-start.sec) + float64(a.nsec-start.nsec)/1e9
		if since(a, start) != naive {
			differs++
		}
	}
	if differs == 0 {
		t.Error("no time where double rounding matters: the long double arithmetic is not exercised")
	}
}

// TestAdvance: libpcp carries nanoseconds only above a whole second.
func TestAdvance(t *testing.T) {
	for _, tc := range []struct{ from, step, want stamp }{
		{stamp{10, 500000000}, stamp{0, 500000000}, stamp{10, 1000000000}},
		{stamp{10, 600000000}, stamp{0, 500000000}, stamp{11, 100000000}},
		{stamp{10, 0}, stamp{2, 250000000}, stamp{12, 250000000}},
	} {
		if got := tc.from.advance(tc.step); got != tc.want {
			t.Errorf("%v + %v = %v, want %v", tc.from, tc.step, got, tc.want)
		}
	}
}

// TestCConversions: gcc's double to integer conversions on x86-64.
func TestCConversions(t *testing.T) {
	if cInt32(3.99) != 3 || cInt32(-3.99) != -3 || cInt32(3e9) != math.MinInt32 || cInt32(math.NaN()) != math.MinInt32 {
		t.Error("cInt32")
	}
	if cUint32(4294967295.5) != 4294967295 || cUint32(-1) != 4294967295 || cUint32(5e9) != uint32(5000000000&0xffffffff) {
		t.Error("cUint32")
	}
	if cInt64(1e19) != math.MinInt64 || cInt64(-2.5) != -2 {
		t.Error("cInt64")
	}
	if cUint64(1.5e19) != 15000000000000000000 || cUint64(-1) != math.MaxUint64 || cUint64(math.NaN()) != 1<<63 {
		t.Error("cUint64")
	}
}

// TestInstanceOrder: libpcp's hash table order, bucket by bucket (ID
// modulo the count), later additions first within a bucket, the newest
// instance domain's instances added first.
func TestInstanceOrder(t *testing.T) {
	h := archive.HistoryOf([]archive.InDomSnapshot{
		{Instances: []pmclient.Instance{{ID: 1}, {ID: 10}}},
		{Instances: []pmclient.Instance{{ID: 5}, {ID: 15}, {ID: 100}}},
	})
	// Added 5, 15, 100, 1, 10; five buckets: 0 holds 5, 15, 100, 10
	// (latest first: 10, 100, 15, 5), 1 holds 1.
	want := []int32{10, 100, 15, 5, 1}
	if got := instances(h); !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}
