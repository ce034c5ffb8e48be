package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// plainFile is the text of findings made up by the tests: without a lone
// "\r", their ranges are their positions' own lines and UTF-16 columns.
var plainFile = &grammar.File{Text: grammar.NewText(nil)}

// TestPublishParamsEqualMarshal: the publishDiagnostics params made from
// cached JSON are byte for byte what protocol.Marshal makes of the whole
// params, on the first publish (cache empty) and the next ones (the same
// findings from the cache, some changed), with related information (not
// cached), extra diagnostics, and none at all.
func TestPublishParamsEqualMarshal(t *testing.T) {
	u := uri.File("/tmp/t.conf")
	const docs = "https://example.org/docs"
	finding := func(line int32, code, msg string) grammar.Diagnostic {
		return grammar.Diagnostic{Range: grammar.Range{Start: grammar.Pos{Line: line, Col: 3}, End: grammar.Pos{Line: line, Col: 9}},
			Severity: grammar.SeverityWarning, Code: code, Message: msg}
	}
	withRelated := finding(7, "duplicate-name", `derived metric "a\b" is already defined`)
	withRelated.Related = []grammar.Related{{Range: grammar.Range{Start: grammar.Pos{Line: 1, Col: 1}, End: grammar.Pos{Line: 1, Col: 2}}, Message: "first defined here"}}
	first := []grammar.Diagnostic{finding(1, "unknown-metric", "unknown metric x.y"), withRelated, finding(9, "masked", "ünïcode \"quoted\" \t tab")}
	second := append([]grammar.Diagnostic{finding(2, "syntax", "Unexpected '('")}, first...)
	extra := []protocol.Diagnostic{{Message: protocol.String("fleet: 2 hosts"), Severity: protocol.DiagnosticSeverityInformation}}
	// The same finding at another severity, and at another place: not
	// the cached JSON.
	sevChanged, moved := first[0], first[0]
	sevChanged.Severity = grammar.SeverityError
	moved.Range.End.Col++
	moved.Range.End.Col16++
	var c diagnosticJSON
	for i, tc := range []struct {
		findings []grammar.Diagnostic
		extra    []protocol.Diagnostic
	}{{first, nil}, {first, nil}, {second, extra}, {nil, extra}, {nil, nil}, {second, nil}, {[]grammar.Diagnostic{sevChanged, moved}, nil}} {
		got, err := c.publishParams(nil, u, plainFile, int32(i+1), analysis.FindingsOf(tc.findings), tc.extra, docs)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]protocol.Diagnostic, 0, len(tc.findings)+len(tc.extra))
		for _, g := range tc.findings {
			all = append(all, toProtocolDiagnostic(u, plainFile, g, docs))
		}
		all = append(all, tc.extra...)
		want, err := protocol.Marshal(&protocol.PublishDiagnosticsParams{URI: u, Version: protocol.NewOptional(int32(i + 1)), Diagnostics: all})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("publish %d:\ngot  %s\nwant %s", i, got, want)
		}
	}
}

// TestDiagnosticJSONBounded: however many findings are published, the
// cache holds at most two generations.
func TestDiagnosticJSONBounded(t *testing.T) {
	var c diagnosticJSON
	u := uri.File("/tmp/t.conf")
	for i := range 5 * diagnosticJSONGeneration {
		g := grammar.Diagnostic{Range: grammar.Range{Start: grammar.Pos{Line: int32(i + 1), Col: 1}}, Code: "syntax", Message: fmt.Sprint("finding ", i)}
		if _, err := c.encode(nil, u, plainFile, &g, ""); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(c.cur) + len(c.prev); n > 2*diagnosticJSONGeneration {
		t.Errorf("%d findings' JSON kept, want at most %d", n, 2*diagnosticJSONGeneration)
	}
}

// TestPublishReusesLastPublication: publishes of lists that change a
// little each time (a finding inserted, dropped or changed, at the start,
// the end or between; some with related information) are byte for byte
// protocol.Marshal's, for two documents in turn, and the documents whose
// last publication is kept stay bounded.
func TestPublishReusesLastPublication(t *testing.T) {
	const docs = "https://example.org/docs"
	rng := rand.New(rand.NewPCG(1, 18))
	finding := func(n int) grammar.Diagnostic {
		g := grammar.Diagnostic{Range: grammar.Range{Start: grammar.Pos{Line: int32(n), Col: 1}, End: grammar.Pos{Line: int32(n), Col: 5}},
			Severity: grammar.Severity(1 + n%3), Code: "unknown-metric", Message: fmt.Sprint("unknown metric m", n)}
		if n%7 == 0 {
			g.Related = []grammar.Related{{Range: grammar.Range{Start: grammar.Pos{Line: 1, Col: 1}, End: grammar.Pos{Line: 1, Col: 2}}, Message: "first defined here"}}
		}
		return g
	}
	lists := map[uri.URI][]grammar.Diagnostic{uri.File("/tmp/a.conf"): nil, uri.File("/tmp/b.conf"): nil}
	var c diagnosticJSON
	next := 0
	for round := range 400 {
		for u, list := range lists {
			list = slices.Clone(list) // a published list never changes (analysis.FindingsOf)
			switch at := rng.IntN(len(list) + 1); rng.IntN(4) {
			case 0:
				list = slices.Insert(list, at, finding(next))
				next++
			case 1:
				if at < len(list) {
					list = slices.Delete(list, at, at+1)
				}
			case 2:
				if at < len(list) {
					list[at] = finding(next)
					next++
				}
			}
			lists[u] = list
			got, err := c.publishParams(nil, u, plainFile, int32(round), analysis.FindingsOf(list), nil, docs)
			if err != nil {
				t.Fatal(err)
			}
			if want := marshalParams(t, u, plainFile, int32(round), list, docs); string(got) != want {
				t.Fatalf("round %d, %s:\ngot  %s\nwant %s", round, u, got, want)
			}
		}
	}
	for i := range 3 * lastPublications {
		if _, err := c.publishParams(nil, uri.File(fmt.Sprintf("/tmp/%d.conf", i)), plainFile, 1, analysis.FindingsOf([]grammar.Diagnostic{finding(1)}), nil, docs); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.last) > lastPublications {
		t.Errorf("the last publications of %d documents kept, want at most %d", len(c.last), lastPublications)
	}
}

// TestPublishFrame: the frame publish composes in place is what a client
// reads: a Content-Length header counting the body's bytes exactly, and a
// body that decodes as a publishDiagnostics notification whose params
// are publishParams' bytes. Sizes around a change in the length's digits,
// the smallest, and 500 findings (the 100,000-line keystroke's), one
// frame after another in the same reused buffer.
func TestPublishFrame(t *testing.T) {
	u := uri.File("/tmp/frame.conf")
	const docs = "https://example.org/docs"
	var c diagnosticJSON
	for _, n := range []int{0, 1, 2, 30, 500, 3} {
		findings := make([]grammar.Diagnostic, n)
		for i := range findings {
			findings[i] = grammar.Diagnostic{Range: grammar.Range{Start: grammar.Pos{Line: int32(i)}, End: grammar.Pos{Line: int32(i), Col: 5}},
				Severity: grammar.SeverityError, Code: "unknown-metric", Message: fmt.Sprintf("unknown metric m%d", i)}
		}
		var frame []byte
		send := func(_ context.Context, f [][]byte) error { frame = bytes.Join(f, nil); return nil }
		if err := c.publish(context.Background(), send, u, plainFile, int32(n), analysis.FindingsOf(findings), nil, docs); err != nil {
			t.Fatal(err)
		}
		head, body, ok := strings.Cut(string(frame), "\r\n\r\n")
		if !ok {
			t.Fatalf("%d findings: no header in %.80q", n, frame)
		}
		length, err := strconv.Atoi(strings.TrimPrefix(head, "Content-Length: "))
		if err != nil || !strings.HasPrefix(head, "Content-Length: ") {
			t.Fatalf("%d findings: header %q", n, head)
		}
		if length != len(body) {
			t.Fatalf("%d findings: Content-Length %d, body of %d bytes", n, length, len(body))
		}
		msg, err := jsonrpc2.DecodeMessage([]byte(body))
		if err != nil {
			t.Fatalf("%d findings: %v", n, err)
		}
		note, ok := msg.(*jsonrpc2.Notification)
		if !ok || note.Method() != protocol.MethodTextDocumentPublishDiagnostics {
			t.Fatalf("%d findings: decoded %T %+v, want a publishDiagnostics notification", n, msg, msg)
		}
		want, err := c.publishParams(nil, u, plainFile, int32(n), analysis.FindingsOf(findings), nil, docs)
		if err != nil {
			t.Fatal(err)
		}
		if string(note.Params()) != string(want) {
			t.Fatalf("%d findings: params\n%s\nwant\n%s", n, note.Params(), want)
		}
	}
}

// bufferConn is a ReadWriteCloser that keeps what is written.
type bufferConn struct{ bytes.Buffer }

func (*bufferConn) Close() error { return nil }

// TestFrameSenderStopsWhenTheSessionIsOver: a composed frame is written
// whole while the session lasts, and not at all after exit or once the
// connection is done (a publication finished late must not reach a pipe
// the client closed).
func TestFrameSenderStopsWhenTheSessionIsOver(t *testing.T) {
	for _, end := range []string{"exit", "connection done"} {
		var out bufferConn
		exited, done := make(chan struct{}), make(chan struct{})
		send := frameSender(&lockedConn{ReadWriteCloser: &out}, exited, done)
		if err := send(context.Background(), [][]byte{[]byte("Content-Length: 2\r\n\r\n"), []byte("{}")}); err != nil {
			t.Fatal(err)
		}
		if end == "exit" {
			close(exited)
		} else {
			close(done)
		}
		if err := send(context.Background(), [][]byte{[]byte("Content-Length: 2\r\n\r\n[]")}); !errors.Is(err, errSessionOver) {
			t.Errorf("%s: sending after it: %v, want errSessionOver", end, err)
		}
		if got := out.String(); got != "Content-Length: 2\r\n\r\n{}" {
			t.Errorf("%s: written %q", end, got)
		}
	}
}

// pieceConn records the length of each write it is given, taking at most
// max bytes of one (a short write, as a socket may make), and fails the
// write after failAfter bytes when failAfter > 0.
type pieceConn struct {
	bufferConn
	writes         []int
	max, failAfter int
}

func (c *pieceConn) Write(p []byte) (int, error) {
	c.writes = append(c.writes, len(p))
	p = p[:min(len(p), c.max)]
	if c.failAfter > 0 && c.Len()+len(p) > c.failAfter {
		n, _ := c.bufferConn.Write(p[:c.failAfter-c.Len()])
		return n, io.ErrClosedPipe
	}
	return c.bufferConn.Write(p)
}

// TestWriteInPieces: a message goes to the client in writes of at most
// writePiece bytes, in order and whole, short writes continued; a failed
// write ends it with the bytes written counted.
func TestWriteInPieces(t *testing.T) {
	msg := make([]byte, 3*writePiece+100)
	for i := range msg {
		msg[i] = byte('a' + i%26)
	}
	for _, max := range []int{len(msg), writePiece / 3} {
		out := &pieceConn{max: max}
		n, err := (&lockedConn{ReadWriteCloser: out}).Write(msg)
		if err != nil || n != len(msg) || !bytes.Equal(out.Bytes(), msg) {
			t.Fatalf("short writes of %d: wrote %d of %d (%v), same bytes %v", max, n, len(msg), err, bytes.Equal(out.Bytes(), msg))
		}
		for _, w := range out.writes {
			if w > writePiece {
				t.Errorf("short writes of %d: a write of %d bytes, over %d", max, w, writePiece)
			}
		}
		if max == len(msg) && len(out.writes) != 4 {
			t.Errorf("%d writes of %d bytes, want 4: %v", len(out.writes), len(msg), out.writes)
		}
	}
	stuck := &pieceConn{max: 0} // takes nothing, and says nothing is wrong
	if n, err := (&lockedConn{ReadWriteCloser: stuck}).Write(msg); !errors.Is(err, io.ErrShortWrite) || n != 0 {
		t.Errorf("a writer that takes nothing: wrote %d, %v; want io.ErrShortWrite", n, err)
	}
	out := &pieceConn{max: len(msg), failAfter: writePiece + 10}
	n, err := (&lockedConn{ReadWriteCloser: out}).Write(msg)
	if !errors.Is(err, io.ErrClosedPipe) || n != writePiece+10 {
		t.Errorf("failing after %d bytes: wrote %d, %v", writePiece+10, n, err)
	}
}

// TestWriteRuns: a message given as runs goes to the client in order and
// whole, in writes of at most writePiece bytes; a run of minDirectWrite
// bytes or more is written from where it is, shorter ones joined with
// what follows them (a header, a keystroke's few changed findings);
// short writes are continued and a failed write ends it.
func TestWriteRuns(t *testing.T) {
	run := func(n int, c byte) []byte { return bytes.Repeat([]byte{c}, n) }
	for _, tc := range []struct {
		name   string
		runs   [][]byte
		writes []int // with a writer that takes every write whole
	}{
		{"none", nil, nil},
		{"empty runs", [][]byte{{}, {}}, nil},
		{"one short", [][]byte{run(10, 'a')}, []int{10}},
		{"header, findings, end", [][]byte{run(60, 'h'), run(3*writePiece+5, 'f'), run(3, 'e')},
			[]int{writePiece, writePiece, writePiece, 68}},
		{"a keystroke", [][]byte{run(60, 'h'), run(2*writePiece, 'a'), run(400, 'x'), run(writePiece+10, 'b'), run(2, 'e')},
			[]int{writePiece, writePiece, writePiece, 472}},
		{"a long run after short ones", [][]byte{run(10, 'h'), run(20, 'x'), run(minDirectWrite, 'a')},
			[]int{minDirectWrite + 30}},
		{"short runs over a piece", [][]byte{run(minDirectWrite-1, 'a'), run(minDirectWrite-1, 'b'), run(minDirectWrite-1, 'c'), run(minDirectWrite-1, 'd'), run(minDirectWrite-1, 'e')},
			[]int{writePiece, 5*(minDirectWrite-1) - writePiece}},
	} {
		want := bytes.Join(tc.runs, nil)
		for _, max := range []int{writePiece, 100} {
			out := &pieceConn{max: max}
			if err := (&lockedConn{ReadWriteCloser: out}).writeRuns(tc.runs); err != nil || !bytes.Equal(out.Bytes(), want) {
				t.Fatalf("%s, short writes of %d: %v, wrote %d bytes of %d, same bytes %v", tc.name, max, err, out.Len(), len(want), bytes.Equal(out.Bytes(), want))
			}
			if max == writePiece && !slices.Equal(out.writes, tc.writes) {
				t.Errorf("%s: writes %v, want %v", tc.name, out.writes, tc.writes)
			}
		}
	}
	out := &pieceConn{max: writePiece, failAfter: writePiece + 10}
	if err := (&lockedConn{ReadWriteCloser: out}).writeRuns([][]byte{run(3*writePiece, 'a')}); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("failing after %d bytes: %v", writePiece+10, err)
	}
}

// TestPublishKeepsItsFrame: the last publication's JSON stays in the frame
// it was sent in, and the frame is reused only once a newer publication
// has replaced it. Keystrokes through publish, each changing one finding
// of 500 (at the start, the middle, the end) and sometimes adding extra
// diagnostics large enough to move the frame after the findings were
// composed: every frame sent is what protocol.Marshal makes of the whole
// list, so no frame was overwritten while its JSON was still read.
func TestPublishKeepsItsFrame(t *testing.T) {
	u := uri.File("/tmp/keystrokes.conf")
	const docs = "https://example.org/docs"
	findings := keystrokeFindings(500)
	big := []protocol.Diagnostic{{Message: protocol.String(strings.Repeat("fleet ", 60_000)), Severity: protocol.DiagnosticSeverityInformation}}
	var c diagnosticJSON
	var frame []byte
	send := func(_ context.Context, f [][]byte) error { frame = bytes.Join(f, nil); return nil }
	for round := range 40 {
		findings = slices.Clone(findings) // a snapshot's list is never changed
		at := []int{0, 250, len(findings) - 1, 123}[round%4]
		findings[at].Message = fmt.Sprintf("round %d: metric m%d is not defined before this line", round, at)
		var extra []protocol.Diagnostic
		if round%5 == 2 {
			extra = big
		}
		if round%9 == 8 {
			findings = findings[:len(findings)-1]
		}
		if err := c.publish(context.Background(), send, u, plainFile, int32(round), analysis.FindingsOf(findings), extra, docs); err != nil {
			t.Fatal(err)
		}
		all := make([]protocol.Diagnostic, 0, len(findings)+len(extra))
		for _, g := range findings {
			all = append(all, toProtocolDiagnostic(u, plainFile, g, docs))
		}
		want, err := protocol.Marshal(&protocol.PublishDiagnosticsParams{URI: u, Version: protocol.NewOptional(int32(round)), Diagnostics: append(all, extra...)})
		if err != nil {
			t.Fatal(err)
		}
		_, body, _ := strings.Cut(string(frame), "\r\n\r\n")
		msg, err := jsonrpc2.DecodeMessage([]byte(body))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if got := msg.(*jsonrpc2.Notification).Params(); string(got) != string(want) {
			t.Fatalf("round %d: params differ from protocol.Marshal's (%d and %d bytes)", round, len(got), len(want))
		}
	}
}

// TestPublishAllocatesWhatChanged: a keystroke's publication of 500
// findings, one of them changed, allocates a small part of their JSON
// (about 150 KB): the frames are reused and the findings' JSON is not
// copied out of them. It runs under -race too, which is why the frames are
// not a sync.Pool's.
func TestPublishAllocatesWhatChanged(t *testing.T) {
	u := uri.File("/tmp/alloc.conf")
	const docs = "https://example.org/docs"
	findings := keystrokeFindings(500)
	typed := slices.Clone(findings)
	typed[250].Message = "unknown metric kernel.all.loadx"
	var c diagnosticJSON
	send := func(context.Context, [][]byte) error { return nil }
	lists := [][]grammar.Diagnostic{findings, typed}
	round := 0
	publish := func() {
		if err := c.publish(context.Background(), send, u, plainFile, int32(round), analysis.FindingsOf(lists[round%2]), nil, docs); err != nil {
			t.Fatal(err)
		}
		round++
	}
	for range 4 { // the cache and the frames warm
		publish()
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const keystrokes = 50
	for range keystrokes {
		publish()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / keystrokes; per > 16<<10 {
		t.Errorf("a publication of 500 findings, one changed, allocated %d bytes; want at most 16 KiB", per)
	}
}

// keystrokeFindings are n findings of one code on every other line, as
// the 100,000-line keystroke benchmark's document has 500 of.
func keystrokeFindings(n int) []grammar.Diagnostic {
	findings := make([]grammar.Diagnostic, n)
	for i := range findings {
		findings[i] = grammar.Diagnostic{Range: grammar.Range{Start: grammar.Pos{Line: int32(2 * i)}, End: grammar.Pos{Line: int32(2 * i), Col: 7}},
			Severity: grammar.SeverityWarning, Code: "attr-undefined-metric", Message: fmt.Sprintf("metric m%d is not defined before this line", i)}
	}
	return findings
}

// TestMovedFindingFromCache: a finding moved to other lines (an Enter
// above it) is its new range and its cached JSON after it, one entry for
// both places, byte for byte what protocol.Marshal writes.
func TestMovedFindingFromCache(t *testing.T) {
	var c diagnosticJSON
	u := uri.File("/tmp/t.conf")
	g := grammar.Diagnostic{Range: grammar.Range{Start: grammar.Pos{Line: 7, Col: 3, Col16: 3}, End: grammar.Pos{Line: 7, Col: 15, Col16: 14}},
		Severity: grammar.SeverityWarning, Code: "unknown-metric", Message: `unknown metric "x"`}
	for _, line := range []int32{7, 1007, 6, 100000} {
		moved := g
		moved.Range.Start.Line, moved.Range.End.Line = line, line+1
		got, err := c.encode(nil, u, plainFile, &moved, "https://example.org/docs")
		if err != nil {
			t.Fatal(err)
		}
		d := toProtocolDiagnostic(u, plainFile, moved, "https://example.org/docs")
		want, err := protocol.Marshal(&d)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("line %d:\ngot  %s\nwant %s", line, got, want)
		}
		if n := len(c.cur) + len(c.prev); n != 1 {
			t.Fatalf("line %d: %d entries cached, want the one the finding's places share", line, n)
		}
	}
}

// TestPublishSameFindingOtherText: the same findings (the same list, at
// the same addresses) published again for a text whose lone "\r"s moved
// are encoded at their new ranges, not taken from the last publication;
// and published again for the same text, they are the last publication's.
func TestPublishSameFindingOtherText(t *testing.T) {
	const docs = "https://example.org/docs"
	u := uri.File("/tmp/cr.conf")
	list := []grammar.Diagnostic{
		{Range: grammar.Range{Start: grammar.Pos{Line: 1, Col: 1, Col16: 0}, End: grammar.Pos{Line: 1, Col: 2, Col16: 1}}, Severity: grammar.SeverityWarning, Code: "unknown-metric", Message: "first"},
		{Range: grammar.Range{Start: grammar.Pos{Line: 2, Col: 1, Col16: 0}, End: grammar.Pos{Line: 2, Col: 2, Col16: 1}}, Severity: grammar.SeverityWarning, Code: "unknown-metric", Message: "second"},
	}
	var c diagnosticJSON
	var last []byte // the buffer of the last publication's first run
	for round, text := range []string{"a = b\rc = d\ne = f\n", "a = b\rc = d\ne = f\n", "a = b c = d\ne = f\n", "a = b c = d\ne = f\n", "a = b\r\rc = d\ne = f\n"} {
		f := &grammar.File{Text: grammar.NewText([]byte(text))}
		got, err := c.publishParams(nil, u, f, int32(round), analysis.FindingsOf(list), nil, docs)
		if err != nil {
			t.Fatal(err)
		}
		if want := marshalParams(t, u, f, int32(round), list, docs); string(got) != want {
			t.Fatalf("round %d, %q:\ngot  %s\nwant %s", round, text, got, want)
		}
		from := c.last[u].json.runs[0].from
		if round%2 == 1 && unsafe.SliceData(from) != unsafe.SliceData(last) {
			t.Errorf("round %d, the text the same as the last time: the last publication's JSON not reused", round)
		}
		last = from
	}
}

// marshalParams is what protocol.Marshal makes of the publishDiagnostics
// params of list (of f, its text).
func marshalParams(t *testing.T, u uri.URI, f *grammar.File, version int32, list []grammar.Diagnostic, docs string) string {
	t.Helper()
	all := []protocol.Diagnostic{}
	for _, g := range list {
		all = append(all, toProtocolDiagnostic(u, f, g, docs))
	}
	want, err := protocol.Marshal(&protocol.PublishDiagnosticsParams{URI: u, Version: protocol.NewOptional(version), Diagnostics: all})
	if err != nil {
		t.Fatal(err)
	}
	return string(want)
}
