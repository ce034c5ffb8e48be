package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive/interp"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/report"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf"
)

const evalAbout = `Computes derived metric values as libpcp would and prints them like pmrep:
a row per sample, a column per metric and instance, in the order the NAMEs
are given (all the config's definitions when none are). A NAME the config
does not define may be any metric of the source (a plain metric, fetched
directly); in a pmrep or pcp-dstat file, SECTION:KEY names a spec.

From pmcd: a sample every -t INTERVAL until interrupted (or -s N samples,
or the -T time). From an archive: libpcp's interpolation, as pmval -a and
pmrep -a fetch (counters interpolated, instantaneous values the nearest
observation as the release does), every -t INTERVAL over the -S/-T time
window from the -O origin; --replay goes record by record instead (pmval
-U, pmrep -u). Counters are shown as rates per second, as pmval shows them
(--raw for the counts).

Times (-S, -T, -O) as PCP tools read them: 30sec or +30sec from the start,
-10min back from the end, @13:07, @Nov 25 13:07:47.5, @2026-11-25 13:07:47.
Exit status: 0 done, 2 usage errors (a NAME that is neither defined nor a
metric, an archive that does not exist, a config with nothing to evaluate).`

// evalFlags are eval's options.
type evalFlags struct {
	samples                      int
	interval                     string
	start, finish, origin, align string
	replay, raw, hostZone        bool
	zone                         string
	format                       string
	precision, width             int
}

func (f *evalFlags) register(fs *flag.FlagSet) {
	f.interval = "1sec"
	for _, name := range []string{"s", "samples"} {
		fs.IntVar(&f.samples, name, 0, "stop after `N` samples (0: until interrupted, or the end of the archive's time window)")
	}
	for _, name := range []string{"t", "interval"} {
		fs.Func(name, "time between samples, in PCP's `INTERVAL` syntax: 0.5, 2sec, 1min 30sec (default 1sec)", func(s string) error {
			if _, err := pmapi.ParseInterval(s); err != nil {
				return err
			}
			f.interval = s
			return nil
		})
	}
	for _, o := range []struct {
		short, long string
		v           *string
		help        string
	}{
		{"S", "start", &f.start, "archive: start the time window at `TIME` (default the archive's start)"},
		{"T", "finish", &f.finish, "end the time window at `TIME` (archive: default its end; pmcd: stop then)"},
		{"O", "origin", &f.origin, "archive: take the first sample at `TIME` in the window (default its start)"},
		{"A", "align", &f.align, "archive: align the start (and origin) on a multiple of `TIME`, an interval (1sec, 1min)"},
	} {
		fs.StringVar(o.v, o.short, "", o.help)
		fs.StringVar(o.v, o.long, "", "same as -"+o.short+" `TIME`")
	}
	fs.BoolVar(&f.replay, "replay", false, "archive: every record in time order instead of interpolated samples (-t does not apply)")
	for _, name := range []string{"r", "raw"} {
		fs.BoolVar(&f.raw, name, false, "show counters as counted, not as rates per second")
	}
	fs.BoolVar(&f.hostZone, "z", false, "archive: show and read times in the archive's time zone")
	for _, name := range []string{"Z", "timezone"} {
		fs.StringVar(&f.zone, name, "", "show and read times in time zone `TZ` (an IANA name, e.g. UTC, Europe/Berlin)")
	}
	fs.StringVar(&f.format, "format", "table", "output `FORMAT`: table (pmrep's layout), text (a line per value), csv, json (one object per sample) or pminfo (as pminfo -f prints)")
	f.precision = -1
	for _, name := range []string{"P", "precision"} {
		fs.Func(name, "`DIGITS` after the point for rates and floating point values (default 3 in tables; full precision in csv, json and text)", func(s string) error {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || n > 17 {
				return fmt.Errorf("want a number of digits from 0 to 17")
			}
			f.precision = n
			return nil
		})
	}
	for _, name := range []string{"w", "width"} {
		fs.IntVar(&f.width, name, 0, "table columns at least `N` characters wide")
	}
}

func runEval(ctx context.Context, env Env, args []string) int {
	fs := newFlags(env, "eval", "[flags] CONFIG [NAME...]", evalAbout)
	var version versionFlag
	version.register(fs)
	var opts evalFlags
	opts.register(fs)
	var kindOpt kindFlag
	kindOpt.register(fs)
	var src sourceFlags
	src.register(fs, forValues)
	fs.StringVar(&src.spec.Archive, "a", "", "values from a PCP `ARCHIVE` (same as --archive)")
	operands, status, done := parseFlags(fs, env, args)
	if done {
		return status
	}
	if len(operands) == 0 {
		fs.Usage()
		return ExitUsage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp eval: "+format+"\n", a...)
		return ExitUsage
	}
	kind, ok := kindOpt.resolve(env, "eval")
	if !ok {
		return ExitUsage
	}
	if msg := opts.check(); msg != "" {
		return fail("%s", msg)
	}
	if opts.format != "json" {
		// Names, instances and string values are input: nothing of them
		// reaches a terminal as a control sequence.
		esc := report.NewEscaper(env.Stdout)
		defer esc.Flush()
		env.Stdout = esc
	}
	config, names := operands[0], unique(operands[1:])
	interval, _ := pmapi.ParseInterval(opts.interval)
	source, err := src.open(ctx, env)
	if err != nil {
		return fail("%v", err)
	}
	arch, fromArchive := source.(*archive.Archive)
	if msg := opts.checkLive(fromArchive); msg != "" {
		return fail("%s", msg)
	}
	loc, err := opts.location(arch)
	if err != nil {
		return fail("%v", err)
	}
	choice, vok := version.resolve(ctx, env, "eval", source)
	if !vok {
		return ExitUsage
	}
	rep, plain, names, ok := loadEvalConfig(ctx, env, &src, source, choice.Version, config, names, kind)
	if !ok {
		return ExitUsage
	}
	plan, err := planSamples(ctx, opts, source, arch, choice.Version, interval, loc)
	if err != nil {
		return fail("%v", err)
	}
	if plan.warning != "" {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp eval: warning: %s\n", plan.warning)
	}
	ev, err := evaluator.New(ctx, plan.src, rep)
	if err != nil {
		return fail("%v", err)
	}
	if c, ok := plan.src.(io.Closer); ok && plan.src != source {
		defer c.Close()
	}
	fmt.Fprintf(env.Stderr, "# values from %s%s; %s\n", source.Describe(), plan.describe, choice)
	return evalSamples(ctx, env, evalRun{opts: opts, plan: plan, ev: ev, loc: loc, interval: interval, names: names, plain: plain})
}

// check is what is wrong with eval's flags on their own, "" for nothing.
func (o evalFlags) check() string {
	switch o.format {
	case "table", "text", "csv", "json", "pminfo":
	default:
		return fmt.Sprintf("--format %q: want table, text, csv, json or pminfo", o.format)
	}
	if o.samples < 0 {
		return fmt.Sprintf("-s %d: want a number of samples (0: until interrupted or the window's end)", o.samples)
	}
	if interval, _ := pmapi.ParseInterval(o.interval); interval <= 0 {
		return fmt.Sprintf("interval %q: must be more than zero", o.interval)
	}
	return ""
}

// checkLive refuses the flags that apply to archives only when values
// come from elsewhere; "" when none is given.
func (o evalFlags) checkLive(fromArchive bool) string {
	if fromArchive {
		return ""
	}
	for _, w := range []struct{ flag, v string }{{"-S", o.start}, {"-O", o.origin}, {"-A", o.align}} {
		if w.v != "" {
			return fmt.Sprintf("%s applies to archives (values from pmcd start now)", w.flag)
		}
	}
	if o.replay || o.hostZone {
		return "--replay and -z apply to archives"
	}
	return ""
}

// evalRun is one eval's sampling: what to take, from where, and how to
// name and show the values.
type evalRun struct {
	opts     evalFlags
	plan     samplePlan
	ev       *evaluator.Evaluator
	loc      *time.Location
	interval time.Duration
	names    []string          // the NAMEs asked for, in their order
	plain    map[string]string // eval's definitions of plain metrics, to the metrics' names
}

// count is how many samples to take; -1 until interrupted, the end of
// the window or of the archive.
func (r evalRun) count() int {
	switch {
	case r.opts.samples > 0:
		return r.opts.samples
	case r.opts.format == "pminfo" && r.plan.live:
		// As pminfo -f: one fetch, two when a value needs a previous one.
		for _, m := range r.ev.Metrics() {
			if strings.Contains(m.Def.Expr, "rate(") || strings.Contains(m.Def.Expr, "delta(") {
				return 2
			}
		}
		return 1
	case r.plan.samples >= 0:
		return r.plan.samples
	}
	return -1
}

// evalSamples takes the run's samples and writes each one.
func evalSamples(ctx context.Context, env Env, r evalRun) int {
	n := r.count()
	var rates *counterRates
	if !r.opts.raw && r.opts.format != "pminfo" {
		rates = newCounterRates()
	}
	out := newSampleWriter(env, r.opts, r.loc, r.ev, r.plan.src, r.plan.live)
	defer out.flush()
	progress := newProgress(env.Stderr)
	defer progress.clear()
	for i := 0; n < 0 || i < n; i++ {
		if ctx.Err() != nil {
			return ExitOK // interrupted
		}
		if i > 0 && r.plan.live {
			progress.show(fmt.Sprintf("sample %d of %s, next in %v (Ctrl-C stops)", i, countText(n), r.interval))
			select {
			case <-ctx.Done():
				return ExitOK
			case <-time.After(r.interval):
			}
			progress.clear()
		}
		s, err := r.ev.Sample(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp eval: sample %d: %v\n", i+1, err)
			if !r.plan.live {
				return ExitUsage
			}
			continue
		}
		if !r.plan.end.IsZero() && s.Timestamp.After(r.plan.end) {
			break // past the window (a record replayed, or pmcd's -T)
		}
		for j := range s.Results {
			if p, ok := r.plain[s.Results[j].Name]; ok {
				s.Results[j].Name = p
			}
		}
		s.Results = ordered(s.Results, r.names)
		var rated map[string]bool
		if rates != nil {
			rated = rates.convert(s)
		}
		if r.opts.format == "pminfo" && r.plan.live && i != n-1 {
			continue // pminfo -f prints the last fetch only
		}
		if err := out.write(s, rated); err != nil {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp eval: %v\n", err)
			return ExitUsage
		}
	}
	return ExitOK
}

// location is the time zone times are read and shown in: -Z, -z (the
// archive's), else the local one.
func (o evalFlags) location(arch *archive.Archive) (*time.Location, error) {
	switch {
	case o.zone != "":
		loc, err := time.LoadLocation(o.zone)
		if err != nil {
			return nil, fmt.Errorf("-Z %s: %v (want an IANA time zone name, e.g. UTC or Europe/Berlin)", o.zone, err)
		}
		return loc, nil
	case o.hostZone:
		l := arch.Label()
		for _, name := range []string{strings.TrimPrefix(l.Zoneinfo, ":"), l.TZ} {
			if name == "" {
				continue
			}
			if loc, err := time.LoadLocation(name); err == nil {
				return loc, nil
			}
		}
		return nil, fmt.Errorf("-z: the archive's time zone %q is not one this system knows (give -Z)", l.TZ)
	}
	return time.Local, nil
}

// samplePlan is where samples come from and how many there are.
type samplePlan struct {
	src      pmclient.Source // what the evaluator fetches from
	samples  int             // -1: no set number
	live     bool            // samples are taken every interval, waiting
	end      time.Time       // samples after this are not shown (zero: none)
	describe string          // for the header line
	warning  string          // -A could not be applied (as libpcp, go on unaligned)
}

// planSamples places the samples: from pmcd every interval until -T; from
// an archive interpolated over the time window (pmParseTimeWindow's) or,
// with --replay, its records inside the window.
func planSamples(ctx context.Context, o evalFlags, source pmclient.Source, arch *archive.Archive, v pcpver.Version, interval time.Duration, loc *time.Location) (samplePlan, error) {
	if arch == nil {
		p := samplePlan{src: source, samples: -1, live: true}
		if o.finish != "" {
			now := time.Now()
			end, err := pmapi.ParseTime("-T", o.finish, now, now.AddDate(100, 0, 0), loc)
			if err != nil {
				return p, err
			}
			p.end = end
			p.describe = ", until " + end.In(loc).Format("15:04:05.000")
		}
		return p, nil
	}
	last, err := arch.End(ctx)
	if err != nil {
		return samplePlan{}, err
	}
	w, warning, err := pmapi.ParseTimeWindow(o.start, o.finish, o.align, o.origin, arch.Start(), last, loc)
	if err != nil {
		return samplePlan{}, err
	}
	span := fmt.Sprintf(" from %s to %s", w.Origin.In(loc).Format("15:04:05.000"), w.End.In(loc).Format("15:04:05.000"))
	if o.replay {
		if err := arch.ReplayFrom(ctx, w.Origin); err != nil {
			return samplePlan{}, err
		}
		return samplePlan{src: arch, samples: -1, end: w.End, describe: ", record by record" + span, warning: warning}, nil
	}
	samples := 0
	if !w.End.Before(w.Origin) {
		// pmval's count: the whole intervals in the window, plus the first.
		samples = int(float64(w.End.Sub(w.Origin))/float64(interval)) + 1
	}
	src, err := interp.New(ctx, arch, interp.Options{Origin: w.Origin, Interval: interval, Nearest: v.Has(pcpver.InterpNearest)})
	if err != nil {
		return samplePlan{}, err
	}
	return samplePlan{src: src, samples: samples, warning: warning,
		describe: fmt.Sprintf(", interpolated every %v%s (%s)", interval, span, plural(samples, "sample"))}, nil
}

// loadEvalConfig checks the config, with a definition added for each NAME
// it does not define that is a metric of the source (plain metrics, so
// that eval shows them beside derived ones); plain maps those
// definitions' names back to the metrics'. A NAME may be a spec of a
// pmrep or pcp-dstat file, SECTION:KEY: names are the NAMEs with those
// replaced by the metrics' names. Problems are reported; ok is false
// when eval cannot go on.
func loadEvalConfig(ctx context.Context, env Env, src *sourceFlags, source pmclient.Source, v pcpver.Version, config string, names []string, kind toolconf.Kind) (rep *checker.Report, plain map[string]string, _ []string, ok bool) {
	res, ok := load(ctx, env, "eval", src, source, v, []string{config}, loadOptions{kind: kind})
	if res == nil || !ok {
		return nil, nil, nil, false
	}
	rep, names = oneReport(res), unique(selectNames(res, names))
	if rep == nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp eval: %s: more than one config path (each pmrep, pcp-dstat or pcp-htop file is one of its own): name one file\n", config)
		return nil, nil, nil, false
	}
	var undefined []string
	for _, n := range names {
		if _, defined := rep.ByName.Lookup(n); !defined {
			undefined = append(undefined, n)
		}
	}
	if len(undefined) > 0 {
		found, err := pmclient.Resolve(ctx, source, undefined)
		if err != nil {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp eval: %v\n", err)
			return nil, nil, nil, false
		}
		known := map[string]bool{}
		for _, r := range found {
			known[r.Name] = true
		}
		var defs strings.Builder
		plain = map[string]string{}
		for i, n := range undefined {
			if !known[n] {
				fmt.Fprintf(env.Stderr, "pcp-derive-lsp eval: %s: not defined in %s and not a metric in %s\n", n, config, source.Describe())
				return nil, nil, nil, false
			}
			def := fmt.Sprintf("pcp_derive_lsp_eval.plain%d", i)
			plain[def] = n
			fmt.Fprintf(&defs, "%s = %s\n", def, n)
		}
		in := analysis.Input{Path: "(command line)", Src: []byte(defs.String()), Kind: toolconf.Derived}
		opts := loadOptions{kind: kind, extra: []analysis.Input{in}}
		if res.Report == nil || res.Files[0].ToolFile() {
			opts = loadOptions{kind: kind, before: []analysis.Input{in}} // a tool's file is a config path of its own
		}
		rep, ok = loadChecked(ctx, env, "eval", src, source, v, []string{config}, opts)
		if rep == nil || !ok {
			return nil, nil, nil, false
		}
	}
	asked := map[string]bool{}
	for _, n := range names {
		asked[n] = true
	}
	valid := 0
	for m := range rep.Metrics.Values() {
		name := m.Def.Name
		if p, ok := plain[name]; ok {
			name = p
		} else if len(names) > 0 && !asked[name] {
			continue
		}
		if m.Status != checker.Valid {
			fmt.Fprintf(env.Stderr, "%s: not evaluated: %s: %s\n", name, m.Status, problemText(m))
			continue
		}
		valid++
	}
	if valid == 0 {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp eval: no definition in %s can be evaluated (run check for details)\n", config)
		return nil, nil, nil, false
	}
	return rep, plain, names, true
}

// unique drops repeated names, keeping the first.
func unique(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func countText(n int) string {
	if n < 0 {
		return "all"
	}
	return fmt.Sprint(n)
}

// progress is a status line on a terminal (like pmval's wait), redrawn in
// place and erased before output; nothing when stderr is not a terminal.
type progress struct {
	w     io.Writer
	shown bool
}

func newProgress(w io.Writer) *progress {
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return &progress{w: w}
		}
	}
	return &progress{}
}

func (p *progress) show(line string) {
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
	p.shown = true
}

func (p *progress) clear() {
	if p.w != nil && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// ordered keeps the results of the names asked for, in the order they
// were given (all results, in the config's order, when none were).
func ordered(rs []evaluator.Result, names []string) []evaluator.Result {
	if len(names) == 0 {
		return rs
	}
	byName := map[string]evaluator.Result{}
	for _, r := range rs {
		byName[r.Name] = r
	}
	var out []evaluator.Result
	for _, n := range names {
		if r, ok := byName[n]; ok {
			out = append(out, r)
		}
	}
	return out
}
