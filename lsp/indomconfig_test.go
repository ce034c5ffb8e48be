//go:build unix

package lsp

import (
	"context"
	"net"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/ownedstream"
)

// TestIndomConfigNotAFile: an indomConfig setting naming a FIFO with no
// writer or /dev/zero is refused (the server logs why) and initialize is
// answered. Before the setting went through internal/safeopen, the FIFO
// held initialize for ever and /dev/zero was read until the server ran
// out of memory, before it answered.
func TestIndomConfigNotAFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		ctx, cancel := context.WithCancel(context.Background())
		serverEnd, clientEnd := net.Pipe()
		go Serve(ctx, serverEnd, Options{Getenv: func(string) string { return "" }, Version: "test"})
		cctx, conn, srv := protocol.NewClient(ctx, newRecorder(), ownedstream.New(clientEnd))
		// A bound against a hang, far above what initialize takes.
		ictx, icancel := context.WithTimeout(cctx, time.Minute)
		_, err := srv.Initialize(ictx, &protocol.InitializeParams{InitializationOptions: []byte(`{"source": {"metadata": "embedded"}, "indomConfig": "` + path + `"}`)})
		if err != nil {
			t.Errorf("indomConfig %s: initialize: %v", path, err)
		}
		icancel()
		conn.Close()
		cancel()
	}
}
