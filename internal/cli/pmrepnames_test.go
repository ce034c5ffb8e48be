package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
)

// pmrepUnnamed models how pmrep -a names the instances it prints, and
// returns, per time (the tables' key) and column, the values pmrep leaves
// out although pmFetch returns them.
//
// pmrep reads with libpcp's fetchgroup API. A fetchgroup names an
// instance domain's instances from a cache of pmGetInDom's answer, one
// per instance domain for all its metrics, filled at the first fetch and
// again at any fetch whose values include an instance the cache lacks.
// It asks pmGetInDom after pmFetch, and libpcp answers pmGetInDom for an
// archive at the context's time, which pmFetch in interpolation mode has
// already moved on by the interval: the cache holds the instance domain
// as the archive's metadata has it at the next sample's time. pmrep
// (pmconfig's get_ranked_results) then leaves out the values of
// instances without a name. So an instance that the instance domain
// loses within the interval after a sample where the cache is filled has
// its value at that sample left out, though pmFetch (and pmval) give it.
//
// The model needs pmFetch's instances at each sample; it takes them from
// eval's own values (the values compared are eval's too, so an instance
// eval wrongly leaves out is still seen as a difference). It assumes the
// metrics of one instance domain have the same instances at each fetch
// (true of the compared metrics: each derived one takes its instances
// from one operand), so the order in which the fetchgroup visits them
// does not matter.
func pmrepUnnamed(t *testing.T, path string, a *archive.Archive, conf string, args, names []string) map[string]map[string]bool {
	t.Helper()
	step := time.Second
	for i, arg := range args {
		if arg == "-t" && i+1 < len(args) {
			d, err := pmapi.ParseInterval(args[i+1])
			if err != nil {
				t.Fatalf("-t %s: %v", args[i+1], err)
			}
			step = d
		}
	}
	descs := metricDescs(t, path, a, conf, names)
	samples := evalJSON(t, append(append(append([]string{}, args...), conf), names...))

	out := map[string]map[string]bool{}
	byInDom := map[pmapi.InDom][]string{}
	for _, n := range names {
		if d, ok := descs[n]; ok && d.InDom != pmapi.InDomNull {
			byInDom[d.InDom] = append(byInDom[d.InDom], n)
		}
	}
	for indom, metrics := range byInDom {
		discreteOnly := true
		for _, m := range metrics {
			discreteOnly = discreteOnly && descs[m].Sem == pmapi.SemDiscrete
		}
		var cache map[int32]bool // nil: not filled yet
		for _, s := range samples {
			fetched := map[int32]bool{}
			for _, m := range metrics {
				for _, v := range s.values[m] {
					fetched[v.Inst] = true
				}
			}
			// A discrete metric's fetch without values leaves the
			// fetchgroup's outputs (and the cache) alone: pmrep keeps
			// them through a gap.
			if discreteOnly && len(fetched) == 0 {
				continue
			}
			fill := cache == nil
			for id := range fetched {
				fill = fill || !cache[id]
			}
			if fill {
				cache = map[int32]bool{}
				for _, in := range a.InstancesAt(indom, s.at.Add(step)) {
					cache[in.ID] = true
				}
			}
			key := s.at.UTC().Format("2006-01-02 15:04:05.000000")
			for _, m := range metrics {
				for _, v := range s.values[m] {
					if !cache[v.Inst] {
						if out[key] == nil {
							out[key] = map[string]bool{}
						}
						out[key][m+"["+v.Instance+"]"] = true
					}
				}
			}
		}
	}
	return out
}

// metricDescs are the descriptors of names: the archive's (at path) for
// its metrics, describe's for the config's derived ones.
func metricDescs(t *testing.T, path string, a *archive.Archive, conf string, names []string) map[string]pmapi.Desc {
	t.Helper()
	ctx := context.Background()
	out := map[string]pmapi.Desc{}
	pmids, errs, err := a.LookupNames(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	var found []pmapi.PMID
	var foundNames []string
	for i, id := range pmids {
		if errs[i] == nil {
			found, foundNames = append(found, id), append(foundNames, names[i])
		}
	}
	ds, derrs, err := a.Descs(ctx, found)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range ds {
		if derrs[i] == nil {
			out[foundNames[i]] = d
		}
	}

	var stdout, stderr bytes.Buffer
	args := []string{"describe", "--archive", path, "--pcp-version", "6.0.3", "--format", "json", conf}
	if status := Main(ctx, Env{Args: args, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}); status != ExitOK {
		t.Fatalf("describe: exit %d: %s", status, stderr.String())
	}
	var described struct {
		Metrics []struct{ Name, Semantics, InDom string }
	}
	if err := json.Unmarshal(stdout.Bytes(), &described); err != nil {
		t.Fatal(err)
	}
	for _, m := range described.Metrics {
		indom := pmapi.InDomNull
		if m.InDom != indom.String() {
			var err error
			if indom, err = pmapi.ParseInDom(m.InDom); err != nil {
				t.Fatalf("describe %s: indom %q: %v", m.Name, m.InDom, err)
			}
		}
		sem, _ := pmapi.ParseSem(m.Semantics)
		out[m.Name] = pmapi.Desc{InDom: indom, Sem: sem}
	}
	return out
}

// jsonSample is one line of eval's JSON: its time to the nanosecond and,
// per metric, its values' instances.
type jsonSample struct {
	at     time.Time
	values map[string][]jsonInst
}

type jsonInst struct {
	Instance string
	Inst     int32
}

// evalJSON runs eval with args in JSON.
func evalJSON(t *testing.T, args []string) []jsonSample {
	t.Helper()
	var stdout, stderr bytes.Buffer
	full := append([]string{"eval", "--format", "json"}, args...)
	if status := Main(context.Background(), Env{Args: full, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}); status != ExitOK {
		t.Fatalf("eval %v: exit %d: %s", args, status, stderr.String())
	}
	var out []jsonSample
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		var line struct {
			Timestamp time.Time
			Metrics   []struct {
				Name   string
				Values []jsonInst
			}
		}
		if err := dec.Decode(&line); err != nil {
			t.Fatal(err)
		}
		s := jsonSample{at: line.Timestamp, values: map[string][]jsonInst{}}
		for _, m := range line.Metrics {
			s.values[m.Name] = m.Values
		}
		out = append(out, s)
	}
	return out
}

// TestPmrepLeavesOutInstancesItCannotName: testdata/eval/vanishing
// (sample.mirage, ten seconds extracted from a recording) loses instance
// m-27 from its instance domain at 02:51:13.882. Sampled every 2.5s from
// 02:51:12.127, pmFetch gives m-27's value at the first sample (pmval
// prints it, and so does eval), but pmrep's fetchgroup names the
// instances from the instance domain at 02:51:14.627 and pmrep leaves
// m-27 out: the model explains exactly those two values (the metric and
// the one derived from it), and the others are equal.
func TestPmrepLeavesOutInstancesItCannotName(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	path := filepath.Join("testdata", "eval", "vanishing")
	a, err := archive.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "mirage.conf")
	if err := os.WriteFile(conf, []byte("mirage.kb = sample.mirage * 1024\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	names := []string{"sample.mirage", "mirage.kb"}
	common := []string{"-a", path, "-t", "2.5", "-O", "+0.75s"}
	ours := append(append([]string{}, common...), "-Z", "UTC", "--pcp-version", "6.0.3", "-r")
	const first, col = "2026-11-26 02:51:12.127327", "sample.mirage[m-27]"

	pmval := pmvalTable(t, conf, common, "sample.mirage")
	got := cut(evalTable(t, append(append(append(ours, "--format", "csv", "-P", "6"), conf), "sample.mirage")...), pmval)
	if n, d, m, _, _, diff := compare(pmval, got, nil, nil); d+m > 0 || n == 0 {
		t.Errorf("pmval: %d of %d values differ, %d rows missing; first: %s", d, n, m, diff)
	}
	if pmval[first][col] == "" || got[first][col] != pmval[first][col] {
		t.Errorf("%s %s: pmval (pmFetch) prints %q, eval %q; want the same value", first, col, pmval[first][col], got[first][col])
	}

	pmrep := pmrepTable(t, conf, append(common, "-r"), names)
	got = cut(evalTable(t, append(append(append(ours, "--format", "csv", "-P", "6"), conf), names...)...), pmrep)
	dropped := pmrepUnnamed(t, path, a, conf, ours, names)
	n, d, m, _, u, diff := compare(pmrep, got, nil, dropped)
	if d+m > 0 || n == 0 || u != 2 || !dropped[first][col] || !dropped[first]["mirage.kb[m-27]"] {
		t.Errorf("pmrep: %d of %d values differ, %d rows missing, %d explained (want 2: m-27 at %s); first: %s", d, n, m, u, first, diff)
	}
}
