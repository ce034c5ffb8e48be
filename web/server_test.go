package web

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmcd"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmproxy"
)

// testConfig defines a metric with values, a rate (empty at an archive's
// first record), one whose values vanish at a matchinst node, and one
// whose operand has none.
const testConfig = `my.sum = sample.bin * 2 + sample.long.one
my.rate = rate(sample.seconds)
my.empty = sample.bin + matchinst(/nomatch/, sample.bin)
my.none = sample.long.one + sample.bad.novalues
`

func requirePCP(t testing.TB) {
	t.Helper()
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	if _, err := exec.LookPath("pmlogger"); err != nil {
		t.Fatal("pmlogger missing: run scripts/pcp-testenv.sh")
	}
}

// recordTestArchive logs the test config's operands from the test pmcd,
// records of them 100 ms apart.
func recordTestArchive(t testing.TB, records int) string {
	t.Helper()
	requirePCP(t)
	dir := t.TempDir()
	cfg := "log mandatory on default { sample.bin sample.long.one sample.seconds sample.bad.novalues }\n"
	if err := os.WriteFile(filepath.Join(dir, "cfg"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("pmlogger", "-h", "127.0.0.1", "-c", "cfg", "-t", "100msec", "-s", strconv.Itoa(records), "-V2", "a")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pmlogger: %v\n%s", err, out)
	}
	return filepath.Join(dir, "a")
}

func writeConfig(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "my.conf")
	if err := os.WriteFile(path, []byte(testConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// serve starts the page's server over src.
func serve(t testing.TB, src pmclient.Source, l Limits) *httptest.Server {
	t.Helper()
	srv := New(Options{Source: src, Paths: []string{writeConfig(t)}, Version: pcpver.V6_0_3, Limits: l})
	ts := httptest.NewServer(LoopbackOnly(srv.Handler()))
	t.Cleanup(func() {
		ts.Close()
		srv.Close()
	})
	return ts
}

func openTestArchive(t testing.TB, records int) *archive.Archive {
	t.Helper()
	a, err := archive.Open(recordTestArchive(t, records))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func livePmcd(t testing.TB) *pmcd.Client {
	t.Helper()
	requirePCP(t)
	c, err := pmcd.New("127.0.0.1", pmcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func get(t testing.TB, ts *httptest.Server, path string, into any) int {
	t.Helper()
	res, err := http.Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if into != nil {
		if err := json.Unmarshal(body, into); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, body)
		}
	}
	return res.StatusCode
}

func explainView(t testing.TB, ts *httptest.Server, query string) *View {
	t.Helper()
	var v View
	if status := get(t, ts, "/api/explain?"+query, &v); status != http.StatusOK {
		t.Fatalf("%s: status %d", query, status)
	}
	return &v
}

// checkSeries: every node of a view with series has one, each line a
// point per kept sample.
func checkSeries(t *testing.T, v *View) {
	t.Helper()
	if len(v.Times) != v.Window.Samples {
		t.Errorf("%s: %d times, window of %d samples", v.Name, len(v.Times), v.Window.Samples)
	}
	if len(v.Series) != len(v.Nodes) {
		t.Fatalf("%s: %d series for %d nodes", v.Name, len(v.Series), len(v.Nodes))
	}
	for _, n := range v.Nodes {
		for i, l := range v.Series[n.ID].Lines {
			if len(l) != len(v.Times) {
				t.Errorf("%s: node %q line %s has %d points, want %d", v.Name, n.Text, v.Series[n.ID].Instances[i], len(l), len(v.Times))
			}
		}
	}
}

// TestExplainArchive: the tree and series of an archive window: a point
// per record, the node where values vanish marked empty over the whole
// window, and the slider's sample parameter choosing the record the tree
// explains.
func TestExplainArchive(t *testing.T) {
	const records = 12
	ts := serve(t, openTestArchive(t, records), Limits{})

	v := explainView(t, ts, "metric=my.empty")
	checkSeries(t, v)
	if v.Live || v.Window.Stride != 1 || v.Window.Samples != v.Window.Records || v.Window.Records < records-1 || v.Window.Fetches != v.Window.Records {
		t.Errorf("window %+v, live %v: want every one of the %d records, one fetch each", v.Window, v.Live, records)
	}
	if v.Verdict != "no values" || v.Origin < 0 || v.Nodes[v.Origin].Text != "matchinst(/nomatch/, sample.bin)" {
		t.Fatalf("verdict %q, origin %d: want no values from the matchinst node", v.Verdict, v.Origin)
	}
	origin := v.Nodes[v.Origin]
	if origin.Kind != "function" {
		t.Errorf("the origin's kind %q, want function", origin.Kind)
	}
	if !strings.Contains(origin.EmptyBecause, "matches `/nomatch/`") || v.Nodes[0].EmptyAt != v.Origin {
		t.Errorf("origin %+v; the root's empty_at %d", origin, v.Nodes[0].EmptyAt)
	}
	// The matchinst node is empty at every record that has sample.bin.
	bin := v.Nodes[1]
	if bin.Text != "sample.bin" || len(v.Series[1].Lines) != 9 {
		t.Fatalf("node 1 %q has %d lines, want sample.bin's 9 instances", bin.Text, len(v.Series[1].Lines))
	}
	empty := 0
	for _, r := range v.Series[v.Origin].Empty {
		empty += r[1] - r[0] + 1
	}
	valued := 0
	for _, p := range v.Series[1].Lines[0] {
		if !math.IsNaN(p) {
			valued++
		}
	}
	if empty < valued || valued == 0 {
		t.Errorf("the matchinst node is empty at %d samples, sample.bin has values at %d", empty, valued)
	}

	// The slider: sample 0 has no rate (one record), the latest has one.
	first := explainView(t, ts, "metric=my.rate&sample=0&series=0")
	last := explainView(t, ts, "metric=my.rate&sample=-1")
	if first.Sample != 0 || first.Series != nil || first.Timestamp == last.Timestamp {
		t.Errorf("sample=0: sample %d, series %v, timestamp %s (the latest's %s)", first.Sample, first.Series != nil, first.Timestamp, last.Timestamp)
	}
	if !strings.Contains(first.Nodes[0].EmptyBecause, "one sample, and rate() needs two (this is the archive's first record of it)") || len(first.Nodes[0].Values) != 0 {
		t.Errorf("sample 0: rate has %v, empty because %q: want none, one sample", first.Nodes[0].Values, first.Nodes[0].EmptyBecause)
	}
	if last.Sample != len(last.Times)-1 || last.Verdict != "values" || len(last.Nodes[0].Values) != 1 {
		t.Errorf("latest sample %d of %d: verdict %q, values %v", last.Sample, len(last.Times), last.Verdict, last.Nodes[0].Values)
	}
	checkSeries(t, last)
	if r := last.Series[0].Empty; len(r) == 0 || r[0][0] != 0 {
		t.Errorf("the rate's empty stretches %v: want one from sample 0", r)
	}
	mid := explainView(t, ts, "metric=my.rate&series=0&sample="+strconv.Itoa(len(last.Times)/2))
	if want := time.UnixMilli(last.Times[len(last.Times)/2]); !sameMilli(mid.Timestamp, want) {
		t.Errorf("sample %d explained the record at %s, want %s", mid.Sample, mid.Timestamp, want)
	}
	if status := get(t, ts, "/api/explain?metric=my.rate&sample=999", nil); status != http.StatusBadRequest {
		t.Errorf("sample=999: status %d, want 400", status)
	}
}

func sameMilli(stamp string, want time.Time) bool {
	got, err := time.Parse(time.RFC3339Nano, stamp)
	return err == nil && got.UnixMilli() == want.UnixMilli()
}

// TestExplainArchiveThinned: a window longer than MaxSamples keeps every
// second, fourth, ... record, and says so.
func TestExplainArchiveThinned(t *testing.T) {
	ts := serve(t, openTestArchive(t, 12), Limits{MaxSamples: 4})
	v := explainView(t, ts, "metric=my.sum")
	checkSeries(t, v)
	if v.Window.Samples > 4 || v.Window.Stride < 2 || v.Window.Records < 11 {
		t.Errorf("window %+v: want at most 4 samples, every stride-th of the records", v.Window)
	}
	for i := 1; i < len(v.Times); i++ {
		if v.Times[i] <= v.Times[i-1] {
			t.Errorf("times %v not increasing", v.Times)
		}
	}
	// A window inside the archive: its first record has the one before
	// as history (the rate has a value there).
	a := openTestArchive(t, 10)
	all := explainView(t, serve(t, a, Limits{}), "metric=my.rate&series=0")
	start, finish := time.UnixMilli(all.Times[3]), time.UnixMilli(all.Times[6]+1) // times are in ms
	w := explainView(t, serve(t, a, Limits{Start: start, Finish: finish}), "metric=my.rate&sample=0")
	if len(w.Times) != 4 || w.Times[0] != all.Times[3] || w.Times[3] != all.Times[6] || w.Verdict != "values" {
		t.Errorf("window %s to %s: times %v (of %v), verdict %q at its first record", start, finish, w.Times, all.Times, w.Verdict)
	}
	ts = serve(t, openTestArchive(t, 6), Limits{MaxRecords: 3})
	if v := explainView(t, ts, "metric=my.sum"); v.Window.Records != 3 || !strings.Contains(v.Window.Ended, "3 records") {
		t.Errorf("MaxRecords 3: window %+v", v.Window)
	}
}

// TestExplainLive: the live test pmcd sampled every 100 ms: the series
// grow a point per sample, and the empty node is marked.
func TestExplainLive(t *testing.T) {
	ts := serve(t, livePmcd(t), Limits{Interval: 100 * time.Millisecond, Window: time.Minute})
	var v *View
	deadline := time.Now().Add(10 * time.Second)
	for {
		v = explainView(t, ts, "metric=my.none")
		if v.Window.Samples >= 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	checkSeries(t, v)
	if !v.Live || v.Interval != 0.1 || v.Window.Samples < 4 {
		t.Fatalf("live %v, interval %v, window %+v: want 4 samples or more", v.Live, v.Interval, v.Window)
	}
	if v.Verdict != "no values" || v.Origin < 0 || v.Nodes[v.Origin].Text != "sample.bad.novalues" {
		t.Fatalf("verdict %q, origin %d: want no values from sample.bad.novalues", v.Verdict, v.Origin)
	}
	if r := v.Series[v.Origin].Empty; len(r) != 1 || r[0] != [2]int{0, len(v.Times) - 1} {
		t.Errorf("the origin's empty stretches %v: want the whole window", r)
	}
	if l := v.Series[1].Lines; len(l) != 1 || l[0][len(v.Times)-1] != 1 {
		t.Errorf("sample.long.one's line %v: want its value 1 at every sample", l)
	}
	// The slider's parameter on a live trace.
	first := explainView(t, ts, "metric=my.none&sample=0&series=0")
	if first.Sample != 0 || !sameMilli(first.Timestamp, time.UnixMilli(first.Times[0])) {
		t.Errorf("sample=0 explained %s, want %s", first.Timestamp, time.UnixMilli(first.Times[0]))
	}
	// at= names a sample by its time: the same one while the window moves.
	pinned := explainView(t, ts, "metric=my.none&series=0&at="+strconv.FormatInt(v.Times[1], 10))
	time.Sleep(300 * time.Millisecond)
	again := explainView(t, ts, "metric=my.none&series=0&at="+strconv.FormatInt(v.Times[1], 10))
	if !sameMilli(pinned.Timestamp, time.UnixMilli(v.Times[1])) || again.Timestamp != pinned.Timestamp || len(again.Times) <= len(v.Times) {
		t.Errorf("at=%d: %s, then %s (%d samples, then %d)", v.Times[1], pinned.Timestamp, again.Timestamp, len(v.Times), len(again.Times))
	}
	sum := explainView(t, ts, "expr="+url.QueryEscape("sample.long.one * 2"))
	if sum.Verdict != "values" || sum.Name != "" || len(sum.Nodes) != 3 || sum.Nodes[0].Values[0].Value != "2" {
		t.Errorf("expression: verdict %q, name %q, %d nodes, root %+v", sum.Verdict, sum.Name, len(sum.Nodes), sum.Nodes[0].Values)
	}
}

// TestExplainPMProxy: live values through pmproxy's REST API (a pmproxy
// of the test environment in front of the test pmcd).
func TestExplainPMProxy(t *testing.T) {
	requirePCP(t)
	proxy := oracle.PMProxyFor(t)
	c, err := pmproxy.New(proxy.URL, pmproxy.Options{Hostspec: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ts := serve(t, c, Limits{Interval: 100 * time.Millisecond})
	var v *View
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		v = explainView(t, ts, "metric=my.sum")
		if v.Window.Samples >= 2 || time.Now().After(deadline) {
			break
		}
	}
	checkSeries(t, v)
	if !v.Live || v.Verdict != "values" || v.Window.Samples < 2 || len(v.Nodes[0].Values) != 9 || v.Nodes[0].Values[0].Value != "201" {
		t.Errorf("through pmproxy: live %v, verdict %q, window %+v, root %+v: want bin*2+1 for 9 instances", v.Live, v.Verdict, v.Window, v.Nodes[0].Values)
	}
}

// TestCheckExpression: findings as you type, at the expression's own
// columns; a typed expression that does not register answers its
// findings.
func TestCheckExpression(t *testing.T) {
	ts := serve(t, livePmcd(t), Limits{})
	res, err := http.Post(ts.URL+"/api/check", "application/json", strings.NewReader(`{"expr":"sample.bin + nosuch.metric"}`))
	if err != nil {
		t.Fatal(err)
	}
	var r checkReply
	json.NewDecoder(res.Body).Decode(&r)
	res.Body.Close()
	if len(r.Findings) != 1 || r.Findings[0].Code != "unknown-metric" || r.Findings[0].Col != 14 || r.Findings[0].EndCol != 27 {
		t.Errorf("findings %+v: want unknown-metric at columns 14-27", r.Findings)
	}
	var bad struct {
		Error    string
		Findings []Finding
	}
	if status := get(t, ts, "/api/explain?expr="+url.QueryEscape("sample.bin +"), &bad); status != http.StatusUnprocessableEntity || len(bad.Findings) == 0 || bad.Findings[0].Severity != "error" {
		t.Errorf("a syntax error: status %d, %+v", status, bad)
	}
	var configs configsReply
	if get(t, ts, "/api/configs", &configs); len(configs.Configs) != 1 || strings.Join(configs.Configs[0].Metrics, " ") != "my.sum my.rate my.empty my.none" || !configs.Live {
		t.Errorf("configs %+v", configs)
	}
}

// TestRefusals: what the API refuses, with a status and a reason.
func TestRefusals(t *testing.T) {
	ts := serve(t, livePmcd(t), Limits{})
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/api/explain", http.StatusBadRequest},
		{"/api/explain?metric=a&expr=b", http.StatusBadRequest},
		{"/api/explain?metric=no.such", http.StatusUnprocessableEntity},
		{"/api/explain?metric=my.sum&sample=x", http.StatusBadRequest},
		{"/api/explain?metric=my.sum&at=soon", http.StatusBadRequest},
		{"/api/explain?metric=my.sum&at=1&sample=0", http.StatusBadRequest},
		{"/api/explain?expr=" + strings.Repeat("1", maxExprBytes+1), http.StatusBadRequest},
		{"/nothing", http.StatusNotFound},
	} {
		var body struct{ Error string }
		var into any = &body
		if c.status == http.StatusNotFound {
			into = nil // net/http's own text
		}
		status := get(t, ts, c.path, into)
		if status != c.status || body.Error == "" && c.status != http.StatusNotFound {
			t.Errorf("%.60s: status %d, want %d with a reason (%q)", c.path, status, c.status, body.Error)
		}
	}
	req, _ := http.NewRequest("GET", ts.URL+"/api/configs", nil)
	req.Host = "attacker.example:80"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("Host attacker.example: status %d, want 421", res.StatusCode)
	}
}

// TestPageEmbedded: the page and its plotting library come from the
// binary, and the page names nothing off the server.
func TestPageEmbedded(t *testing.T) {
	srv := New(Options{Source: fakeSource{}})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	for _, path := range []string{"/", "/assets/app.js", "/assets/style.css", "/assets/vendor/uPlot.iife.min.js", "/assets/vendor/uPlot.min.css"} {
		res, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || len(body) == 0 {
			t.Errorf("%s: status %d, %d bytes", path, res.StatusCode, len(body))
		}
		if path == "/" && (strings.Contains(string(body), "http:") || strings.Contains(string(body), "https:")) {
			t.Errorf("the page names an address off the server:\n%s", body)
		}
	}
}

// TestVendoredPlotterMatchesLock: the embedded uPlot is the release the
// npm lock pins (scripts/web-assets.sh --check compares the bytes).
func TestVendoredPlotterMatchesLock(t *testing.T) {
	var lock struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	b, err := os.ReadFile("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	want := lock.Packages["node_modules/uplot"].Version
	asset, err := assets.ReadFile("assets/vendor/uPlot.iife.min.js")
	if err != nil {
		t.Fatal(err)
	}
	if want == "" || !strings.HasPrefix(string(asset), fmt.Sprintf("/*! https://github.com/leeoniya/uPlot (v%s) */", want)) {
		t.Errorf("the lock pins uplot %q; the embedded asset starts %.60q: run make web-assets", want, asset)
	}
}

// fakeSource is a source with nothing in it, for the page's static files.
type fakeSource struct{ pmclient.Source }

func (fakeSource) Describe() string { return "nothing" }
