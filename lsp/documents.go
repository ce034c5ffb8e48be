package lsp

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// document is one open document: its latest text, and its latest
// snapshots, which may be of an older version while a new analysis is
// pending.
//
// Edits only record the text and schedule an analysis (debounced), so a
// burst of keystrokes costs one analysis and a slow metadata source never
// holds up the messages that follow.
type document struct {
	version int32
	seq     uint64 // edits made since open: versions as the server counts them
	// text is the latest text: an edit makes a new Text sharing all but
	// the pieces it touches, so a keystroke copies kilobytes, not the
	// document. Texts are compared by identity: one per version.
	text    *grammar.Text
	checked *snapshot   // the latest complete analysis
	syntax  *snapshot   // the parse of the latest analysed text, before its check
	gen     int         // bumped by every edit; an analysis of an older gen is dropped
	timer   *time.Timer // the pending debounced analysis
	// stop cancels the analysis in flight: a newer edit (or the
	// document's close) makes it obsolete, and it must not hold the CPU
	// for the check of a text nobody will see.
	stop   context.CancelFunc
	done   chan struct{} // closed when the analysis of gen is stored
	closed bool          // done is closed
	memo   *grammar.Memo // parses of the lines, reused across versions
	// parseBase and checkBase are the latest parse and complete analysis
	// made, of whichever generation (with the generations they are of):
	// the next analysis starts from them even when a newer edit made
	// them obsolete before they were stored.
	parseBase, checkBase   *snapshot
	parseBaseGen, checkGen int
	// edits are the latest edits, oldest first, so that an analysis
	// knows what changed since the text of its base snapshot without
	// comparing the two texts.
	edits []versionEdit
}

// versionEdit is the change one didChange made, the document's edit
// count going from from to to (the client's versions need not grow).
type versionEdit struct {
	from, to uint64
	ch       grammar.TextChange
}

// maxEdits bounds the edits a document remembers.
const maxEdits = 64

// changeSince is the one change that made the document's text of the
// snapshot prev; ok is false when the edits since are not all known (an
// analysis then compares the texts).
func (d *document) changeSince(prev *snapshot) (ch grammar.TextChange, ok bool) {
	if prev == nil {
		return ch, false
	}
	i := len(d.edits) - 1
	for i >= 0 && d.edits[i].from != prev.seq {
		i--
	}
	if i < 0 {
		return ch, false
	}
	ch = d.edits[i].ch
	for k := i + 1; k < len(d.edits); k++ {
		if d.edits[k].from != d.edits[k-1].to {
			return ch, false
		}
		ch = ch.Then(d.edits[k].ch)
	}
	last := d.edits[len(d.edits)-1]
	if last.to != d.seq || d.text.Len()-prev.text.Len() != ch.NewEnd-ch.OldEnd {
		return ch, false
	}
	return ch, true
}

// finish closes done: the analysis of gen is stored (or never will be).
func (d *document) finish() {
	if !d.closed {
		close(d.done)
		d.closed = true
	}
}

// documents are the open documents, under their own lock.
type documents struct {
	mu      sync.Mutex
	m       map[uri.URI]*document
	size    openSize // of the texts, told to Options.OpenDocuments
	workers *workers // run the analyses (schedule)
}

func newDocuments(sized func(bytes int64)) *documents {
	return &documents{m: map[uri.URI]*document{}, size: openSize{told: -1, tell: sized}, workers: newWorkers()}
}

// open records a newly opened document.
func (ds *documents) open(u uri.URI, version int32, text string) {
	ds.mu.Lock()
	gen := 0
	if d := ds.m[u]; d != nil {
		// Opened again: the old text's analysis is obsolete, and its
		// generations must not match the new document's.
		if d.timer != nil {
			d.timer.Stop()
		}
		d.cancelRun()
		d.finish()
		gen = d.gen + 1
		ds.size.add(-int64(d.text.Len()))
	}
	ds.m[u] = &document{version: version, text: grammar.NewText(textBytes(text)), done: make(chan struct{}), memo: grammar.NewMemo(), gen: gen}
	ds.size.add(int64(len(text)))
	ds.mu.Unlock()
}

// edit applies a client's changes to a document's text, and returns the
// line (0-based, as the client counts) where they start, or -1 when
// they change nothing.
func (ds *documents) edit(u uri.URI, version int32, changes []protocol.TextDocumentContentChangeEvent) (line int, err error) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d := ds.m[u]
	if d == nil {
		return -1, fmt.Errorf("didChange for %s, which is not open", u)
	}
	text := d.text
	var all grammar.TextChange
	for i, ch := range changes {
		var one grammar.TextChange
		switch c := ch.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			// Only the bytes between what the two texts share at their
			// ends changed: the analysis redoes those lines alone, as
			// for a ranged change.
			b := textBytes(c.Text)
			prefix, suffix := text.CommonEnds(b)
			oldEnd, newEnd := text.Len()-suffix, len(b)-suffix
			text = text.Replace(prefix, oldEnd, b[prefix:newEnd]) // Replace copies it
			one = grammar.TextChange{Start: prefix, OldEnd: oldEnd, NewEnd: newEnd}
		case *protocol.TextDocumentContentChangePartial:
			// A range given end first is the same range, as clients'
			// own documents read it.
			start := text.Offset(int(c.Range.Start.Line), int(c.Range.Start.Character))
			end := text.Offset(int(c.Range.End.Line), int(c.Range.End.Character))
			start, end = min(start, end), max(start, end)
			text = text.Replace(start, end, textBytes(c.Text))
			one = grammar.TextChange{Start: start, OldEnd: end, NewEnd: start + len(c.Text)}
		}
		if i == 0 {
			all = one
		} else {
			all = all.Then(one)
		}
	}
	if len(changes) > 0 {
		if len(d.edits) == maxEdits {
			d.edits = append(d.edits[:0], d.edits[1:]...)
		}
		d.edits = append(d.edits, versionEdit{from: d.seq, to: d.seq + 1, ch: all})
		d.seq++
	}
	ds.size.add(int64(text.Len() - d.text.Len()))
	d.text, d.version = text, version
	line = -1
	if len(changes) > 0 && (all.OldEnd > all.Start || all.NewEnd > all.Start) {
		line, _ = text.Position(min(all.Start, text.Len())) // the client's line
	}
	return line, nil
}

// close forgets a document; an analysis in flight is dropped.
func (ds *documents) close(u uri.URI) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if d := ds.m[u]; d != nil {
		if d.timer != nil {
			d.timer.Stop()
		}
		d.cancelRun()
		d.gen++
		d.finish()
		ds.size.add(-int64(d.text.Len()))
	}
	delete(ds.m, u)
}

// stopAll stops every pending analysis (the session ends).
func (ds *documents) stopAll() {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ds.workers.stop()
	for _, d := range ds.m {
		if d.timer != nil {
			d.timer.Stop()
		}
		d.cancelRun()
	}
}

// uris lists the open documents.
func (ds *documents) uris() []uri.URI {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	out := make([]uri.URI, 0, len(ds.m))
	for u := range ds.m {
		out = append(out, u)
	}
	return out
}

// schedule starts a new generation of a document's analysis: run(gen)
// after delay, the pending one cancelled.
func (ds *documents) schedule(u uri.URI, delay time.Duration, run func(gen int)) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d := ds.m[u]
	if d == nil {
		return
	}
	d.gen++
	d.finish() // wake waiters: they wait again for the new gen
	d.done, d.closed = make(chan struct{}), false
	if d.timer != nil {
		d.timer.Stop()
	}
	d.cancelRun() // a newer edit wins
	gen := d.gen
	if delay <= 0 {
		// No debounce: to a worker now. A timer of no delay woke the
		// runtime's network poller (a system call, 20 µs a keystroke)
		// and ran on a goroutine of its own before a worker had it.
		d.timer = nil
		ds.workers.run(func() { run(gen) })
		return
	}
	d.timer = time.AfterFunc(delay, func() { ds.workers.run(func() { run(gen) }) })
}

// begin returns what the analysis of generation gen reads, and its
// context, from parent: cancelled by the next edit (schedule) or the
// document's close. ok is false when the document moved on or closed.
func (ds *documents) begin(parent context.Context, u uri.URI, gen int) (ctx context.Context, text *grammar.Text, version int32, seq uint64, memo *grammar.Memo, prev, prevChecked *snapshot, change *grammar.TextChange, ok bool) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d := ds.m[u]
	if d == nil || d.gen != gen {
		return nil, nil, 0, 0, nil, nil, nil, nil, false
	}
	if ch, ok := d.changeSince(d.parseBase); ok {
		change = &ch
	}
	ctx, d.stop = context.WithCancel(parent)
	return ctx, d.text, d.version, d.seq, d.memo, d.parseBase, d.checkBase, change, true
}

// cancelRun cancels the analysis in flight, if any. The caller holds the
// documents' lock.
func (d *document) cancelRun() {
	if d.stop != nil {
		d.stop()
		d.stop = nil
	}
}

// complete says whether generation gen is the document's latest and its
// complete analysis is stored.
func (ds *documents) complete(u uri.URI, gen int) bool {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d := ds.m[u]
	return d != nil && d.gen == gen && d.closed
}

// current says whether gen is still the document's latest generation.
func (ds *documents) current(u uri.URI, gen int) bool {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d := ds.m[u]
	return d != nil && d.gen == gen
}

// storeSyntax keeps the parse of generation gen, and runs also (the
// workspace index update) under the lock, so a stale parse never
// overwrites a newer one's effects.
func (ds *documents) storeSyntax(u uri.URI, gen int, snap *snapshot, also func()) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d := ds.m[u]
	if d == nil {
		return
	}
	if gen >= d.parseBaseGen {
		d.parseBase, d.parseBaseGen = snap, gen
	}
	if d.gen == gen {
		d.syntax = snap
		also()
	}
}

// storeChecked keeps the complete analysis of generation gen and wakes
// its waiters; false when the document moved on (the snapshot is
// dropped).
func (ds *documents) storeChecked(u uri.URI, gen int, snap *snapshot) bool {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d := ds.m[u]
	if d != nil && gen >= d.checkGen && snap.res.Checked {
		d.checkBase, d.checkGen = snap, gen
	}
	if d == nil || d.gen != gen {
		return false
	}
	d.checked = snap
	d.finish()
	return true
}

// checkedSnapshots are the latest complete analyses of the open
// documents that were checked against a source (for the preview loop).
func (ds *documents) checkedSnapshots() []*snapshot {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	var out []*snapshot
	for _, d := range ds.m {
		if d.checked != nil && d.checked.report != nil {
			out = append(out, d.checked)
		}
	}
	return out
}

// fresh says whether a snapshot is of the document's latest text, made
// with the configuration cfg.
func (d *document) fresh(snap *snapshot, cfg *config) bool {
	return snap != nil && snap.version == d.version && snap.text == d.text && snap.cfg == cfg
}

func (s *server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	td := params.TextDocument
	// The URI is decoded as a substring of the whole message, text
	// included: kept as the documents' key (and in every snapshot), it
	// held a copy of the message as long as the document was open (8 MB
	// for 1,000 documents of 4 KB, TestOpenDocumentsMemory).
	u := uri.URI(strings.Clone(string(td.URI)))
	s.docs.open(u, td.Version, td.Text)
	s.lenses.open(u)
	s.schedule(u, 0)
	return nil
}

func (s *server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	u := params.TextDocument.URI
	line, err := s.docs.edit(u, params.TextDocument.Version, params.ContentChanges)
	if err != nil {
		return err
	}
	if line >= 0 {
		s.lenses.move(u, uint32(line)) // the user is where they type
	}
	s.schedule(u, s.session.config().settings.debounce())
	return nil
}

func (s *server) DidSave(ctx context.Context, params *protocol.DidSaveTextDocumentParams) error {
	s.schedule(params.TextDocument.URI, 0)
	return nil
}

func (s *server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	u := params.TextDocument.URI
	s.workspace.closed(u)
	// Under publishing: a publish that found the document open is sent
	// before the empty list, and none after it keeps its publication.
	s.publishing.Lock()
	s.docs.close(u)
	s.diagJSON.forget(u)
	s.pullJSON.forget(u)
	s.links.forget(u)
	s.lenses.forget(u)
	s.pulls.forget(u)
	s.publishing.Unlock()
	return s.client.PublishDiagnostics(ctx, &protocol.PublishDiagnosticsParams{URI: u, Diagnostics: []protocol.Diagnostic{}})
}

// schedule (re)starts the analysis of a document after delay.
func (s *server) schedule(u uri.URI, delay time.Duration) {
	s.docs.schedule(u, delay, func(gen int) { s.analyse(u, gen) })
	if delay <= 0 {
		// The analysis is a worker's now, waiting in this thread's run
		// queue while the handler returns and its goroutine reads the
		// next message. Yielding runs the analysis here at once, on
		// the thread that is awake and has the edit in its cache, and
		// the reader goes on from the other one. Otherwise the
		// scheduler wakes the idle thread for the analysis: 70 to 100 µs
		// of every keystroke (docs/limits.md). The reader is not held
		// up: the other thread takes it. With one thread there is none
		// to wake, and the yield would only make the messages already
		// read wait for the analysis (a newer edit among them, until a
		// preemption).
		if runtime.GOMAXPROCS(0) > 1 {
			runtime.Gosched()
		}
	}
}

// reanalyseAll re-checks every open document now (new settings, or the
// source is back).
func (s *server) reanalyseAll() {
	for _, u := range s.docs.uris() {
		s.schedule(u, 0)
	}
}

// analyse runs the shared analysis of generation gen of a document under
// the current configuration and publishes its diagnostics, unless an edit
// made it obsolete meanwhile.
func (s *server) analyse(u uri.URI, gen int) {
	defer s.survive("analysis of " + string(u))
	run, text, version, seq, memo, prev, prevChecked, change, ok := s.docs.begin(s.bg, u, gen)
	if !ok {
		return
	}
	cfg := s.session.config()
	ac := analysis.Config{Version: cfg.pcp, Source: cfg.source, InDoms: cfg.indoms, DerivedControl: cfg.derivedControl, Rules: s.rulesFor(u), MaxPerCode: analysis.DefaultMaxPerCode}
	if s.session.down() {
		ac.Source = nil // syntax only until the source answers again
	}
	ctx, cancel := context.WithTimeout(run, 30*time.Second)
	defer cancel()
	parsed := reparse(prev, u, text, change, ac, memo)
	syntax := newSnapshot(cfg, u, version, seq, text, parsed)
	// The parse is enough for symbols, folding, tokens, formatting.
	s.docs.storeSyntax(u, gen, syntax, func() { s.workspace.update(u, syntax.file) })
	snap := syntax
	if ac.Source != nil {
		// The check of the previous version under this configuration
		// lets only what changed be checked again.
		var before *analysis.Result
		if prevChecked != nil && prevChecked.cfg == cfg {
			before = prevChecked.res
		}
		if before == nil && text.Len() >= syntaxFirstSize {
			// A big document checked whole (opened, or under new
			// settings): its syntax findings now, the others when checked.
			s.publishSyntax(u, gen, syntax)
		} else {
			// A slow source must not hide syntax errors: publish them
			// alone if the check takes a while.
			slow := time.AfterFunc(500*time.Millisecond, func() { s.publishSyntax(u, gen, syntax) })
			defer slow.Stop()
		}
		checked := analysis.Recheck(ctx, before, parsed)
		if run.Err() != nil {
			// A newer edit, or the close: nothing to store, even a check
			// that ended without an error (its look-ups may have failed
			// quietly, and the next Recheck would start from it).
			return
		}
		switch err := checked.CheckErr; {
		case err == nil:
		case unreachable(err):
			s.sourceFailed(cfg, err)
		default:
			s.log.Warn("semantic checks failed; syntax only", zap.Error(err))
		}
		snap = newSnapshot(cfg, u, version, seq, text, checked)
	}
	if s.docs.storeChecked(u, gen, snap) {
		s.publish(u, gen, snap)
		if text.Len() >= prepareSize {
			// The indexes the next keystroke would build after a full
			// analysis (66 ms at 100,000 lines), built while the user
			// reads.
			go func() {
				defer s.survive("preparing the next analysis of " + string(u))
				snap.res.Prepare()
			}()
		}
	}
}

// syntaxFirstSize is the size of a document from which its first check
// (a whole one) is preceded by a publication of its syntax findings: at
// 100,000 lines (5 MB) the parse takes a third of the time to the checked
// findings, and the user sees the syntax errors that much sooner. A
// smaller document's check is quick enough not to show its findings
// twice.
const syntaxFirstSize = 1 << 20

// prepareSize is the size of a document from which the indexes of the
// next keystroke's analysis are built once it is analysed whole
// (analysis.Result.Prepare). A smaller document's first keystroke builds
// them in a fraction of a millisecond, and a document never edited (of
// the many a workspace may have open) does without them: they were an
// eighth of what an open document of 4 KB held.
const prepareSize = 256 << 10

// publish sends a snapshot's diagnostics unless the document moved on.
func (s *server) publish(u uri.URI, gen int, snap *snapshot) { s.publishIf(u, gen, snap, false) }

// publishSyntax publishes the syntax findings of generation gen while its
// check is slow, unless the check is done: sent after the checked
// findings, they would hide them until the next edit.
func (s *server) publishSyntax(u uri.URI, gen int, snap *snapshot) { s.publishIf(u, gen, snap, true) }

// publishIf sends a snapshot's diagnostics unless the document moved on,
// or, for a syntax-only one, generation gen's complete analysis is
// stored. Publishes are one at a time, so that the test and the send are
// one step: the two of one generation cannot cross on the way out.
func (s *server) publishIf(u uri.URI, gen int, snap *snapshot, syntaxOnly bool) {
	s.publishing.Lock()
	defer s.publishing.Unlock()
	if !s.docs.current(u, gen) || (syntaxOnly && s.docs.complete(u, gen)) {
		return
	}
	extra := slices.Concat(s.fleetDiagnostics(snap), s.emptyNowDiagnostics(snap)) // (a fresh list: the fleet's may be kept)
	if s.pullsDiagnostics() {
		s.published(snap, extra) // the client asks for them (pulldiag.go)
		return
	}
	if s.sendFrame != nil {
		// Each finding's JSON from the cache of the last publishes: most
		// are the same as the last time.
		if err := s.diagJSON.publish(s.bg, s.sendFrame, u, snap.file, snap.version, snap.findings, extra, s.opts.DocsURL); err != nil {
			s.log.Debug("publishing diagnostics", zap.Error(err))
		}
		return
	}
	if err := s.client.PublishDiagnostics(s.bg, &protocol.PublishDiagnosticsParams{
		URI: u, Version: protocol.NewOptional(snap.version), Diagnostics: append(diagnostics(snap, s.opts.DocsURL), extra...),
	}); err != nil {
		s.log.Debug("publishing diagnostics", zap.Error(err))
	}
}

// parsed returns a snapshot of a document's latest text under the current
// configuration, for features that need no metadata; it never waits for
// the metadata source.
func (s *server) parsed(ctx context.Context, u uri.URI) *snapshot {
	cfg := s.session.config()
	s.docs.mu.Lock()
	d := s.docs.m[u]
	if d == nil {
		s.docs.mu.Unlock()
		return nil
	}
	for _, snap := range []*snapshot{d.checked, d.syntax} {
		if d.fresh(snap, cfg) {
			s.docs.mu.Unlock()
			return snap
		}
	}
	version, seq, text, memo, prev := d.version, d.seq, d.text, d.memo, d.syntax
	var change *grammar.TextChange
	if ch, ok := d.changeSince(prev); ok {
		change = &ch
	}
	s.docs.mu.Unlock()
	// Not parsed yet (within the debounce): parse now, without
	// disturbing the scheduled analysis.
	ac := analysis.Config{Version: cfg.pcp, DerivedControl: cfg.derivedControl, Rules: s.rulesFor(u), MaxPerCode: analysis.DefaultMaxPerCode}
	return newSnapshot(cfg, u, version, seq, text, reparse(prev, u, text, change, ac, memo))
}

// textBytes is a client's text as the bytes of a grammar.Text, without a
// copy: a 5 MB document would otherwise be copied on open. Nothing
// writes to a Text's bytes, and the string is never changed either.
func textBytes(text string) []byte { return unsafe.Slice(unsafe.StringData(text), len(text)) }

// reparse parses a document's text, reading again only what changed since
// prev (the parse of an earlier text, nil for none) when it can; change
// is what the edits since changed, when the document knows. The memo is
// trimmed to the lines of a text parsed whole.
func reparse(prev *snapshot, u uri.URI, text *grammar.Text, change *grammar.TextChange, ac analysis.Config, memo *grammar.Memo) *analysis.Result {
	opts := analysis.Options{Memo: memo, Change: change, Incremental: true}
	if prev == nil {
		res := analysis.Parse([]analysis.Input{analysis.BufferText(fileName(u), text)}, ac, opts)
		memo.Trim()
		return res
	}
	res, incremental := analysis.Reparse(prev.res, fileName(u), text, ac, opts)
	if !incremental {
		memo.Trim()
	}
	return res
}

// current returns the complete snapshot of a document's latest text
// under the current configuration, waiting for a pending analysis
// (started at once) up to a bound; after that, or when ctx ends, the
// latest complete snapshot is better than none (it is consistent: made
// with its own configuration).
func (s *server) current(ctx context.Context, u uri.URI) *snapshot {
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	restarted := false
	for {
		cfg := s.session.config()
		s.docs.mu.Lock()
		d := s.docs.m[u]
		if d == nil {
			s.docs.mu.Unlock()
			return nil
		}
		if d.fresh(d.checked, cfg) {
			snap := d.checked
			s.docs.mu.Unlock()
			return snap
		}
		if d.timer != nil && d.timer.Stop() {
			gen := d.gen
			go s.analyse(u, gen) // a request needs it now: skip the debounce
		} else if d.closed {
			// The analysis of the latest text is done, under a
			// configuration replaced since: analyse again, once.
			stale := d.checked
			s.docs.mu.Unlock()
			if restarted {
				return stale
			}
			restarted = true
			s.schedule(u, 0)
			continue
		}
		done, stale := d.done, d.checked
		s.docs.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return stale
		case <-deadline.C:
			return stale
		}
	}
}
