package pmcd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// fakePmcdOn is fakePmcd on "tcp" (127.0.0.1) or "unix" (a socket in a
// temporary directory); it returns the host specification to dial.
func fakePmcdOn(t *testing.T, network string, script func(net.Conn)) string {
	t.Helper()
	if network == "tcp" {
		return fakePmcd(t, script)
	}
	path := filepath.Join(t.TempDir(), "pmcd.socket")
	serveOne(t, "unix", path, script)
	return "unix:" + path
}

// TestSockIOReplies: a reply is read whole however it arrives, over TCP
// and a unix socket, and the connection stays usable.
func TestSockIOReplies(t *testing.T) {
	const later = 20 * time.Millisecond
	tests := []struct {
		name  string
		fetch func(net.Conn) error
	}{
		{"at once", func(c net.Conn) error {
			_, err := c.Write(versionResult("6.0.3"))
			return err
		}},
		{"later", func(c net.Conn) error {
			time.Sleep(later)
			_, err := c.Write(versionResult("6.0.3"))
			return err
		}},
		{"header at once, the rest later", func(c net.Conn) error {
			p := versionResult("6.0.3")
			if _, err := c.Write(p[:headerLen]); err != nil {
				return err
			}
			time.Sleep(later)
			_, err := c.Write(p[headerLen:])
			return err
		}},
		{"a notice, then the result later", func(c net.Conn) error {
			if _, err := c.Write(notice(2)); err != nil {
				return err
			}
			time.Sleep(later)
			_, err := c.Write(versionResult("6.0.3"))
			return err
		}},
		{"a version longer than a raw read", func(c net.Conn) error {
			_, err := c.Write(versionResult(string(bytes.Repeat([]byte("6"), 3*maxRawRead))))
			return err
		}},
	}
	for _, network := range []string{"tcp", "unix"} {
		for _, tc := range tests {
			t.Run(network+"/"+tc.name, func(t *testing.T) {
				addr := fakePmcdOn(t, network, func(c net.Conn) { servePmcd(c, tc.fetch) })
				c, err := New(addr, Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				for i := 0; i < 2; i++ {
					version, err := c.Version(ctx)
					if err != nil || (version != "6.0.3" && len(version) != 3*maxRawRead) {
						t.Fatalf("fetch %d: version of %d bytes, error %v", i, len(version), err)
					}
				}
				if c.c == nil {
					t.Error("the connection was dropped after good replies")
				}
			})
		}
	}
}

// TestSockIOWriteWaits: a write larger than the socket's buffers is
// written whole, waiting while the peer does not read.
func TestSockIOWriteWaits(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		time.Sleep(50 * time.Millisecond) // the writer fills the buffers
		b, _ := io.ReadAll(c)
		got <- b
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	nc.(*net.TCPConn).SetWriteBuffer(4 << 10)
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	n, err := newSockIO(nc).Write(want)
	nc.Close()
	if err != nil || n != len(want) {
		t.Fatalf("wrote %d of %d bytes, error %v", n, len(want), err)
	}
	if b := <-got; !bytes.Equal(b, want) {
		t.Errorf("the peer read %d bytes, not the %d written", len(b), len(want))
	}
}

// TestCancelDuringWait: a context cancelled while the reply is awaited
// ends the request with its error, and the connection is dropped (the
// reply may still come).
func TestCancelDuringWait(t *testing.T) {
	addr := fakePmcd(t, func(c net.Conn) {
		servePmcd(c, func(net.Conn) error { time.Sleep(5 * time.Second); return nil })
	})
	c, err := New(addr, Options{RequestTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The name and descriptor first, so that the fetch is the request
	// that waits.
	ids, _, err := c.LookupNames(ctx, []string{"pmcd.version"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Descs(ctx, ids); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, err = c.Fetch(ctx, ids)
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("error %v after %v, want the cancellation", err, time.Since(start))
	}
	if c.c != nil {
		t.Error("the connection was kept after a cancelled request")
	}
}

// TestSockIOErrors: a reset connection is reported as net.Conn reports
// it, a *net.OpError around the system call's error.
func TestSockIOErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	reset := make(chan struct{})
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		<-reset
		c.(*net.TCPConn).SetLinger(0) // close with a reset
		c.Close()
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	s := newSockIO(nc)
	close(reset)
	var werr error
	for i := 0; i < 100 && werr == nil; i++ {
		_, werr = s.Write([]byte("request"))
		time.Sleep(time.Millisecond)
	}
	var op *net.OpError
	if !errors.As(werr, &op) || op.Op != "write" {
		t.Errorf("write error %v (%T), want a *net.OpError", werr, werr)
	}
	if _, err := s.Read(make([]byte, 16)); err == nil {
		t.Error("a read of a reset connection succeeded")
	}
}

// TestCancelWatchAcrossContexts: the connection's one cancellation watch
// follows the requests' contexts. A context cancelled after its request
// ended does not cut the next request, made with another context, short;
// a watch kept for a context's Done channel still ends a request made
// with a context of the same channel.
func TestCancelWatchAcrossContexts(t *testing.T) {
	gate := make(chan struct{}, 8) // one token a fetch reply
	addr := fakePmcd(t, func(c net.Conn) {
		servePmcd(c, func(c net.Conn) error {
			<-gate
			_, err := c.Write(versionResult("6.0.3"))
			return err
		})
	})
	t.Cleanup(func() { close(gate) })
	c, err := New(addr, Options{RequestTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fetch := func(ctx context.Context, ids []pmapi.PMID) error {
		_, err := c.Fetch(ctx, ids)
		return err
	}

	first, cancelFirst := context.WithCancel(context.Background())
	ids, _, err := c.LookupNames(first, []string{"pmcd.version"})
	if err != nil {
		t.Fatal(err)
	}
	gate <- struct{}{}
	if err := fetch(first, ids); err != nil {
		t.Fatal(err)
	}
	// Cancelled while the connection is idle: the watch moves the
	// socket's deadlines to now, and the next request's context is
	// another one.
	cancelFirst()
	time.Sleep(50 * time.Millisecond)
	second, cancelSecond := context.WithCancel(context.Background())
	defer cancelSecond()
	for i := range 2 {
		gate <- struct{}{}
		if err := fetch(second, ids); err != nil {
			t.Fatalf("fetch %d after the first context was cancelled: %v", i+1, err)
		}
	}
	if c.c == nil {
		t.Fatal("the connection was dropped")
	}

	// A context of the second's Done channel, cancelled while its reply
	// is awaited.
	third := context.WithValue(second, t, "third")
	time.AfterFunc(20*time.Millisecond, cancelSecond)
	start := time.Now()
	err = fetch(third, ids)
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("error %v after %v, want the cancellation", err, time.Since(start))
	}
	if c.c != nil {
		t.Error("the connection was kept after a cancelled request")
	}
}
