package lsp

import (
	"context"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// lifecycle enforces the LSP's session states around the handler:
// before initialize, requests fail with ServerNotInitialized and
// notifications are dropped; after shutdown, requests fail with
// InvalidRequest; exit ends the session in any state. Without it, a
// client that skips initialize gets answers computed with no settings,
// and exit is a no-op, so the process outlives its editor.
type lifecycle struct {
	mu       sync.Mutex
	state    sessionState
	exitOnce sync.Once
	// exited is closed when the exit notification arrives.
	exited chan struct{}
}

type sessionState int

const (
	stateNew         sessionState = iota // before initialize
	stateInitialized                     // initialize answered
	stateShutdown                        // shutdown answered
)

func newLifecycle() *lifecycle { return &lifecycle{exited: make(chan struct{})} }

// wasShutdown says whether shutdown came before exit (exit status 0).
func (l *lifecycle) wasShutdown() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state == stateShutdown
}

func (l *lifecycle) handler(next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		method := req.Method()
		if method == protocol.MethodExit {
			l.exitOnce.Do(func() { close(l.exited) })
			return nil, nil
		}
		l.mu.Lock()
		state := l.state
		l.mu.Unlock()
		call := req.IsCall()
		switch {
		case state == stateNew && method == protocol.MethodInitialize:
			res, err := next(ctx, req)
			if err == nil {
				l.mu.Lock()
				l.state = stateInitialized
				l.mu.Unlock()
			}
			return res, err
		case state == stateNew && call:
			return nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "%s before initialize: the server is not initialized", method)
		case state == stateNew:
			return nil, nil // notifications before initialize are dropped
		case state == stateShutdown && call:
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s after shutdown: only exit is accepted", method)
		case state == stateShutdown:
			return nil, nil
		case method == protocol.MethodInitialize:
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "initialize sent twice")
		case method == protocol.MethodShutdown:
			res, err := next(ctx, req)
			if err == nil {
				l.mu.Lock()
				l.state = stateShutdown
				l.mu.Unlock()
			}
			return res, err
		}
		return next(ctx, req)
	}
}
