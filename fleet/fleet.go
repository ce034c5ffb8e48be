package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/choose"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmproxy"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/rules"
)

// Defaults for Options.
const (
	DefaultConcurrency = 16
	DefaultHostTimeout = 30 * time.Second
)

// Options tune a fleet check.
type Options struct {
	// Concurrency bounds the hosts checked at once, and so the
	// connections open at once (default DefaultConcurrency).
	Concurrency int
	// HostTimeout bounds each host as a whole: connecting, asking its
	// release, checking (default DefaultHostTimeout).
	HostTimeout time.Duration
	// Version is the release to follow, resolved for each host as for
	// one analysis (auto, the zero request: each host's own, as its
	// source reports it).
	Version analysis.VersionRequest
	// InDoms are the equivalent instance domains (pcp7), for every host.
	InDoms *pmapi.InDomEquivalence
	// Rules are the project's choices, applied with the suppression
	// comments to every host's findings as to one analysis's.
	Rules rules.Rules
	// Open opens a target's source; nil opens its Source through
	// package choose, as every command does (lazily: a host's first
	// request is the one that tells whether it answers).
	Open func(ctx context.Context, t Target) (pmclient.Source, error)
	// PMProxyParallel is how many requests may be in flight to one
	// pmproxy (default 1: see pmproxy.Gate).
	PMProxyParallel int
	// Getenv reads the environment (pmcd's timeouts, $PMCD_PORT).
	Getenv func(string) string
	// Progress, when set, hears of each host as it is done.
	Progress func(done, total int, h *Host)
}

// HostState is how far a host's check got.
type HostState int

const (
	Checked     HostState = iota // checked: its verdicts are in the result
	Unreachable                  // its source could not be opened or did not answer
	TimedOut                     // it did not finish within the host timeout
	Failed                       // it answered, but the check could not complete
)

func (s HostState) String() string {
	return [...]string{"checked", "unreachable", "timed out", "failed"}[s]
}

// Host is one host's part of the result.
type Host struct {
	Target
	SourceName string // its source, described ("pmcd at db1")
	State      HostState
	Err        string // why it was not checked
	PCP        analysis.VersionChoice
	Elapsed    time.Duration
	outcome    *outcome // the verdicts, shared by hosts with the same ones
}

// Definition is one definition of the config, as reports key it.
type Definition struct {
	Path string
	Line int // 1-based line of its first character
	Name string
}

// Finding is one finding about a definition on a host, its position in
// the config and its text.
type Finding struct {
	Code     string
	Severity grammar.Severity
	Message  string
	Range    grammar.Range
}

// Verdict is a definition's fate on a host and the findings about it.
type Verdict struct {
	Fate
	Findings []Finding
}

// Result is a fleet check. Hosts with the same verdicts share them, and
// the same verdict on many definitions and hosts is held once: memory
// grows with the distinct verdicts, not with hosts times definitions.
type Result struct {
	Definitions []Definition
	Hosts       []*Host
	// Files are the config as one release parses it (the first checked
	// host's, else the latest), for positions and source lines.
	Files    []*grammar.File
	verdicts []Verdict
}

// outcome is a host's verdict per definition: an index into
// Result.verdicts, -1 where the host's release has no such definition.
type outcome struct{ verdicts []int32 }

// Verdict returns host h's verdict on definition i; ok is false when the
// host was not checked or its release does not see the definition.
func (r *Result) Verdict(h *Host, i int) (Verdict, bool) {
	if h.outcome == nil || i >= len(h.outcome.verdicts) || h.outcome.verdicts[i] < 0 {
		return Verdict{}, false
	}
	return r.verdicts[h.outcome.verdicts[i]], true
}

// DistinctVerdicts and DistinctOutcomes count what the result holds
// once however many hosts share it (for the scale benchmark).
func (r *Result) DistinctVerdicts() int { return len(r.verdicts) }

// DistinctOutcomes counts the distinct verdict vectors among hosts.
func (r *Result) DistinctOutcomes() int {
	seen := map[*outcome]bool{}
	for _, h := range r.Hosts {
		if h.outcome != nil {
			seen[h.outcome] = true
		}
	}
	return len(seen)
}

// errHostTimeout is the cause of a host's context ending at the host
// timeout.
var errHostTimeout = errors.New("host timeout")

// Check checks the config (inputs loaded together, as one config path)
// against every target, Concurrency at a time, and lines the
// verdicts up. It returns when every host is done or ctx ends; a host
// that is down or slow is reported as such, never waited on past its
// timeout.
func Check(ctx context.Context, inputs []analysis.Input, targets []Target, opts Options) *Result {
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.HostTimeout <= 0 {
		opts.HostTimeout = DefaultHostTimeout
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	e := &engine{opts: opts, inputs: inputs, parses: map[pcpver.Version]*parse{},
		verdictIDs: map[[32]byte]int32{}, outcomes: map[[32]byte]*outcome{}, gates: pmproxy.NewGates(opts.PMProxyParallel, 0)}
	if e.opts.Open == nil {
		e.opts.Open = e.open
	}
	hosts := make([]*Host, len(targets))
	sem := make(chan struct{}, opts.Concurrency)
	var wg sync.WaitGroup
	var doneMu sync.Mutex
	done := 0
	for i, t := range targets {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			hosts[i] = &Host{Target: t, State: Failed, Err: fmt.Sprintf("not started: %v", context.Cause(ctx))}
			continue
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			hosts[i] = e.checkHost(ctx, t)
			if opts.Progress != nil {
				doneMu.Lock()
				done++
				opts.Progress(done, len(targets), hosts[i])
				doneMu.Unlock()
			}
		}()
	}
	wg.Wait()
	return e.result(hosts)
}

// engine is one Check's shared state: the config parsed once per
// release, verdicts and outcomes interned by content, one pmproxy gate
// per pmproxy.
type engine struct {
	opts   Options
	inputs []analysis.Input

	mu         sync.Mutex
	parses     map[pcpver.Version]*parse
	verdicts   []Verdict
	verdictIDs map[[32]byte]int32
	outcomes   map[[32]byte]*outcome
	gates      *pmproxy.Gates // one per pmproxy, one decoding budget for all
}

// parse is the config as one release reads it (analysis.Parse), shared
// by its hosts: each checks it against its own source.
type parse struct {
	once sync.Once
	res  *analysis.Result
	keys []Definition // every definition, in file order
}

func (e *engine) parsed(v pcpver.Version) *parse {
	e.mu.Lock()
	p, ok := e.parses[v]
	if !ok {
		p = &parse{}
		e.parses[v] = p
	}
	e.mu.Unlock()
	p.once.Do(func() {
		cfg := analysis.Config{Version: analysis.VersionChoice{Version: v}, InDoms: e.opts.InDoms, Rules: e.opts.Rules}
		p.res = analysis.Parse(e.inputs, cfg, analysis.Options{})
		for _, f := range p.res.Files {
			for _, d := range f.File.Definitions.All() {
				p.keys = append(p.keys, Definition{Path: f.File.Path, Line: int(d.Range.Start.Line), Name: d.Name})
			}
		}
	})
	return p
}

// open opens a target's source through package choose, with one gate
// per pmproxy for the requests in flight to it.
func (e *engine) open(ctx context.Context, t Target) (pmclient.Source, error) {
	var gate *pmproxy.Gate
	if proxy := t.Source.PMProxy; proxy != "" {
		gate = e.gates.For(proxy) // by scheme, host and port, not URL text
	}
	return choose.Open(ctx, t.Source, choose.Options{Getenv: e.opts.Getenv, Lazy: true, Gate: gate})
}

// knownVersion answers Version with what the source already said, so
// resolving the release costs no second request.
type knownVersion struct {
	pmclient.Source
	v   string
	err error
}

func (k knownVersion) Version(context.Context) (string, error) { return k.v, k.err }

// plainSource hides everything but pmclient.Source: the checker then
// skips its "did you mean" suggestions, which read the whole namespace
// of every host for advice a fleet report does not show.
type plainSource struct{ pmclient.Source }

func (e *engine) checkHost(ctx context.Context, t Target) *Host {
	h := &Host{Target: t}
	start := time.Now()
	defer func() { h.Elapsed = time.Since(start) }()
	ctx, cancel := context.WithTimeoutCause(ctx, e.opts.HostTimeout, errHostTimeout)
	defer cancel()
	fail := func(state HostState, err error) *Host {
		if errors.Is(context.Cause(ctx), errHostTimeout) {
			state, err = TimedOut, fmt.Errorf("no complete answer within %v (%v)", e.opts.HostTimeout, err)
		}
		h.State, h.Err = state, err.Error()
		return h
	}
	src, err := e.opts.Open(ctx, t)
	if err != nil {
		return fail(Unreachable, err)
	}
	if c, ok := src.(interface{ Close() error }); ok {
		defer c.Close()
	}
	h.SourceName = src.Describe()
	// The first request: a host that is down or refuses says so here.
	raw, verr := src.Version(ctx)
	if verr != nil && t.live() {
		return fail(Unreachable, verr)
	}
	h.PCP, err = e.opts.Version.Resolve(ctx, knownVersion{src, raw, verr})
	if err != nil {
		return fail(Failed, err)
	}
	p := e.parsed(h.PCP.Version)
	res := analysis.Check(ctx, p.res.Against(plainSource{src}, h.PCP))
	if res.CheckErr != nil {
		return fail(Failed, res.CheckErr)
	}
	if ctx.Err() != nil {
		return fail(TimedOut, context.Cause(ctx))
	}
	vec := make([]int32, 0, len(p.keys))
	for _, f := range res.Files {
		byDef := map[*grammar.Definition][]Finding{}
		for d := range f.Findings.All() {
			if d.Severity == grammar.SeverityHint {
				continue // an editor's faded text, not a verdict
			}
			if def := f.File.DefinitionAtPos(d.Range.Start); def != nil {
				// A message naming the source ("no proc.* metrics in pmcd
				// at db1") would set each host apart: the report names
				// the hosts.
				msg := strings.ReplaceAll(d.Message, h.SourceName, "this host")
				byDef[def] = append(byDef[def], Finding{Code: d.Code, Severity: d.Severity, Message: msg, Range: d.Range})
			}
		}
		for _, d := range f.File.Definitions.All() {
			vec = append(vec, e.intern(Verdict{Fate: FateOf(h.PCP.Version, d, res.Report), Findings: byDef[d]}))
		}
	}
	h.outcome = e.internOutcome(h.PCP.Version, vec)
	h.State = Checked
	return h
}

// intern returns the id of a verdict, adding it when new.
func (e *engine) intern(v Verdict) int32 {
	hash := sha256.New()
	for _, s := range []string{v.Status, v.Desc, v.Message} {
		hash.Write([]byte(s))
		hash.Write([]byte{0})
	}
	for _, f := range v.Findings {
		fmt.Fprintf(hash, "%s\x00%d\x00%s\x00%d:%d\x00%d:%d\x00", f.Code, f.Severity, f.Message, f.Range.Start.Line, f.Range.Start.Col, f.Range.End.Line, f.Range.End.Col)
	}
	var key [32]byte
	hash.Sum(key[:0])
	e.mu.Lock()
	defer e.mu.Unlock()
	if id, ok := e.verdictIDs[key]; ok {
		return id
	}
	id := int32(len(e.verdicts))
	e.verdicts = append(e.verdicts, v)
	e.verdictIDs[key] = id
	return id
}

// internOutcome returns the shared outcome with these verdicts, in
// release v's order of definitions.
func (e *engine) internOutcome(v pcpver.Version, vec []int32) *outcome {
	buf := make([]byte, 4*len(vec), 4*len(vec)+16)
	for i, id := range vec {
		binary.LittleEndian.PutUint32(buf[4*i:], uint32(id))
	}
	buf = append(buf, v.String()...)
	key := sha256.Sum256(buf)
	e.mu.Lock()
	defer e.mu.Unlock()
	if o, ok := e.outcomes[key]; ok {
		return o
	}
	o := &outcome{verdicts: vec}
	e.outcomes[key] = o
	return o
}

// result lines the hosts' verdicts up on one list of definitions: every
// release's, in input and line order. Hosts kept verdicts in their
// release's order; they are mapped once per distinct outcome.
func (e *engine) result(hosts []*Host) *Result {
	r := &Result{Hosts: hosts, verdicts: e.verdicts}
	order := map[string]int{}
	for i, in := range e.inputs {
		if _, ok := order[in.Path]; !ok {
			order[in.Path] = i
		}
	}
	index := map[Definition]int{}
	var versions []pcpver.Version
	for v := range e.parses {
		versions = append(versions, v)
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i].Less(versions[j]) })
	for _, v := range versions {
		for _, k := range e.parses[v].keys {
			if _, ok := index[k]; !ok {
				index[k] = len(r.Definitions)
				r.Definitions = append(r.Definitions, k)
			}
		}
	}
	sort.SliceStable(r.Definitions, func(i, j int) bool {
		a, b := r.Definitions[i], r.Definitions[j]
		if order[a.Path] != order[b.Path] {
			return order[a.Path] < order[b.Path]
		}
		return a.Line < b.Line
	})
	for i, k := range r.Definitions {
		index[k] = i
	}
	remapped := map[*outcome]*outcome{}
	for _, h := range hosts {
		if h.outcome == nil {
			continue
		}
		if o, ok := remapped[h.outcome]; ok {
			h.outcome = o
			continue
		}
		keys := e.parses[h.PCP.Version].keys
		o := &outcome{verdicts: make([]int32, len(r.Definitions))}
		for i := range o.verdicts {
			o.verdicts[i] = -1
		}
		for j, k := range keys {
			o.verdicts[index[k]] = h.outcome.verdicts[j]
		}
		remapped[h.outcome] = o
		h.outcome = o
	}
	// Positions and source lines: the first checked host's release,
	// else the latest release's reading.
	v := pcpver.Latest
	for _, h := range hosts {
		if h.State == Checked {
			v = h.PCP.Version
			break
		}
	}
	for _, f := range e.parsed(v).res.Files {
		r.Files = append(r.Files, f.File)
	}
	return r
}
