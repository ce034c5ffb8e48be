package ownedstream

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// TestMessagesOwnTheirBytes: a response's result is the same after the
// next message is read; the stream offers no raw frames (jsonrpc2's
// connection reads those into one reused buffer); a header without
// Content-Length, or with one past the bound, is an error.
func TestMessagesOwnTheirBytes(t *testing.T) {
	ctx := context.Background()
	a, b := net.Pipe()
	defer a.Close()
	go func() {
		b.Write([]byte(frame(`{"jsonrpc":"2.0","id":1,"result":{"title":"Guard it"}}`)))
		b.Write([]byte(frame(`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"x","value":1}}`)))
		b.Write([]byte("X-Other: 1\r\n\r\n"))
		b.Write([]byte("Content-Length: 999999999\r\n\r\n"))
		b.Close()
	}()
	s := New(a)
	if _, ok := s.(interface {
		ReadFrame(context.Context) ([]byte, int64, error)
	}); ok {
		t.Fatal("the stream offers raw frames: jsonrpc2 would read them into a reused buffer")
	}
	first, _, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	resp, ok := first.(*jsonrpc2.Response)
	if !ok {
		t.Fatalf("read %T, want a response", first)
	}
	if _, _, err := s.Read(ctx); err != nil {
		t.Fatal(err)
	}
	if got := string(resp.Result()); got != `{"title":"Guard it"}` {
		t.Errorf("the first message's result is %q after the next read", got)
	}
	if _, _, err := s.Read(ctx); err == nil || !strings.Contains(err.Error(), "without Content-Length") {
		t.Errorf("a header without Content-Length: %v", err)
	}
	if _, _, err := s.Read(ctx); err == nil || !strings.Contains(err.Error(), "Content-Length") {
		t.Errorf("a Content-Length past the bound: %v", err)
	}
}
