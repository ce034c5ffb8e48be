// Package lsp is the language server: it serves the grammar, checker and
// metadata sources over the Language Server Protocol.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
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

// lockedConn serialises writes, so a parse-error reply written by
// tolerantStream never interleaves with the connection's own messages.
type lockedConn struct {
	io.ReadWriteCloser
	mu sync.Mutex
}

func (c *lockedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ReadWriteCloser.Write(p)
}

// tolerantStream answers a well-framed message whose body is not JSON-RPC
// with a parse error (id null), as JSON-RPC asks, and reads on; the
// library's stream would end the connection.
type tolerantStream struct {
	jsonrpc2.Stream
	conn io.Writer
	log  *zap.Logger
}

func (s *tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		msg, n, err := s.Stream.Read(ctx)
		if err == nil || !malformedBody(err) {
			return msg, n, err
		}
		s.log.Warn("malformed message", zap.Error(err))
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":%q}}`, "parse error: "+err.Error())
		if _, werr := fmt.Fprintf(s.conn, "Content-Length: %d\r\n\r\n%s", len(body), body); werr != nil {
			return nil, 0, werr
		}
	}
}

// malformedBody tells a bad message body (the frame was read whole, the
// stream is still in step) from a broken or closed connection.
func malformedBody(err error) bool {
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, os.ErrClosed),
		errors.Is(err, io.ErrClosedPipe), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, jsonrpc2.ErrInvalidHeader), errors.As(err, &ne):
		return false
	}
	return true
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

// Serve speaks LSP over rwc until the client exits or ctx ends.
//
// The connection is built by hand, without protocol.NewServer's async
// handler: messages are handled in order, so didOpen and didChange can
// never race.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	locked := &lockedConn{ReadWriteCloser: rwc}
	conn := jsonrpc2.NewConn(&tolerantStream{Stream: jsonrpc2.NewHeaderStream(locked), conn: locked, log: opts.Logger}, jsonrpc2.WithCodec(codec{}))
	client := protocol.ClientDispatcher(conn)
	bg := protocol.WithClient(ctx, client)
	srv := newServer(bg, client, opts)
	srv.notify = conn.Notify
	handler := cancelHandler(protocol.ServerHandler(srv, jsonrpc2.MethodNotFoundHandler))
	conn.Go(bg, handler)
	select {
	case <-ctx.Done():
		conn.Close()
		<-conn.Done()
		return ctx.Err()
	case <-conn.Done():
	}
	srv.close()
	if err := conn.Err(); err != nil && err != io.EOF {
		opts.Logger.Debug("connection ended", zap.Error(err))
	}
	return nil
}
