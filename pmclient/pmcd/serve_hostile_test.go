package pmcd

import (
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/hostile"
)

// TestServeHostile plays a hostile pmcd on $PCP_DERIVE_LSP_HOSTILE_PMCD
// ("ADDR MODE") until killed, for measuring the built binary against the
// issue #12 attacks (see docs/limits.md); skipped without it. Modes:
// "aliased" answers a fetch with a 4 MB RESULT whose 520,000 values share
// one 8 KiB value block; "drip" answers it with a state-change notice
// every 8 s, forever. Run with -timeout 0.
func TestServeHostile(t *testing.T) {
	spec := os.Getenv("PCP_DERIVE_LSP_HOSTILE_PMCD")
	if spec == "" {
		t.Skip("set PCP_DERIVE_LSP_HOSTILE_PMCD to ADDR MODE to serve")
	}
	addr, mode, _ := strings.Cut(spec, " ")
	fetch := map[string]func(net.Conn) error{
		"aliased": func(c net.Conn) error {
			_, err := c.Write(hostile.ResultPDU(1, func(start int) []byte {
				return hostile.SharedBlockVsets(fakePMID, 520000, 8192, start)
			}))
			return err
		},
		"drip": func(c net.Conn) error {
			for {
				if _, err := c.Write(notice(1)); err != nil {
					return err
				}
				time.Sleep(8 * time.Second)
			}
		},
	}[mode]
	if fetch == nil {
		t.Fatalf("mode %q: want aliased or drip", mode)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer c.Close()
			servePmcd(c, fetch)
		}()
	}
}
