// Package lsp is the language server: it renders the shared analysis
// (package analysis) and the metadata sources over the Language Server
// Protocol. The session (session.go) and the open documents
// (documents.go) keep their state under their own locks; every request
// takes one immutable snapshot (snapshot.go) and the features are
// functions of it.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// codec encodes with go.lsp.dev/protocol's union-aware JSON functions
// (the library's own codec is unexported).
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case *jsonrpc2.RawMessage:
		if m == nil || *m == nil {
			return []byte("null"), nil
		}
		return *m, nil
	}
	return protocol.Marshal(v)
}

func (codec) Unmarshal(data []byte, v any) error {
	if raw, ok := v.(*jsonrpc2.RawMessage); ok {
		*raw = append((*raw)[:0], data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// cancelHandler honours "$/cancelRequest". Unlike the library's, it derives
// each call's cancellable context from the connection's context: jsonrpc2
// v1.0.1 recycles request contexts, and a context derived from one can be
// touched after recycling (a panic in the library's own CancelHandler).
// Requests are therefore handled one at a time, in order.
func cancelHandler(next jsonrpc2.Handler) jsonrpc2.Handler {
	var mu sync.Mutex
	handling := map[jsonrpc2.ID]context.CancelFunc{}
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == protocol.MethodCancelRequest {
			var params protocol.CancelParams
			if err := protocol.Unmarshal(req.Params(), &params); err != nil {
				return nil, fmt.Errorf("%w: %v", jsonrpc2.ErrParse, err)
			}
			var id jsonrpc2.ID
			switch v := params.ID.(type) {
			case protocol.Integer:
				id = jsonrpc2.NewNumberID(int64(v))
			case protocol.String:
				id = jsonrpc2.NewStringID(string(v))
			}
			mu.Lock()
			cancel := handling[id]
			mu.Unlock()
			if cancel != nil {
				cancel()
			}
			return nil, nil
		}
		if !req.IsCall() {
			return next(ctx, req)
		}
		id := req.ID()
		cctx, cancel := context.WithCancel(jsonrpc2.DetachContext(ctx))
		cctx = context.WithValue(cctx, releaseKey{}, func() { jsonrpc2.Async(ctx) })
		mu.Lock()
		handling[id] = cancel
		mu.Unlock()
		defer func() {
			mu.Lock()
			delete(handling, id)
			mu.Unlock()
			cancel()
		}()
		res, err := next(cctx, req)
		if cctx.Err() != nil && ctx.Err() == nil {
			// Cancelled by the client: say so (LSP's RequestCancelled)
			// rather than send a result computed from a cut-short wait.
			return nil, protocol.ErrRequestCancelled
		}
		return res, err
	}
}

// tolerate keeps one message from ending the session. go.lsp.dev/jsonrpc2
// fails the whole connection when a notification's handler returns an
// error or any handler panics; the process would then go on publishing
// but never answer another request. The LSP says a notification the
// server cannot handle is dropped (and one starting with "$/" may always
// be ignored), so here:
//
//   - a notification's error is logged and the notification dropped: at
//     debug for one the server does not know, at warn for a malformed one
//     (a didChange of a document never opened, params that do not decode);
//   - a panic is recovered and logged with its stack; a request gets
//     InternalError, and the connection stays up;
//   - a request's params that do not decode get InvalidParams naming the
//     member at fault (the protocol package says ParseError, which JSON-RPC
//     keeps for a message that is not JSON at all);
//   - a request refused without a code of its own (a rename of a metric
//     that cannot be renamed, an unknown command) gets RequestFailed, not 0.
func tolerate(log *zap.Logger, next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (res any, err error) {
		// The request's bytes are borrowed from the reader: keep copies
		// of what is reported after the handler returns.
		method, call := strings.Clone(req.Method()), req.IsCall()
		defer func() {
			if r := recover(); r != nil {
				log.Error("internal error: please report it", zap.String("method", method), zap.Any("panic", r), zap.Stack("stack"))
				res, err = nil, nil
				if call {
					err = jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s (please report it): %v", method, r)
				}
			}
		}()
		res, err = next(ctx, req)
		if err == nil {
			return res, nil
		}
		if errors.Is(err, jsonrpc2.ErrParse) {
			err = invalidParams(method, req.Params(), err)
		}
		if !call {
			if errors.Is(err, jsonrpc2.ErrMethodNotFound) {
				log.Debug("notification ignored: not one the server handles", zap.String("method", method))
			} else {
				log.Warn("notification dropped", zap.String("method", method), zap.Error(err))
			}
			return nil, nil
		}
		return nil, coded(err)
	}
}

// errRequestFailed is LSP's RequestFailed: a request that was well formed
// but that the server refuses or cannot carry out.
var errRequestFailed = jsonrpc2.NewError(jsonrpc2.Code(protocol.LSPErrorCodesRequestFailed), "request failed")

// coded gives an error without a JSON-RPC code RequestFailed, keeping
// its message; a coded error (InvalidParams, RequestCancelled, ...) is
// left as it is.
func coded(err error) error {
	if _, ok := errors.AsType[*jsonrpc2.Error](err); ok {
		return err
	}
	return jsonrpc2.Errorf(errRequestFailed.Code, "%v", err)
}

// lockedConn serialises writes, so a parse-error reply written by
// tolerantStream never interleaves with the connection's own messages.
type lockedConn struct {
	io.ReadWriteCloser
	mu sync.Mutex
	// gather is where writeRuns joins short runs into one write.
	gather []byte
}

// Write writes p whole, before any other message, in pieces of at most
// writePiece bytes.
func (c *lockedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writeAll(p)
}

// writeAll writes p in pieces of at most writePiece bytes. The caller
// holds mu.
func (c *lockedConn) writeAll(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k, err := c.ReadWriteCloser.Write(p[:min(len(p), writePiece)])
		n += k
		switch {
		case err != nil:
			return n, err
		case k == 0:
			return n, io.ErrShortWrite // a writer that takes nothing would loop forever
		}
		p = p[k:]
	}
	return n, nil
}

// writeRuns writes the runs of bytes of one message, in order and whole,
// before any other message, in writes of at most writePiece bytes as
// Write does. A write is a slice of one run where that is at least
// minDirectWrite bytes: the runs are written from where they are. Shorter
// runs (a frame's header, the findings a keystroke changed) are joined
// with what follows them into one write: the editor wakes for each write.
func (c *lockedConn) writeRuns(runs [][]byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// cur is what is left of runs[0] (the caller's list is not changed).
	var cur []byte
	next := func() {
		for len(cur) == 0 && len(runs) > 0 {
			cur, runs = runs[0], runs[1:]
		}
	}
	for next(); len(cur) > 0; next() {
		if len(cur) >= minDirectWrite {
			p := cur[:min(len(cur), writePiece)]
			if _, err := c.writeAll(p); err != nil {
				return err
			}
			cur = cur[len(p):]
			continue
		}
		if c.gather == nil {
			c.gather = make([]byte, 0, writePiece)
		}
		g := c.gather[:0]
		for ; len(cur) > 0 && len(g) < writePiece; next() {
			k := copy(g[len(g):writePiece], cur)
			g, cur = g[:len(g)+k], cur[k:]
		}
		if _, err := c.writeAll(g); err != nil {
			return err
		}
	}
	return nil
}

// minDirectWrite is the shortest run writeRuns writes from where it is:
// a shorter one is copied, with what follows it, into one write.
const minDirectWrite = writePiece / 4

// writePiece bounds one write to the client. Linux wakes a reader waiting
// on an empty pipe when a write ends, so the editor starts reading a
// 185 KB publishDiagnostics (500 findings) only once all of it is in the
// pipe, and then copies it out while the server waits for nothing: the
// two copies run one after the other. In pieces, the editor reads the
// first while the server writes the next. Measured with two processes
// over a 1 MB pipe, each idle between messages as at a keystroke: from
// the write's start to the reader holding the whole message, 510-610 µs
// in one write, 320-430 µs in pieces of 32 KB (24 KB and 48 KB did no
// better).
const writePiece = 32 << 10

// frameSender writes whole frames, given as their runs of bytes, to w
// until the session is over (exit, or the connection done), as the
// connection's Notify does: nothing after. A publication an analysis
// finishes after exit, or after the client closed its end, would be
// written to a pipe no one reads (and SIGPIPE ends a process whose
// stdout is a closed pipe, whatever its exit status was to be).
func frameSender(w *lockedConn, exited, done <-chan struct{}) func(context.Context, [][]byte) error {
	return func(ctx context.Context, frame [][]byte) error {
		select {
		case <-exited:
			return errSessionOver
		case <-done:
			return errSessionOver
		default:
			return w.writeFrame(ctx, frame)
		}
	}
}

// errSessionOver is a message not sent because the session has ended.
var errSessionOver = errors.New("the LSP session is over")

// writeFrame writes one whole base-protocol frame, given as its runs of
// bytes, unless ctx is done.
func (c *lockedConn) writeFrame(ctx context.Context, frame [][]byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.writeRuns(frame)
}

type releaseKey struct{}

// release lets the messages after a slow request (one that may wait for
// pmcd) be handled while it runs. Edits stay ordered: notifications are
// never released.
func release(ctx context.Context) {
	if f, ok := ctx.Value(releaseKey{}).(func()); ok {
		f()
	}
}

// ErrExitWithoutShutdown is Serve's result when the client sent exit
// without shutdown first: the LSP asks the server to end with status 1.
var ErrExitWithoutShutdown = errors.New("exit notification without a shutdown request first")

// Serve speaks LSP over rwc until the client exits, the stream ends or
// ctx ends. It returns nil after shutdown and exit, or when the client
// closes the stream between messages; ErrExitWithoutShutdown after an exit
// without shutdown; a *FramingError (wrapped) when the client's framing is
// broken. rwc need not unblock its reads on Close: Serve returns on exit
// without waiting for the reader (stdin may stay open), so a caller that
// owns the process should exit when Serve returns.
//
// The connection is built by hand, without protocol.NewServer's async
// handler: messages are handled in order, so didOpen and didChange can
// never race.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	locked := &lockedConn{ReadWriteCloser: rwc}
	conn := jsonrpc2.NewConn(newBoundedStream(locked, opts.Logger, serverLimits(opts.MaxMessageSize)), jsonrpc2.WithCodec(codec{}))
	client := protocol.ClientDispatcher(conn)
	bg := protocol.WithClient(ctx, client)
	srv := newServer(bg, client, opts)
	srv.notify = conn.Notify
	if opts.served != nil {
		opts.served(srv)
	}
	life := newLifecycle()
	srv.sendFrame = frameSender(locked, life.exited, conn.Done())
	handler := tolerate(opts.Logger, life.handler(cancelHandler(encodedReplies(srv, decodedEdits(srv, protocol.ServerHandler(srv, jsonrpc2.MethodNotFoundHandler))))))
	conn.Go(bg, handler)
	select {
	case <-ctx.Done():
		conn.Close()
		<-conn.Done()
		return ctx.Err()
	case <-life.exited:
		srv.close()
		// Closing unblocks readers that can be unblocked (pipes, sockets);
		// a reader blocked on a terminal's stdin is left to process exit.
		go conn.Close()
		if !life.wasShutdown() {
			return ErrExitWithoutShutdown
		}
		opts.Logger.Debug("exit after shutdown")
		return nil
	case <-conn.Done():
	}
	srv.close()
	err := conn.Err()
	switch {
	case err == nil, errors.Is(err, io.EOF):
		opts.Logger.Debug("client closed the connection")
		return nil
	case errors.As(err, new(*FramingError)):
		return fmt.Errorf("unreadable message from the client, session ended: %w", err)
	default:
		return fmt.Errorf("serving the client: %w", err)
	}
}
