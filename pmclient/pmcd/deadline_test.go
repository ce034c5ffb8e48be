package pmcd

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/hostile"
)

// fakePMID is the metric every name resolves to on servePmcd: a STRING,
// as pmcd.version is.
const fakePMID = 0x07400001

// servePmcd plays pmcd on one connection: the greeting, then for every
// name lookup fakePMID, for every descriptor request a STRING
// descriptor, and for a fetch whatever fetch writes.
func servePmcd(c net.Conn, fetch func(net.Conn) error) {
	greeting(c)
	for {
		p, err := readPDU(c)
		if err != nil {
			return
		}
		var w builder
		switch pduType(p) {
		case pduPMNSNames:
			w.u32(1)
			w.u32(1)
			w.u32(fakePMID)
			_, err = c.Write(w.pdu(pduPMNSIDs))
		case pduDescIDs:
			w.u32(1)
			for _, v := range []uint32{fakePMID, 6, 0xffffffff, 3, 0} {
				w.u32(v)
			}
			_, err = c.Write(w.pdu(pduDescs))
		case pduProfile:
		case pduFetch, pduHighresFetch:
			err = fetch(c)
		default:
			return
		}
		if err != nil {
			return
		}
	}
}

// notice is a positive ERROR PDU: pmcd telling of a state change.
func notice(flags int32) []byte {
	var w builder
	w.i32(flags)
	return w.pdu(pduError)
}

// versionResult is a RESULT holding one STRING value for fakePMID.
func versionResult(version string) []byte {
	return hostile.ResultPDU(1, func(start int) []byte {
		var b []byte
		for _, v := range []uint32{fakePMID, 1, 1, 0, uint32(start+20) / 4} {
			b = binary.BigEndian.AppendUint32(b, v)
		}
		vlen := 4 + len(version) + 1
		b = binary.BigEndian.AppendUint32(b, 6<<24|uint32(vlen))
		b = append(b, version...)
		b = append(b, 0)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	})
}

// TestRequestDeadline: positive ERROR PDUs restart the wait for each PDU,
// but not the deadline on the whole request (issue #12: a peer sending
// one every 8 s kept check waiting forever). The deadline is short here;
// the outer context only keeps a regression from hanging the test.
func TestRequestDeadline(t *testing.T) {
	tests := []struct {
		name        string
		fetch       func(net.Conn) error
		want        string // the version, when wantDeadline is false
		wantChanges int32
		// wantDeadline: the request fails with a *DeadlineError that
		// counts at least one notice.
		wantDeadline bool
	}{
		{"a notice every 10 ms, forever", func(c net.Conn) error {
			for {
				if _, err := c.Write(notice(1)); err != nil {
					return err
				}
				time.Sleep(10 * time.Millisecond)
			}
		}, "", 1, true},
		{"three notices, then the result", func(c net.Conn) error {
			for _, flags := range []int32{1, 2, 16} {
				if _, err := c.Write(notice(flags)); err != nil {
					return err
				}
			}
			_, err := c.Write(versionResult("6.0.3"))
			return err
		}, "6.0.3", 19, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addr := fakePmcd(t, func(c net.Conn) { servePmcd(c, tc.fetch) })
			c, err := New(addr, Options{RequestTimeout: 5 * time.Second, RequestDeadline: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			version, err := c.Version(ctx)
			var de *DeadlineError
			switch {
			case tc.wantDeadline && !errors.As(err, &de):
				t.Fatalf("error %v, want a request deadline error", err)
			case tc.wantDeadline && (de.Notices == 0 || de.Deadline != 300*time.Millisecond || !errors.Is(err, pmclient.ErrTimeout)):
				t.Fatalf("error %v (%+v), want a timeout after notices within 300ms", err, de)
			case tc.wantDeadline && c.c != nil:
				t.Fatal("the connection was kept after a request ran out of time")
			case !tc.wantDeadline && (err != nil || version != tc.want):
				t.Fatalf("version %q, error %v; want %q", version, err, tc.want)
			}
			if got := c.Changes(); got != tc.wantChanges {
				t.Errorf("changes %#x, want %#x", got, tc.wantChanges)
			}
		})
	}
}

// TestDefaultRequestDeadline: the deadline defaults to DefaultRequestDeadline,
// at least three request timeouts, and $PCP_DERIVE_LSP_PMCD_DEADLINE.
func TestDefaultRequestDeadline(t *testing.T) {
	tests := []struct {
		env  map[string]string
		opts Options
		want time.Duration
	}{
		{nil, Options{}, DefaultRequestDeadline},
		{map[string]string{"PMCD_REQUEST_TIMEOUT": "20"}, Options{}, time.Minute},
		{map[string]string{"PCP_DERIVE_LSP_PMCD_DEADLINE": "2.5"}, Options{}, 2500 * time.Millisecond},
		{map[string]string{"PCP_DERIVE_LSP_PMCD_DEADLINE": "junk"}, Options{}, DefaultRequestDeadline},
		{map[string]string{"PCP_DERIVE_LSP_PMCD_DEADLINE": "5"}, Options{RequestDeadline: time.Second}, time.Second},
	}
	for _, tc := range tests {
		tc.opts.Getenv = func(k string) string { return tc.env[k] }
		c, err := New("127.0.0.1:1", tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if c.opts.RequestDeadline != tc.want {
			t.Errorf("env %v, options %+v: deadline %v, want %v", tc.env, tc.opts.RequestDeadline, c.opts.RequestDeadline, tc.want)
		}
	}
}
