package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
)

// pmproxyCorpus is a config exercising every verdict against the test
// pmcd: valid metrics of each type, semantic errors, unknown and
// non-leaf operands, a metric with no descriptor, instances.
const pmproxyCorpus = `
ok.one = sample.long.one + sample.long.ten
ok.rate = rate(sample.milliseconds)
ok.inst = sample.bin * 2
ok.str = sample.string.hullo
ok.ratio = sample.long.hundred / sample.long.ten
ok.match = matchinst(/bin-[1-3]00/, sample.bin)
ok.units = sample.byte_ctr / sample.seconds
bad.unknown = sample.no.such.metric + 1
bad.nonleaf = sample.long + 1
bad.nodesc = sample.bad.unknown * 2
bad.string = sample.string.hullo + 1
bad.units = sample.milliseconds + sample.byte_ctr
bad.indom = sample.bin + sample.part_bin
`

// The same checks through pmproxy as straight from pmcd: check (every
// format that carries verdicts), describe and eval of metrics whose
// values do not change, on the examples, PCP's own shipped configs and
// a corpus of every verdict. Only the source's description differs.
func TestPMProxySourceEqualsPmcd(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	proxy := oracle.PMProxyFor(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.conf")
	if err := os.WriteFile(corpus, []byte(pmproxyCorpus), 0o644); err != nil {
		t.Fatal(err)
	}
	shipped, _ := filepath.Glob("/var/lib/pcp/config/derived/*.conf")
	if len(shipped) == 0 {
		t.Fatal("no configs in /var/lib/pcp/config/derived (Debian's pcp ships them)")
	}
	direct := []string{"--host", "127.0.0.1"}
	proxied := []string{"--pmproxy", proxy.URL, "--hostspec", "127.0.0.1"}
	normalize := func(s string) string {
		s = strings.ReplaceAll(s, "pmcd at 127.0.0.1 through pmproxy "+strings.TrimPrefix(proxy.URL, "http://"), "SOURCE")
		return strings.ReplaceAll(s, "pmcd at 127.0.0.1", "SOURCE")
	}
	var inputs [][]string
	inputs = append(inputs, []string{corpus}, []string{filepath.Join(examples, "mistakes.conf"), filepath.Join(examples, "disk-and-network.conf")})
	for _, s := range shipped {
		inputs = append(inputs, []string{s})
	}
	for i, in := range inputs {
		cmds := [][]string{{"check", "--format", "json"}, {"describe", "--format", "json"}}
		if i == 0 {
			cmds = append(cmds, []string{"check", "--format", "text", "--color", "never"},
				[]string{"check", "--format", "pcp"}, []string{"describe", "--format", "pminfo"})
		}
		for _, cmd := range cmds {
			args := append(append([]string{}, cmd...), in...)
			dout, derr, dstatus := run(t, "", append(args, direct...)...)
			pout, perr, pstatus := run(t, "", append(args, proxied...)...)
			if normalize(dout) != normalize(pout) || normalize(derr) != normalize(perr) || dstatus != pstatus {
				t.Errorf("%s: pmcd and pmproxy differ\npmcd (exit %d):\n%s%s\npmproxy (exit %d):\n%s%s",
					strings.Join(args, " "), dstatus, dout, derr, pstatus, pout, perr)
			}
			if dout == "" && cmd[2] == "json" {
				t.Errorf("%s: no output", strings.Join(args, " "))
			}
		}
	}
	// Values: one sample of metrics that do not change.
	args := []string{"eval", "-s", "1", "--format", "pminfo", corpus, "ok.one", "ok.inst", "ok.str", "ok.ratio", "ok.match"}
	dout, derr, dstatus := run(t, "", append(args, direct...)...)
	pout, perr, pstatus := run(t, "", append(args, proxied...)...)
	if dout != pout || dstatus != pstatus || !strings.Contains(dout, "bin-200") {
		t.Errorf("eval: pmcd (exit %d):\n%s%s\npmproxy (exit %d):\n%s%s", dstatus, dout, derr, pstatus, pout, perr)
	}
	// --hostspec alone is a usage error that says what is missing.
	if _, stderr, status := run(t, "", "check", "--hostspec", "db1", corpus); status != ExitUsage || !strings.Contains(stderr, "give --pmproxy URL") {
		t.Errorf("--hostspec without --pmproxy: exit %d, %s", status, stderr)
	}
}
