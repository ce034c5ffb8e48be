package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/fleet"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
)

// check --hosts over the test pmcd reached directly and through pmproxy,
// and a host that is down: the JSON report, the exit statuses and the
// usage errors.
func TestFleetCheckCommand(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	proxy := oracle.PMProxyFor(t)
	port, err := oracle.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "fleet.conf")
	os.WriteFile(conf, []byte("ok.one = sample.long.one + 1\nbad.unknown = sample.no.such.metric\n# pcp-derive-lsp: ignore[semantic]\nbad.quiet = sample.string.hullo + 1\n"), 0o644)
	hosts := fmt.Sprintf("direct=127.0.0.1,proxied=%s?hostspec=127.0.0.1,down=127.0.0.1:%d", proxy.URL, port)
	out, stderr, status := run(t, "", "check", "--format", "json", "--hosts", hosts, conf)
	if status != ExitUsage {
		t.Errorf("exit %d with a host down, want %d\n%s", status, ExitUsage, stderr)
	}
	var doc fleet.JSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(doc.Hosts) != 3 || doc.Hosts[0].State != "checked" || doc.Hosts[1].State != "checked" || doc.Hosts[2].State != "unreachable" {
		t.Fatalf("hosts: %+v", doc.Hosts)
	}
	if !strings.Contains(doc.Hosts[1].Source, "through pmproxy") || !strings.Contains(doc.Hosts[2].Error, "refused") {
		t.Errorf("hosts: %+v", doc.Hosts)
	}
	want := []string{
		"valid on 2 of 3 hosts; not checked on down",
		"valid on 0 of 3 hosts; silently absent on direct, proxied: unknown operand sample.no.such.metric; not checked on down",
		"valid on 0 of 3 hosts; fails on direct, proxied: sample.string.hullo + 1: Non-arithmetic type for left operand; not checked on down",
	}
	for i, d := range doc.Definitions {
		if i >= len(want) || d.Summary != want[i] {
			t.Errorf("definition %d %s: %s", i, d.Name, d.Summary)
		}
	}
	// The suppressed finding is gone, libpcp's verdict stays.
	if v := doc.Definitions[2].Verdicts[0]; v.Status != "semantic" || len(v.Findings) != 0 {
		t.Errorf("suppressed: %+v", v)
	}
	_, _, status = run(t, "", "check", "-q", "--allow-unreachable", "--hosts", hosts, conf)
	if status != ExitFindings {
		t.Errorf("exit %d with --allow-unreachable and an unknown metric, want %d", status, ExitFindings)
	}
	_, _, status = run(t, "", "check", "-q", "--hosts", "127.0.0.1", filepath.Join(examples, "disk-and-network.conf"))
	if status != ExitOK {
		t.Errorf("exit %d for a clean config on a clean fleet", status)
	}
	for _, bad := range [][]string{
		{"--format", "pcp"}, {"--host", "127.0.0.1"}, {"--pcp-version", "6.0,7.2"}, {"--concurrency", "0"},
	} {
		if _, stderr, status := run(t, "", append(append([]string{"check", "--hosts", "127.0.0.1"}, bad...), conf)...); status != ExitUsage || stderr == "" {
			t.Errorf("%v: exit %d, %q", bad, status, stderr)
		}
	}
	if _, stderr, _ := run(t, "", "check", "--hosts", "a,a", conf); !strings.Contains(stderr, "named twice") {
		t.Errorf("duplicate host: %s", stderr)
	}
}
