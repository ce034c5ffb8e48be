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
// follows the requests' contexts. An earlier context cancelled while a
// request made with another one waits, or with one that is never
// cancelled, does not cut it short; a watch kept for a context's Done
// channel still ends a request made with a context of the same channel.
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
	ids, _, err := c.LookupNames(context.Background(), []string{"pmcd.version"})
	if err != nil {
		t.Fatal(err)
	}
	// fetchWhileCancelling fetches with ctx while earlier, cancelled
	// 20 ms in, is cancelled; the reply comes 50 ms later.
	fetchWhileCancelling := func(ctx context.Context, cancelEarlier context.CancelFunc) error {
		time.AfterFunc(20*time.Millisecond, cancelEarlier)
		time.AfterFunc(70*time.Millisecond, func() { gate <- struct{}{} })
		_, err := c.Fetch(ctx, ids)
		return err
	}
	watched := func() (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		gate <- struct{}{}
		if _, err := c.Fetch(ctx, ids); err != nil {
			t.Fatal(err)
		}
		return ctx, cancel
	}

	// Cancelled while a request made with another context waits.
	_, cancelFirst := watched()
	second, cancelSecond := context.WithCancel(context.Background())
	defer cancelSecond()
	if err := fetchWhileCancelling(second, cancelFirst); err != nil {
		t.Fatalf("a fetch waiting while an earlier context was cancelled: %v", err)
	}
	// Cancelled while a request made with a context that is never
	// cancelled waits.
	_, cancelThird := watched()
	if err := fetchWhileCancelling(context.Background(), cancelThird); err != nil {
		t.Fatalf("a fetch with a background context waiting while an earlier context was cancelled: %v", err)
	}
	if c.c == nil {
		t.Fatal("the connection was dropped")
	}

	// A context of a watched Done channel, cancelled while its reply is
	// awaited.
	fourth, cancelFourth := watched()
	fifth := context.WithValue(fourth, t, "fifth")
	time.AfterFunc(20*time.Millisecond, cancelFourth)
	start := time.Now()
	_, err = c.Fetch(fifth, ids)
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("error %v after %v, want the cancellation", err, time.Since(start))
	}
	if c.c != nil {
		t.Error("the connection was kept after a cancelled request")
	}
}
