// Package ownedstream is a JSON-RPC stream with the LSP's header framing
// for Go clients of the language server in tests: every message it reads
// owns its bytes.
//
// jsonrpc2's connection reads its own header stream frame by frame into
// one reused buffer, and go.lsp.dev/protocol decodes some results (a
// list of code actions) into strings that point into the bytes it is
// given: a code action's title in a test came out as the bytes of the
// $/progress notification read after it, in about one run of TestMarkers
// in twenty. This stream has no raw frames: the connection reads it a
// message at a time, each decoded from a body of its own, which the
// decoded strings may keep. (The server reads its clients likewise: a
// body per message.)
package ownedstream

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// maxBody bounds a message body: the server's own limit (64 MiB), for a
// test that goes wrong not to allocate without end.
const maxBody = 64 << 20

type stream struct {
	in  *bufio.Reader
	out jsonrpc2.Stream // writes are composed whole, then written: safe to share
	rwc io.ReadWriteCloser
}

// New is a stream over rwc whose messages own their bytes.
func New(rwc io.ReadWriteCloser) jsonrpc2.Stream {
	return &stream{in: bufio.NewReader(rwc), out: jsonrpc2.NewHeaderStream(rwc), rwc: rwc}
}

func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	length, read := -1, int64(0)
	for {
		line, err := s.in.ReadString('\n')
		read += int64(len(line))
		if err != nil {
			return nil, read, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			if length, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || length < 0 || length > maxBody {
				return nil, read, fmt.Errorf("ownedstream: Content-Length %q", v)
			}
		}
	}
	if length < 0 {
		return nil, read, fmt.Errorf("ownedstream: a header without Content-Length")
	}
	body := make([]byte, length) // the message's own: never read into again
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, read, fmt.Errorf("ownedstream: reading a %d-byte body: %w", length, err)
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	return msg, read + int64(length), err
}

func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return s.out.Write(ctx, msg)
}

func (s *stream) Close() error { return s.rwc.Close() }
