package pmapi

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
)

// timeWindowCases are -S, -T, -A and -O arguments as PCP admins write
// them, and mistakes.
var timeWindowCases = [][4]string{
	{"", "", "", ""},
	{"30sec", "", "", ""},
	{"+1min 30sec", "2h", "", ""},
	{"-1hour", "", "", ""},
	{"", "-90m", "", ""},
	{"", "-0", "", ""},
	{"10min", "-1day", "", ""},
	{"@13:10", "", "", ""},
	{"@10:00", "", "", ""},
	{"@ 14:00:05.5", "@15:30", "", ""},
	{"@13:07:47.75", "", "", ""},
	{"@1:30pm", "", "", ""},
	{"@12:15 am", "", "", ""},
	{"@Mar 5", "", "", ""},
	{"@Mar 5 2026", "", "", ""},
	{"@5 Mar 2026", "", "", ""},
	{"@Wed Mar  4 13:07:50 2026", "@Thu Mar  5 09:00:00 2026", "", ""},
	{"@Mar 4 13:30", "", "", ""},
	{"@25", "", "", ""},
	{"@6", "", "", ""},
	{"@2026-03-05 10:00:00", "", "", ""},
	{"@2026-03-05", "", "", ""},
	{"@2026-03-04 14:00", "@2026-03-06 01:02:03", "", ""},
	{"@5 Mar 2026 10:00", "", "", ""},
	{"@5 March 2026 1:15 pm", "", "", ""},
	{"@03/05/26", "", "", ""},
	{"@03/05/2026 13:30:00", "", "", ""},
	{"26-03-05 09:00", "", "", ""},
	{"2026-03-05 09:00", "", "", ""},
	{"", "", "", "-0"},
	{"", "", "", "@14:00"},
	{"1hour", "", "", "+5min"},
	{"", "", "", "-1day"},
	{"", "", "1min", ""},
	{"", "", "1hour", ""},
	{"5min", "", "15min", "+7min"},
	{"", "", "1day", ""},
	{"", "", "30 days", ""},
	{"@Mar", "", "", ""},
	{"@13", "", "", ""},
	{"@Wed", "", "", ""},
	{"@nonsense", "", "", ""},
	{"yesterday", "", "", ""},
	{"@yesterday", "", "", ""},
	{"2 hours ago", "", "", ""},
	{"xyz", "", "", ""},
	{"-abc", "", "", ""},
	{"", "@Feb 30", "", ""},
	{"", "", "0", ""},
}

// unsupported are getdate(3) phrases libpcp reads relative to the
// current time; ours refuses them.
var unsupported = map[string]bool{"@6": true, "@13": true, "@Wed": true, "yesterday": true, "@yesterday": true, "2 hours ago": true}

// TestTimeWindowAgainstLibpcp: every case resolves to what libpcp's
// pmParseTimeWindow gives, in three time zones (one without daylight
// saving, two with), or fails where it fails.
func TestTimeWindowAgainstLibpcp(t *testing.T) {
	oracle.ReleasesFor(t) // fails when the oracles are missing; skips only when asked to
	host := oracle.Host() // pmParseTimeWindow through python3-pcp
	ctx := context.Background()
	for _, tz := range []string{"UTC", "Australia/Melbourne", "America/New_York"} {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			t.Fatal(err)
		}
		first := time.Date(2026, 3, 4, 13, 7, 47, 250000000, loc)
		last := first.Add(2*24*time.Hour + 3*time.Hour + 500*time.Microsecond)
		want, err := host.TimeWindows(ctx, first, last, tz, timeWindowCases)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range timeWindowCases {
			w, warning, err := ParseTimeWindow(c[0], c[1], c[2], c[3], first, last, loc)
			got := "ERR"
			if err == nil {
				kind := "OK"
				if warning != "" {
					kind = "WARN"
				}
				us := func(t time.Time) string { return fmt.Sprintf("%d.%06d", t.Unix(), t.Nanosecond()/1000) }
				got = fmt.Sprintf("%s %s %s %s", kind, us(w.Start), us(w.End), us(w.Origin))
			}
			if unsupported[c[0]] && err != nil {
				continue // libpcp reads it relative to the current time
			}
			if got != want[i] {
				t.Errorf("%s: -S %q -T %q -A %q -O %q: libpcp %s, ours %s (%v)", tz, c[0], c[1], c[2], c[3], want[i], got, err)
			}
		}
	}
}

// TestTimeErrorsSayWhatIsRead: a time that cannot be read names the
// option and the forms that can.
func TestTimeErrorsSayWhatIsRead(t *testing.T) {
	first := time.Date(2026, 3, 4, 13, 7, 47, 0, time.UTC)
	_, _, err := ParseTimeWindow("yesterday", "", "", "", first, first.Add(time.Hour), time.UTC)
	if err == nil || err.Error() != `-S "yesterday": `+timeForms {
		t.Errorf("error %v", err)
	}
	_, _, err = ParseTimeWindow("", "@Wed", "", "", first, first.Add(time.Hour), time.UTC)
	if err == nil || err.Error() != `-T "@Wed": more information expected; `+timeForms {
		t.Errorf("error %v", err)
	}
}

// FuzzParseTimeWindow: any arguments give a window inside the archive or
// an error, never a panic.
func FuzzParseTimeWindow(f *testing.F) {
	for _, c := range timeWindowCases {
		f.Add(c[0], c[1], c[2], c[3])
	}
	first := time.Date(2026, 3, 4, 13, 7, 47, 250000000, time.UTC)
	last := first.Add(51 * time.Hour)
	f.Fuzz(func(t *testing.T, start, end, align, origin string) {
		w, _, err := ParseTimeWindow(start, end, align, origin, first, last, time.UTC)
		if err != nil {
			return
		}
		if w.Start.Before(first) || w.End.After(last) {
			t.Errorf("-S %q -T %q -A %q -O %q: window %v to %v outside %v to %v", start, end, align, origin, w.Start, w.End, first, last)
		}
	})
}
