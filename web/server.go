// Package web serves the explain page (`pcp-derive-lsp web`): a config's
// definitions or a typed expression, checked through package analysis as
// you type, their explain tree (package explain's diagnosis), and beside
// each node a plot of its values over an archive's window or the last
// minutes live, from one fetch per sample for all nodes. The page and
// its plotting library are embedded in the binary: nothing is fetched
// from the network at run time.
package web

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/checker"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/explain"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

//go:embed assets
var assets embed.FS

// exprName is the name a typed expression is defined under, after the
// configs (which may define what it uses), as explain -e does.
const exprName = "expr"

// exprPrefix is the line a typed expression is put on.
const exprPrefix = exprName + " = "

// Limits of the API's inputs.
const (
	maxExprBytes = 64 << 10 // a typed expression
	maxTraces    = 8        // traces kept; the least recently used goes
	// idleLive is how long a live trace samples with no page asking
	// for it (the page asks every interval while it shows it).
	idleLive = 2 * time.Minute
)

// Options configure a server.
type Options struct {
	// Source gives metadata and values: a pmcd or pmproxy (live) or an
	// archive (recorded, read from its start).
	Source pmclient.Source
	// Paths are the config paths (files and directories), read as one
	// config path at every request, so the page follows their edits.
	Paths   []string
	Version pcpver.Version
	InDoms  *pmapi.InDomEquivalence
	Limits  Limits
	Log     *zap.Logger
}

// Server is the page and its API.
type Server struct {
	opts Options
	live bool
	log  *zap.Logger

	// replay serialises archive traces: an archive is read by one
	// cursor.
	replay sync.Mutex
	mu     sync.Mutex
	traces map[string]*traceEntry
	clock  int // for least recently used
}

type traceEntry struct {
	tr   *Trace
	used int       // the clock at its last use
	last time.Time // its last use
}

// New makes a server over an open source.
func New(opts Options) *Server {
	if opts.Log == nil {
		opts.Log = zap.NewNop()
	}
	opts.Limits = opts.Limits.orDefault()
	rec, ok := opts.Source.(pmclient.Recording)
	return &Server{opts: opts, live: !ok || !rec.Recorded(), log: opts.Log, traces: map[string]*traceEntry{}}
}

// Close stops every live trace's sampling.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, e := range s.traces {
		e.tr.Stop()
		delete(s.traces, k)
	}
}

// Handler serves the page (/), its assets (/assets/) and the API
// (/api/configs, /api/check, /api/explain). Requests must name a
// loopback host when the server listens on one (LoopbackOnly), so a web
// page elsewhere cannot reach it through DNS rebinding.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", files))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:")
		http.ServeFileFS(w, r, static, "index.html")
	})
	mux.HandleFunc("GET /api/configs", s.handleConfigs)
	mux.HandleFunc("POST /api/check", s.handleCheck)
	mux.HandleFunc("GET /api/explain", s.handleExplain)
	return mux
}

// LoopbackOnly refuses requests whose Host is not a loopback name (a
// server bound to 127.0.0.1 answers only pages served from it).
func LoopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		ip := net.ParseIP(strings.Trim(host, "[]"))
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			http.Error(w, "this server answers requests for 127.0.0.1 or localhost only", http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// configsReply lists the definitions the page offers.
type configsReply struct {
	Source     string         `json:"source"`
	Live       bool           `json:"live"`
	PCPVersion string         `json:"pcp_version"`
	Configs    []configReply  `json:"configs"`
	Problems   []string       `json:"problems"`
	Limits     map[string]any `json:"limits"`
}

type configReply struct {
	Path    string   `json:"path"`
	Metrics []string `json:"metrics"`
}

func (s *Server) handleConfigs(w http.ResponseWriter, r *http.Request) {
	res, _ := s.analyse(r.Context(), "")
	reply := configsReply{Source: s.opts.Source.Describe(), Live: s.live, PCPVersion: s.opts.Version.String(), Configs: []configReply{}, Problems: []string{}}
	l := s.opts.Limits
	reply.Limits = map[string]any{"max_samples": l.MaxSamples, "max_values": l.MaxValues, "max_records": l.MaxRecords, "window_seconds": l.Window.Seconds(), "interval_seconds": l.Interval.Seconds()}
	for _, e := range res.IOErrors {
		reply.Problems = append(reply.Problems, e.Error())
	}
	if res.CheckErr != nil {
		reply.Problems = append(reply.Problems, res.CheckErr.Error())
	}
	for _, f := range res.Files {
		c := configReply{Path: f.File.Path, Metrics: []string{}}
		for _, d := range f.File.Definitions.All() {
			if d.Registered {
				c.Metrics = append(c.Metrics, d.Name)
			}
		}
		reply.Configs = append(reply.Configs, c)
	}
	writeJSON(w, http.StatusOK, reply)
}

// Finding is one finding about a typed expression, its columns counted
// in bytes of the expression from 1.
type Finding struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	EndLine  int    `json:"end_line"`
	EndCol   int    `json:"end_col"`
}

type checkRequest struct {
	Expr string `json:"expr"`
}

type checkReply struct {
	Findings []Finding `json:"findings"`
}

// handleCheck analyses a typed expression as explain -e would, after the
// configs, and returns its findings (the page shows them as you type).
func (s *Server) handleCheck(w http.ResponseWriter, r *http.Request) {
	var req checkRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, maxExprBytes+1024))
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("the request: %w", err))
		return
	}
	expr, err := oneLine(req.Expr)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	res, _ := s.analyse(r.Context(), expr)
	writeJSON(w, http.StatusOK, checkReply{Findings: exprFindings(res)})
}

// oneLine is a typed expression on one line, as explain -e puts it.
func oneLine(expr string) (string, error) {
	if len(expr) > maxExprBytes {
		return "", fmt.Errorf("the expression is %d bytes, more than %d", len(expr), maxExprBytes)
	}
	if strings.TrimSpace(expr) == "" {
		return "", errors.New("the expression is empty")
	}
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(expr), nil
}

// exprFindings are the findings on the typed expression's line, their
// columns moved to the expression's own.
func exprFindings(res *analysis.Result) []Finding {
	out := []Finding{}
	shift := len(exprPrefix)
	for _, f := range res.Files {
		if f.File.Path != exprPath {
			continue
		}
		for d := range f.Findings.All() {
			if d.Severity == grammar.SeverityHint {
				continue
			}
			out = append(out, Finding{Severity: d.Severity.String(), Code: d.Code, Message: d.Message,
				Line: int(d.Range.Start.Line), Col: max(1, int(d.Range.Start.Col)-shift),
				EndLine: int(d.Range.End.Line), EndCol: max(1, int(d.Range.End.Col)-shift)})
		}
	}
	return out
}

// exprPath names the typed expression's input, as explain -e's.
const exprPath = "-e"

// analyse reads the configs (and the typed expression, when there is
// one) and checks them through the one pipeline; key identifies what was
// analysed, so a trace is kept only while its inputs stay the same.
func (s *Server) analyse(ctx context.Context, expr string) (*analysis.Result, string) {
	inputs := analysis.ReadInputs(s.opts.Paths, nil, analysis.DefaultMaxSize)
	if expr != "" {
		inputs = append(inputs, analysis.Buffer(exprPath, []byte(exprPrefix+expr+"\n")))
	}
	h := sha256.New()
	for _, in := range inputs {
		fmt.Fprintf(h, "%s\x00%d\x00", in.Path, len(in.Src))
		h.Write(in.Src)
	}
	cfg := analysis.Config{Version: analysis.VersionChoice{Version: s.opts.Version}, Source: s.opts.Source, InDoms: s.opts.InDoms}
	return analysis.Run(ctx, inputs, cfg, analysis.Options{}), fmt.Sprintf("%x", h.Sum(nil))
}

// handleExplain answers /api/explain?metric=NAME or ?expr=EXPR, with
// sample=N (the kept sample the tree shows; default the latest) or at=MS
// (the kept sample taken then, or the first after it), and
// series=0 to leave the plots' values out (the slider asks for the tree
// alone).
func (s *Server) handleExplain(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name, expr := q.Get("metric"), q.Get("expr")
	if (name == "") == (expr == "") {
		writeError(w, http.StatusBadRequest, errors.New("give metric=NAME or expr=EXPRESSION"))
		return
	}
	sample := -1
	if v := q.Get("sample"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < -1 {
			writeError(w, http.StatusBadRequest, fmt.Errorf("sample=%q: want a sample index (0 is the first kept, -1 the latest)", v))
			return
		}
		sample = n
	}
	var at int64 // the sample's time (ms), when given instead of its index
	if v := q.Get("at"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || q.Get("sample") != "" {
			writeError(w, http.StatusBadRequest, fmt.Errorf("at=%q: want a sample's time in milliseconds since the epoch, without sample=", v))
			return
		}
		at = n
	}
	if expr != "" {
		var err error
		if expr, err = oneLine(expr); err != nil {
			writeError(w, http.StatusBadRequest, err)
			return
		}
	}
	tr, findings, err := s.trace(r.Context(), name, expr)
	switch {
	case err != nil:
		writeError(w, http.StatusInternalServerError, err)
		return
	case tr == nil:
		writeJSON(w, http.StatusUnprocessableEntity, struct {
			Error    string    `json:"error"`
			Findings []Finding `json:"findings"`
		}{notFound(name), findings})
		return
	}
	wait, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	if err := tr.Wait(wait); err != nil {
		writeError(w, http.StatusGatewayTimeout, fmt.Errorf("no sample from %s yet: %w", s.opts.Source.Describe(), err))
		return
	}
	if at != 0 {
		// A live window moves on: the page that stopped the slider at a
		// sample names it by its time, and gets it while it is kept (or
		// the oldest kept, once it is not).
		sample = tr.indexAt(time.UnixMilli(at))
	}
	if sample >= 0 && sample >= tr.Window().Samples {
		writeError(w, http.StatusBadRequest, fmt.Errorf("sample=%d: the window keeps %d samples", sample, tr.Window().Samples))
		return
	}
	v, err := tr.view(r.Context(), sample, q.Get("series") != "0")
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	if expr != "" {
		v.Name = ""
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = v.WriteJSON(w) // a client gone away is no error of ours
}

func notFound(name string) string {
	if name == "" {
		return "the expression is not registered: see its findings"
	}
	return fmt.Sprintf("%s: no registered definition of that name in the configs", name)
}

// trace returns the trace of a definition or typed expression, recording
// it on first use (an archive's whole window now; live, a sampler that
// runs until the trace is evicted or the server closes). A nil trace
// comes with the findings that say why there is none.
func (s *Server) trace(ctx context.Context, name, expr string) (*Trace, []Finding, error) {
	res, inputs := s.analyse(ctx, expr)
	if res.CheckErr != nil {
		return nil, nil, res.CheckErr
	}
	rep := res.Report
	if rep == nil {
		return nil, exprFindings(res), nil
	}
	t := explain.Target{Report: rep, Replayed: !s.live}
	if expr != "" {
		t.Metric = exprMetric(res)
		none := ""
		t.Name = &none
	} else if m, ok := rep.ByName.Lookup(name); ok {
		t.Metric = m
	}
	if t.Metric == nil {
		return nil, exprFindings(res), nil
	}
	key := inputs + "\x00" + name + "\x00" + expr
	s.mu.Lock()
	s.clock++
	now := time.Now()
	for k, e := range s.traces {
		if e.tr.live && now.Sub(e.last) > idleLive && k != key {
			e.tr.Stop() // no page has asked for it for a while
			delete(s.traces, k)
		}
	}
	if e := s.traces[key]; e != nil {
		e.used, e.last = s.clock, now
		s.mu.Unlock()
		return e.tr, nil, nil
	}
	s.mu.Unlock()
	var tr *Trace
	var err error
	if s.live {
		// Not the request's context: the sampler outlives the request.
		tr, err = recordLive(context.WithoutCancel(ctx), s.opts.Source, t, s.opts.Limits)
	} else {
		s.replay.Lock()
		tr, err = recordArchive(ctx, s.opts.Source, t, s.opts.Limits)
		s.replay.Unlock()
	}
	if err != nil {
		return nil, nil, err
	}
	s.remember(key, tr)
	return tr, nil, nil
}

// remember keeps a trace, evicting (and stopping) the least recently used
// past maxTraces.
func (s *Server) remember(key string, tr *Trace) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.traces[key]; old != nil {
		old.tr.Stop() // two requests recorded it at once: keep the newer
	}
	s.traces[key] = &traceEntry{tr: tr, used: s.clock, last: time.Now()}
	for len(s.traces) > maxTraces {
		oldest := ""
		for k, e := range s.traces {
			if oldest == "" || e.used < s.traces[oldest].used {
				oldest = k
			}
		}
		s.traces[oldest].tr.Stop()
		delete(s.traces, oldest)
	}
}

// exprMetric is the typed expression's metric (nil when libpcp would not
// register it).
func exprMetric(res *analysis.Result) *checker.Metric {
	m, ok := res.Report.ByName.Lookup(exprName)
	if !ok {
		return nil
	}
	for _, f := range res.Files {
		if f.File.Path != exprPath {
			continue
		}
		for _, d := range f.File.Definitions.All() {
			if d == m.Def {
				return m
			}
		}
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a client gone away is no error of ours
}

func writeError(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, struct {
		Error string `json:"error"`
	}{err.Error()})
}
