package fleet_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/fleet"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/golden"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/choose"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/snapshot"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/report"
)

// snap is a snapshot source of the given release holding the metrics.
func snap(t testing.TB, name, version string, metrics ...snapshot.Metric) pmclient.Source {
	t.Helper()
	f := snapshot.File{Format: "pcp-derive-lsp-snapshot", Version: 1, Source: name, PCPVersion: version, Metrics: metrics, InDoms: []snapshot.InDom{}}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Read(bytes.NewReader(b), "snapshot of "+name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	metricA = snapshot.Metric{Name: "app.requests", PMID: "200.0.1", Type: "U64", Sem: "counter", Units: "count"}
	metricB = snapshot.Metric{Name: "app.bytes", PMID: "200.0.2", Type: "U64", Sem: "counter", Units: "byte"}
	metricS = snapshot.Metric{Name: "app.version", PMID: "200.0.3", Type: "STRING", Sem: "discrete", Units: ""}
)

const config = `# app metrics
app.rate = rate(app.requests)
app.size = rate(app.bytes) / rate(app.requests)
app.bad = app.version + 1
`

// fleetOf opens each named host from the table, others as unreachable.
func fleetOf(sources map[string]pmclient.Source) func(context.Context, fleet.Target) (pmclient.Source, error) {
	return func(_ context.Context, t fleet.Target) (pmclient.Source, error) {
		if s, ok := sources[t.Name]; ok {
			return s, nil
		}
		return nil, errors.New("connecting to pmcd at " + t.Source.Host + ": connection refused")
	}
}

func targets(t *testing.T, list string) []fleet.Target {
	t.Helper()
	ts, err := fleet.Hosts{List: strings.Split(list, ",")}.Targets(fleet.HostsNames{List: "hosts"})
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func checkFleet(t *testing.T, sources map[string]pmclient.Source, list string, opts fleet.Options) *fleet.Result {
	t.Helper()
	opts.Open = fleetOf(sources)
	res := fleet.Check(context.Background(), []analysis.Input{analysis.Buffer("app.conf", []byte(config))}, targets(t, list), opts)
	for _, h := range res.Hosts {
		h.Elapsed = 0 // for golden output
	}
	return res
}

// Each host's release is its own: a missing operand is hidden on PCP 6
// and an error on PCP 7; the verdicts are grouped per definition.
func TestVerdictsPerHost(t *testing.T) {
	sources := map[string]pmclient.Source{
		"old1": snap(t, "old1", "6.0.3", metricA, metricB, metricS),
		"old2": snap(t, "old2", "6.0.3", metricA, metricS),
		"new1": snap(t, "new1", "7.2.2", metricA, metricS),
		"new2": snap(t, "new2", "7.2.2", metricA, metricB, metricS),
	}
	res := checkFleet(t, sources, "old1,old2,new1,new2,gone", fleet.Options{})
	rows := res.Rows()
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	want := []string{
		"valid on 4 of 5 hosts; not checked on gone",
		"valid on 2 of 5 hosts; fails on new1: operand app.bytes: Unknown operand metric; silently absent on old2: unknown operand app.bytes; not checked on gone",
		"valid on 0 of 5 hosts; fails on old1, old2, new1, new2: app.version + 1: Non-arithmetic type for left operand; not checked on gone",
	}
	for i, row := range rows {
		if got := row.Summary(); got != want[i] {
			t.Errorf("%s:\n got %s\nwant %s", row.Name, got, want[i])
		}
	}
	if h := res.Hosts[4]; h.State != fleet.Unreachable || !strings.Contains(h.Err, "connection refused") {
		t.Errorf("gone: %v %q", h.State, h.Err)
	}
	if res.Hosts[0].PCP.Version.String() != "6.0.3" || res.Hosts[2].PCP.Version.String() != "7.2.2" {
		t.Errorf("releases %v %v", res.Hosts[0].PCP, res.Hosts[2].PCP)
	}
	var text, js, sarif bytes.Buffer
	if err := fleet.WriteText(&text, res, fleet.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	golden.File(t, filepath.Join("testdata", "verdicts.text"), text.String())
	if err := fleet.WriteJSON(&js, res, "test"); err != nil {
		t.Fatal(err)
	}
	golden.File(t, filepath.Join("testdata", "verdicts.json"), js.String())
	wd, _ := os.Getwd()
	if err := report.SARIF(&sarif, res.Run("pcp-derive-lsp", "test"), wd); err != nil {
		t.Fatal(err)
	}
	golden.File(t, filepath.Join("testdata", "verdicts.sarif"), sarif.String())
}

// stallSource never answers: every request waits for its context.
type stallSource struct{ pmclient.Source }

func (s stallSource) Version(ctx context.Context) (string, error) {
	<-ctx.Done()
	return "", context.Cause(ctx)
}

// A host that never answers is given up at the host timeout and
// reported as timed out; the others are checked meanwhile.
func TestSlowHost(t *testing.T) {
	sources := map[string]pmclient.Source{
		"fast": snap(t, "fast", "6.0.3", metricA, metricB, metricS),
		"slow": stallSource{snap(t, "slow", "6.0.3")},
	}
	start := time.Now()
	res := checkFleet(t, sources, "slow,fast", fleet.Options{HostTimeout: 300 * time.Millisecond})
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v with a 300ms host timeout", d)
	}
	if h := res.Hosts[0]; h.State != fleet.TimedOut || !strings.Contains(h.Err, "300ms") {
		t.Errorf("slow: %v %q", h.State, h.Err)
	}
	if res.Hosts[1].State != fleet.Checked {
		t.Errorf("fast: %v %q", res.Hosts[1].State, res.Hosts[1].Err)
	}
}

// countingSource tracks how many sources are open at once.
type countingSource struct {
	pmclient.Source
	open, peak *atomic.Int32
}

func (c countingSource) Close() error {
	c.open.Add(-1)
	if cl, ok := c.Source.(interface{ Close() error }); ok {
		return cl.Close()
	}
	return nil
}

// At most Concurrency hosts are open at once, and every source is closed.
func TestConcurrencyBound(t *testing.T) {
	var open, peak atomic.Int32
	base := snap(t, "h", "6.0.3", metricA, metricB, metricS)
	var list []string
	for i := 0; i < 50; i++ {
		list = append(list, "h"+strings.Repeat("x", i))
	}
	opts := fleet.Options{Concurrency: 4, Open: func(context.Context, fleet.Target) (pmclient.Source, error) {
		n := open.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		return countingSource{base, &open, &peak}, nil
	}}
	res := fleet.Check(context.Background(), []analysis.Input{analysis.Buffer("app.conf", []byte(config))}, targets(t, strings.Join(list, ",")), opts)
	if p := peak.Load(); p > 4 || p < 2 {
		t.Errorf("peak of %d sources open at once, want 2..4", p)
	}
	if n := open.Load(); n != 0 {
		t.Errorf("%d sources left open", n)
	}
	// Identical hosts share one outcome and the verdicts are held once.
	if n := res.DistinctOutcomes(); n != 1 {
		t.Errorf("%d distinct outcomes for 50 identical hosts", n)
	}
	if n := res.DistinctVerdicts(); n != 3 {
		t.Errorf("%d distinct verdicts, want 3 (one per definition)", n)
	}
}

// bigArchive writes an archive whose metadata is over 1 MiB: a small
// recorded archive's, then 1.5 MiB of help text.
func bigArchive(t *testing.T) string {
	t.Helper()
	base := filepath.Join(t.TempDir(), "big")
	for _, suffix := range []string{".meta", ".0"} {
		b, err := os.ReadFile("../pmclient/archive/testdata/small3" + suffix)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; suffix == ".meta" && i < 24; i++ {
			b = helpText(b, uint32(0x40000000+i), 64<<10)
		}
		if err := os.WriteFile(base+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

// helpText appends an archive's help text record for a PMID: its
// length, TEXT (4), one-line|PMID (1|4), the PMID, the text and a NUL,
// its length again.
func helpText(meta []byte, pmid uint32, size int) []byte {
	n := uint32(4*5 + size + 1)
	for _, w := range []uint32{n, 4, 1 | 4, pmid} {
		meta = binary.BigEndian.AppendUint32(meta, w)
	}
	meta = append(meta, bytes.Repeat([]byte{'h'}, size)...)
	return binary.BigEndian.AppendUint32(append(meta, 0), n)
}

// An archive is opened as every command opens one (package choose):
// under the metadata cap $PCP_DERIVE_LSP_MAX_METADATA_MB sets.
func TestArchiveMetadataCap(t *testing.T) {
	base := bigArchive(t)
	for _, tc := range []struct {
		capMB string
		want  fleet.HostState
	}{
		{"", fleet.Checked},
		{"1", fleet.Unreachable},
		{"2", fleet.Checked},
	} {
		getenv := func(k string) string {
			if k == "PCP_DERIVE_LSP_MAX_METADATA_MB" {
				return tc.capMB
			}
			return ""
		}
		res := fleet.Check(context.Background(), []analysis.Input{analysis.Buffer("app.conf", []byte(config))},
			targets(t, "big=archive:"+base), fleet.Options{Getenv: getenv})
		h := res.Hosts[0]
		if h.State != tc.want || tc.want == fleet.Unreachable && !strings.Contains(h.Err, "1048576 bytes, the cap") {
			t.Errorf("cap %q MiB: %v %q, want %v", tc.capMB, h.State, h.Err, tc.want)
		}
	}
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in, proxy string
		want      fleet.Target
	}{
		{"db1", "", fleet.Target{Name: "db1", Source: choose.Spec{Host: "db1"}}},
		{"db1:44331", "", fleet.Target{Name: "db1:44331", Source: choose.Spec{Host: "db1:44331"}}},
		{"web=10.0.0.5", "", fleet.Target{Name: "web", Source: choose.Spec{Host: "10.0.0.5"}}},
		{"db1", "http://gw:44322", fleet.Target{Name: "db1", Source: choose.Spec{PMProxy: "http://gw:44322", Hostspec: "db1"}}},
		{"http://gw:44322?hostspec=db2", "", fleet.Target{Name: "db2", Source: choose.Spec{PMProxy: "http://gw:44322", Hostspec: "db2"}}},
		{"x=http://gw?hostspec=db2:44331", "", fleet.Target{Name: "x", Source: choose.Spec{PMProxy: "http://gw", Hostspec: "db2:44331"}}},
		{"archive:/var/log/pcp/pmlogger/db1/20260101", "", fleet.Target{Name: "/var/log/pcp/pmlogger/db1/20260101", Source: choose.Spec{Archive: "/var/log/pcp/pmlogger/db1/20260101"}}},
		{"unix:/run/pcp/pmcd.socket", "", fleet.Target{Name: "unix:/run/pcp/pmcd.socket", Source: choose.Spec{Host: "unix:/run/pcp/pmcd.socket"}}},
	} {
		got, err := fleet.ParseTarget(tc.in, tc.proxy)
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v %v, want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "x=", "a b", "ftp://x", "archive:"} {
		if _, err := fleet.ParseTarget(bad, ""); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestReadHostsFile(t *testing.T) {
	ts, err := fleet.ReadHostsFile(strings.NewReader("# the web tier\nweb1\n\nweb2:44331 # old pmcd\n  db=10.0.0.9\n"), "hosts", "")
	if err != nil || len(ts) != 3 || ts[1].Source.Host != "web2:44331" || ts[2].Name != "db" {
		t.Fatalf("%+v %v", ts, err)
	}
	_, err = fleet.ReadHostsFile(strings.NewReader("web1\nweb 2\n"), "hosts", "")
	if err == nil || !strings.HasPrefix(err.Error(), "hosts:2: ") {
		t.Errorf("error %v, want one at hosts:2", err)
	}
	_, err = fleet.ReadHostsFile(strings.NewReader(strings.Repeat("x", 100<<10)), "hosts", "")
	if err == nil {
		t.Error("a 100 KiB line is accepted")
	}
}

// The latest archive of each folder is the one whose metadata was
// written last; folders without archives are skipped.
func TestArchiveFarm(t *testing.T) {
	dir := t.TempDir()
	touch := func(path string, age time.Duration) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		os.Chtimes(path, when, when)
	}
	touch(filepath.Join(dir, "db1", "20260101.00.10.meta"), 48*time.Hour)
	touch(filepath.Join(dir, "db1", "20260102.00.10.meta.xz"), 24*time.Hour)
	touch(filepath.Join(dir, "db1", "20260102.00.10.0"), 24*time.Hour)
	touch(filepath.Join(dir, "db1", "Latest"), 0)
	touch(filepath.Join(dir, "web1", "20260103.meta"), time.Hour)
	touch(filepath.Join(dir, "empty", "pmlogger.log"), 0)
	ts, err := fleet.ArchiveFarm(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || ts[0].Name != "db1" || ts[0].Source.Archive != filepath.Join(dir, "db1", "20260102.00.10") ||
		ts[1].Name != "web1" || ts[1].Source.Archive == "" {
		t.Errorf("%+v", ts)
	}
	if _, err := fleet.ArchiveFarm(filepath.Join(dir, "empty")); err == nil {
		t.Error("a farm with no archive: no error")
	}
}

// Hosts are listed in order (the list, then the file), errors name the
// setting, and two hosts of one name are refused.
func TestHostsTargets(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(file, []byte("db1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	names := fleet.HostsNames{List: "--hosts", File: "--hosts-file", ArchiveDir: "--archive-dir"}
	ts, err := fleet.Hosts{List: []string{"web1", " ", "web2"}, File: file, PMProxy: "http://gw:44322"}.Targets(names)
	if err != nil || len(ts) != 3 || ts[0].Name != "web1" || ts[2].Name != "db1" || ts[2].Source.PMProxy != "http://gw:44322" {
		t.Errorf("%+v %v", ts, err)
	}
	for _, tc := range []struct {
		hosts fleet.Hosts
		want  string
	}{
		{fleet.Hosts{List: []string{"db1"}, File: file}, "host db1 is named twice"},
		{fleet.Hosts{List: []string{"ftp://x"}}, "--hosts: host"},
		{fleet.Hosts{File: file + ".none"}, "--hosts-file: "},
		{fleet.Hosts{ArchiveDir: file + ".none"}, "--archive-dir: "},
	} {
		if _, err := tc.hosts.Targets(names); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.hosts, err, tc.want)
		}
	}
}
