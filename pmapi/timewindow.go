package pmapi

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// TimeWindow is the part of an archive a PCP tool reports on: from Start
// to End, the first sample at Origin (pmParseTimeWindow's results).
type TimeWindow struct {
	Start, End, Origin time.Time
}

// TimeError is a time or time window argument that could not be used.
type TimeError struct {
	Flag, Spec, Why string
}

func (e *TimeError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Flag, e.Spec, e.Why)
}

// timeForms is what every time error says can be given.
const timeForms = "want an interval from the start (30sec, +1min 30sec), from the end (-10min), " +
	"or @ and a date and time (@09:58, @13:07:47.5, @Nov 25, @Wed Nov 25 09:58:20 2026, @2026-11-25 09:58:20, @25 Nov 2026 9:58pm); " +
	"times relative to now (yesterday, 2 hours ago) are not read"

// ParseTimeWindow resolves the -S (start), -T (end), -A (align) and -O
// (origin) arguments of a PCP tool, "" when not given, against the
// bounds of an archive (first: its label's time; last: its last
// record's), as pmParseTimeWindow does: -S and -O from the start, -T from
// the (new) start, each "-interval" back from the end; the window is
// kept inside the archive and the origin inside the window. A date and
// time (@...) is read in loc. warning is set when -A could not be
// applied (the window is returned unaligned then, as libpcp does).
func ParseTimeWindow(start, end, align, origin string, first, last time.Time, loc *time.Location) (w TimeWindow, warning string, err error) {
	w.Start, w.End = first, last
	if start != "" {
		if w.Start, err = ParseTime("-S", start, first, last, loc); err != nil {
			return w, "", err
		}
	}
	if w.Start.Before(first) {
		w.Start = first
	}
	var step time.Duration
	if align != "" {
		if step, err = ParseInterval(align); err != nil || step <= 0 {
			return w, "", &TimeError{"-A", align, "want an interval more than zero to align on (1sec, 30min, 1hour)"}
		}
		if a := alignUp(w.Start, step); !a.Before(first) && !a.After(last) {
			w.Start = a
		} else {
			warning = fmt.Sprintf("-A %s: the aligned start would be outside the archive; not aligned", align)
		}
	}
	if end != "" {
		if w.End, err = ParseTime("-T", end, w.Start, last, loc); err != nil {
			return w, "", err
		}
	}
	if w.End.After(last) {
		w.End = last
	}
	w.Origin = w.Start
	if origin != "" {
		if w.Origin, err = ParseTime("-O", origin, w.Start, w.End, loc); err != nil {
			return w, "", err
		}
		if w.Origin.Before(w.Start) {
			w.Origin = w.Start
		} else if w.Origin.After(w.End) {
			w.Origin = w.End
		}
		if align != "" {
			a := alignUp(w.Origin, step)
			if a.After(w.End) {
				a = a.Add(-step)
			}
			if !a.Before(w.Start) && !a.After(w.End) {
				w.Origin = a
			} else {
				warning = fmt.Sprintf("-A %s: the aligned origin would be outside the window; not aligned", align)
			}
		}
	}
	return w, warning, nil
}

// alignUp is t moved forwards to a whole multiple of step since the
// epoch (unchanged when it is one).
func alignUp(t time.Time, step time.Duration) time.Time {
	ns := t.UnixNano()
	b := ns / int64(step) * int64(step)
	if b < ns {
		b += int64(step)
	}
	return time.Unix(0, b)
}

// ParseTime reads one time argument as __pmParseHighResTime does:
// "@" and a date and time, "-interval" back from end, or "interval" or
// "+interval" on from start. flag names the option in errors.
//
// Dates and times are the forms pmParseCtime reads ([weekday] [month]
// [day] [hh:mm[:ss[.frac]]] [am|pm] [year], the missing high fields
// taken from start) and the absolute dates of PCPIntro(1) that libpcp
// leaves to its getdate(3) fallback: YYYY-MM-DD, MM/DD/YY[YY] and DD
// Month YYYY, each with an optional time. getdate's phrases relative to
// the current time ("yesterday", "2 hours ago", a bare "@13" or "@Wed")
// are not read: they mean little for an archive, and the error says
// what is read instead.
func ParseTime(flag, spec string, start, end time.Time, loc *time.Location) (time.Time, error) {
	s := strings.TrimLeft(spec, " \t\n\v\f\r")
	switch {
	case strings.HasPrefix(s, "@"):
		body := strings.TrimLeft(s[1:], " \t\n\v\f\r")
		tm, err := parseCtime(body)
		if err == nil {
			return tm.resolve(start, loc), nil
		}
		if t, ok := parseDate(body, loc); ok {
			return t, nil
		}
		return time.Time{}, &TimeError{flag, spec, err.Error() + "; " + timeForms}
	case strings.HasPrefix(s, "-"):
		d, err := ParseInterval(s[1:])
		if err != nil {
			return time.Time{}, &TimeError{flag, spec, "not an interval back from the end; " + timeForms}
		}
		return end.Add(-d), nil
	}
	d, err := ParseInterval(strings.TrimPrefix(s, "+"))
	if err != nil {
		if t, ok := parseDate(s, loc); ok {
			return t, nil // libpcp's getdate fallback reads a date without the @ too
		}
		return time.Time{}, &TimeError{flag, spec, timeForms}
	}
	return start.Add(d), nil
}

// The absolute dates getdate(3) reads (PCPIntro's list), each with an
// optional time of day.
var (
	isoDate   = regexp.MustCompile(`^(\d{4}|\d{2})-(\d{1,2})-(\d{1,2})`)
	usDate    = regexp.MustCompile(`^(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})`)
	dmyDate   = regexp.MustCompile(`^(\d{1,2})\s+([A-Za-z]{3,})\.?\s+(\d{4})`)
	timeOfDay = regexp.MustCompile(`^(?:[ \t]+|T)(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?(?:\s*([AaPp][Mm]))?`)
)

// parseDate reads one of getdate's absolute forms in loc.
func parseDate(s string, loc *time.Location) (time.Time, bool) {
	s = strings.TrimRight(s, " \t\n\v\f\r")
	atoi := func(x string) int { v, _ := strconv.Atoi(x); return v }
	var year, mon, day int
	var rest string
	switch m := isoDate.FindStringSubmatch(s); {
	case m != nil:
		year, mon, day, rest = atoi(m[1]), atoi(m[2]), atoi(m[3]), s[len(m[0]):]
		if len(m[1]) == 2 {
			year = twoDigitYear(year)
		}
	default:
		if m := usDate.FindStringSubmatch(s); m != nil {
			mon, day, year, rest = atoi(m[1]), atoi(m[2]), atoi(m[3]), s[len(m[0]):]
			if len(m[3]) == 2 {
				year = twoDigitYear(year)
			}
		} else if m := dmyDate.FindStringSubmatch(s); m != nil {
			name := strings.ToLower(m[2])
			for i, mn := range months {
				if strings.HasPrefix(name, mn) && strings.HasPrefix(monthNames[i], name) {
					mon = i + 1
				}
			}
			day, year, rest = atoi(m[1]), atoi(m[3]), s[len(m[0]):]
		} else {
			return time.Time{}, false
		}
	}
	hour, minute, sec, nsec := 0, 0, 0, 0
	if rest != "" {
		m := timeOfDay.FindStringSubmatch(rest)
		if m == nil || len(m[0]) != len(rest) {
			return time.Time{}, false
		}
		hour, minute = atoi(m[1]), atoi(m[2])
		if m[3] != "" {
			f, _ := strconv.ParseFloat(m[3], 64)
			sec = int(f)
			nsec = int(math.Round((f - float64(sec)) * 1e9))
		}
		switch strings.ToLower(m[4]) {
		case "am", "pm":
			if hour < 1 || hour > 12 {
				return time.Time{}, false
			}
			if hour == 12 {
				hour = 0
			}
			if strings.ToLower(m[4]) == "pm" {
				hour += 12
			}
		}
	}
	if mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 60 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(mon), day, hour, minute, sec, nsec, loc), true
}

// twoDigitYear is getdate's century: 69 to 99 are 1969 to 1999, 0 to 68
// are 2000 to 2068.
func twoDigitYear(y int) int {
	if y < 69 {
		return 2000 + y
	}
	return 1900 + y
}

var monthNames = []string{"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december"}

// ctime is what __pmParseCtime fills in: -1 for a field not given (and
// not defaulted: fields below the highest one given default to their
// lowest value).
type ctime struct {
	year, mon, mday, hour, min, sec, nsec int
}

var (
	weekdays = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}
	months   = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
)

// ctimeScan reads a date and time the way rtime.c's helpers do.
type ctimeScan struct {
	s   string
	pos int
}

func (c *ctimeScan) skipSpace() {
	for c.pos < len(c.s) && isSpace(c.s[c.pos]) {
		c.pos++
	}
}

// word3 recognises a word by its first three letters (parse3char).
func (c *ctimeScan) word3(words []string) (int, bool) {
	c.skipSpace()
	end := c.pos
	for end < len(c.s) && end-c.pos < 3 && isLetter(c.s[end]) {
		end++
	}
	if end == c.pos {
		return -1, false
	}
	w := strings.ToLower(c.s[c.pos:end])
	for i, x := range words {
		if w == x {
			c.pos = end
			return i, true
		}
	}
	return -1, false
}

// integer reads a decimal integer in [lo, hi] (parseInt).
func (c *ctimeScan) integer(lo, hi int) (int, bool) {
	c.skipSpace()
	m := leadingInteger.FindString(c.s[c.pos:])
	if m == "" {
		return 0, false
	}
	v, err := strconv.Atoi(m)
	if err != nil || v < lo || v > hi {
		return 0, false
	}
	c.pos += len(m)
	return v, true
}

var leadingInteger = regexp.MustCompile(`^[+-]?[0-9]+`)

func (c *ctimeScan) char(ch byte) bool {
	c.skipSpace()
	if c.pos < len(c.s) && c.s[c.pos] == ch {
		c.pos++
		return true
	}
	return false
}

// parseCtime is __pmParseCtime: [weekday] [month] [day] [hour[:min[:sec]]]
// [am|pm] [year], every part optional, the low ones defaulting once a
// higher one is given.
func parseCtime(s string) (ctime, error) {
	tm := ctime{-1, -1, -1, -1, -1, -1, 0}
	c := &ctimeScan{s: s}
	_, weekday := c.word3(weekdays)
	if mon, ok := c.word3(months); ok {
		tm.mon = mon
	}
	if v, ok := c.integer(0, 31); ok {
		tm.mday = v
	}
	if v, ok := c.integer(0, 23); ok {
		tm.hour = v
	}
	if tm.mday == 0 && tm.hour != -1 {
		tm.mday = -1
	}
	if tm.hour == -1 && tm.mday >= 0 && tm.mday <= 23 && (tm.mon == -1 || (c.pos < len(c.s) && c.s[c.pos] == ':')) {
		tm.hour, tm.mday = tm.mday, -1
	}
	if c.char(':') {
		if tm.hour == -1 {
			tm.hour = 0
		}
		tm.min = 0
		if v, ok := c.integer(0, 59); ok {
			tm.min = v
		}
		if c.char(':') {
			c.skipSpace()
			if m := leadingFloat.FindString(c.s[c.pos:]); m != "" {
				if d, err := strconv.ParseFloat(m, 64); err == nil && d >= 0 && d <= 61 {
					c.pos += len(m)
					tm.sec = int(d)
					tm.nsec = int((d - float64(tm.sec)) * 1e9)
				}
			}
		}
	}
	save := c.pos
	if ampm, ok := c.word3([]string{"am", "pm"}); ok {
		switch {
		case tm.hour > 12 || tm.hour == -1:
			c.pos = save
		case ampm == 1 && tm.hour < 12:
			tm.hour += 12
		case ampm == 0 && tm.hour == 12:
			tm.hour = 0
		}
	}
	if v, ok := c.integer(1900, 9999); ok {
		tm.year = v
	}
	c.skipSpace()
	if c.pos < len(c.s) {
		return tm, fmt.Errorf("unexpected %q at offset %d", c.s[c.pos:], c.pos+1)
	}
	if (weekday && tm.mon == -1 && tm.mday == -1) ||
		(tm.hour != -1 && tm.min == -1 && tm.mday == -1 && tm.mon == -1 && tm.year == -1) {
		return tm, fmt.Errorf("more information expected")
	}
	dflt := tm.year != -1
	fill := func(f *int, low int) {
		if *f != -1 {
			dflt = true
		} else if dflt {
			*f = low
		}
	}
	fill(&tm.mon, 0)
	fill(&tm.mday, 1)
	fill(&tm.hour, 0)
	fill(&tm.min, 0)
	if tm.sec == -1 && dflt {
		tm.sec, tm.nsec = 0, 0
	}
	return tm, nil
}

var leadingFloat = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?`)

// resolve is __pmConvertHighResTime for an absolute time: a year makes
// it complete; otherwise the fields missing above the highest one given
// come from origin, moved on to the next time that matches (@10:00 after
// a start at 13:07 is 10:00 the next day).
func (tm ctime) resolve(origin time.Time, loc *time.Location) time.Time {
	if tm.year != -1 {
		return time.Date(tm.year, time.Month(tm.mon+1), tm.mday, tm.hour, tm.min, tm.sec, tm.nsec, loc)
	}
	o := origin.In(loc)
	year, mon, mday, hour, minute, sec := o.Year(), int(o.Month())-1, o.Day(), o.Hour(), o.Minute(), o.Second()
	nsec := o.Nanosecond()
	switch {
	case tm.mon != -1:
		if tm.mon < mon {
			year++
		}
		mon, mday, hour, minute, sec, nsec = tm.mon, tm.mday, tm.hour, tm.min, tm.sec, tm.nsec
	case tm.mday != -1:
		if tm.mday < mday {
			mon++
		}
		mday, hour, minute, sec, nsec = tm.mday, tm.hour, tm.min, tm.sec, tm.nsec
	case tm.hour != -1:
		if tm.hour < hour {
			mday++
		}
		hour, minute, sec, nsec = tm.hour, tm.min, tm.sec, tm.nsec
	case tm.min != -1:
		if tm.min < minute {
			hour++
		}
		minute, sec, nsec = tm.min, tm.sec, tm.nsec
	case tm.sec != -1:
		if tm.sec < sec {
			minute++
		}
		sec, nsec = tm.sec, tm.nsec
	}
	return time.Date(year, time.Month(mon+1), mday, hour, minute, sec, nsec, loc)
}
