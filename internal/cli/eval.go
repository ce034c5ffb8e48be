package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/evaluator"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

func runEval(ctx context.Context, env Env, args []string) int {
	fs := newFlags(env, "eval", "[flags] CONFIG [NAME...]",
		"Computes derived metric values from pmcd or an archive, as libpcp would, and\nprints them per sample like pmval: from pmcd until interrupted (or -s N\nsamples) every -t INTERVAL; from an archive every record in time order (no\ninterpolation, so -t does not apply). Counters are shown as rates per second,\nas pmval shows them (--raw for the counts). Errors are printed per metric;\nsampling goes on.")
	var version versionFlag
	version.register(fs)
	var samples int
	fs.IntVar(&samples, "s", 0, "stop after `N` samples (0: until interrupted; from an archive, every record)")
	fs.IntVar(&samples, "samples", 0, "same as -s")
	intervalText := "1sec"
	for _, name := range []string{"t", "interval"} {
		fs.Func(name, "time between samples, in PCP's `INTERVAL` syntax: 0.5, 2sec, 1min 30sec (default 1sec)", func(s string) error {
			if _, err := pmapi.ParseInterval(s); err != nil {
				return err
			}
			intervalText = s
			return nil
		})
	}
	raw := fs.Bool("raw", false, "show counters as counted, not as rates per second")
	format := fs.String("format", "text", "output `FORMAT`: text, json or pminfo (as pminfo -c FILE -f prints)")
	var src sourceFlags
	src.register(fs)
	operands, status, done := parseFlags(fs, env, args)
	if done {
		return status
	}
	if len(operands) == 0 {
		fs.Usage()
		return ExitUsage
	}
	config, names := operands[0], operands[1:]
	interval, _ := pmapi.ParseInterval(intervalText)
	if interval <= 0 {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp eval: interval %q: must be more than zero\n", intervalText)
		return ExitUsage
	}
	source, err := src.open(ctx, env)
	switch {
	case err != nil:
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp eval: %v\n", err)
		return ExitUsage
	case source == nil:
		fmt.Fprintln(env.Stderr, "pcp-derive-lsp eval: values need a pmcd or an archive; --no-metadata makes no sense here")
		return ExitUsage
	}
	choice, vok := version.resolve(ctx, env, "eval", source)
	if !vok {
		return ExitUsage
	}
	rep, ok := loadChecked(ctx, env, "eval", &src, source, choice.Version, []string{config})
	if rep == nil || !ok {
		return ExitUsage
	}
	wanted := map[string]bool{}
	for _, n := range names {
		wanted[n] = true
	}
	defined, valid := map[string]bool{}, 0
	for _, m := range rep.Metrics {
		defined[m.Def.Name] = true
		if len(wanted) > 0 && !wanted[m.Def.Name] {
			continue
		}
		if m.Status != checker.Valid {
			fmt.Fprintf(env.Stderr, "%s: not evaluated: %s: %s\n", m.Def.Name, m.Status, problemText(m))
			continue
		}
		valid++
	}
	for _, n := range names {
		if !defined[n] {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp eval: %s: no definition of that name in %s\n", n, config)
			return ExitUsage
		}
	}
	if valid == 0 {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp eval: no definition in %s can be evaluated (run check for details)\n", config)
		return ExitUsage
	}
	ev, err := evaluator.New(ctx, source, rep)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp eval: %v\n", err)
		return ExitUsage
	}
	recording, fromArchive := source.(pmclient.Recording)
	fromArchive = fromArchive && recording.Recorded()
	n := samples
	switch {
	case n > 0:
	case *format == "pminfo" && !fromArchive:
		// As pminfo -f: one fetch, two when a value needs a previous one.
		n = 1
		for _, m := range ev.Metrics() {
			if strings.Contains(m.Def.Expr, "rate(") || strings.Contains(m.Def.Expr, "delta(") {
				n = 2
			}
		}
	default:
		n = -1 // until interrupted, or every record of an archive
	}
	var rates *counterRates
	if !*raw && *format != "pminfo" {
		rates = newCounterRates()
	}
	fmt.Fprintf(env.Stderr, "# values from %s; %s\n", source.Describe(), choice)
	progress := newProgress(env.Stderr)
	defer progress.clear()
	for i := 0; n < 0 || i < n; i++ {
		if ctx.Err() != nil {
			return ExitOK // interrupted
		}
		if i > 0 && !fromArchive {
			progress.show(fmt.Sprintf("sample %d of %s, next in %v (Ctrl-C stops)", i, countText(n), interval))
			select {
			case <-ctx.Done():
				return ExitOK
			case <-time.After(interval):
			}
			progress.clear()
		}
		s, err := ev.Sample(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp eval: sample %d: %v\n", i+1, err)
			if fromArchive {
				return ExitUsage
			}
			continue
		}
		s.Results = ordered(s.Results, names)
		var rated map[string]bool
		if rates != nil {
			rated = rates.convert(s)
		}
		switch *format {
		case "pminfo":
			if i == n-1 || fromArchive {
				evaluator.WritePminfo(env.Stdout, s, ev.InstanceName)
			}
		case "json":
			writeSampleJSON(env, s, ev, rated)
		default:
			writeSampleText(env, s, ev, rated)
		}
	}
	return ExitOK
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

func writeSampleText(env Env, s *evaluator.Sample, ev *evaluator.Evaluator, rated map[string]bool) {
	fmt.Fprintf(env.Stdout, "%s\n", s.Timestamp.Format("15:04:05.000"))
	for _, r := range s.Results {
		units := ""
		if u := r.Desc.Units.String(); u != "" {
			units = " " + u
		}
		switch {
		case errors.Is(r.Err, errFirstRate):
			fmt.Fprintf(env.Stdout, "  %s: (a rate: values from the next sample)\n", r.Name)
		case r.Err != nil:
			fmt.Fprintf(env.Stdout, "  %s: error: %v\n", r.Name, r.Err)
		case len(r.Values) == 0:
			fmt.Fprintf(env.Stdout, "  %s: no values\n", r.Name)
		case r.Desc.InDom == pmapi.InDomNull:
			fmt.Fprintf(env.Stdout, "  %s = %s%s\n", r.Name, formatValue(r, r.Values[0], rated), units)
		default:
			fmt.Fprintf(env.Stdout, "  %s:\n", r.Name)
			for _, v := range r.Values {
				fmt.Fprintf(env.Stdout, "    [%s] %s%s\n", ev.InstanceName(r.Desc.InDom, v.Inst), formatValue(r, v, rated), units)
			}
		}
	}
}

// formatValue prints a value as libpcp does, and a rate computed here
// (counterRates) to three decimals, as pmval shows rates.
func formatValue(r evaluator.Result, v evaluator.Value, rated map[string]bool) string {
	if rated[r.Name] {
		return strconv.FormatFloat(v.Float, 'f', 3, 64)
	}
	return evaluator.Format(r.Desc.Type, v)
}

func writeSampleJSON(env Env, s *evaluator.Sample, ev *evaluator.Evaluator, rated map[string]bool) {
	type value struct {
		Instance string `json:"instance,omitempty"`
		Value    string `json:"value"`
	}
	type metric struct {
		Name   string  `json:"name"`
		Units  string  `json:"units"`
		Error  string  `json:"error,omitempty"`
		Values []value `json:"values"`
	}
	var ms []metric
	for _, r := range s.Results {
		m := metric{Name: r.Name, Units: r.Desc.Units.String(), Values: []value{}}
		if r.Err != nil {
			m.Error = r.Err.Error()
		}
		for _, v := range r.Values {
			m.Values = append(m.Values, value{Instance: ev.InstanceName(r.Desc.InDom, v.Inst), Value: formatValue(r, v, rated)})
		}
		ms = append(ms, m)
	}
	json.NewEncoder(env.Stdout).Encode(map[string]any{"timestamp": s.Timestamp, "metrics": ms})
}
