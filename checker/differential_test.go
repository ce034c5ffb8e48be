package checker

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/exprgen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// Operands for generated expressions: counters and instants, singular and
// with instance domains, several types, units and scales, strings.
var genMetrics = []string{
	"sample.long.one", "sample.long.ten", "sample.ulong.hundred", "sample.longlong.one", "sample.ulonglong.ten",
	"sample.float.one", "sample.double.ten", "sample.bin", "sample.part_bin", "sample.colour", "sample.byte_ctr",
	"sample.kbyte_ctr", "sample.byte_rate", "sample.kbyte_rate", "sample.milliseconds", "sample.string.hullo",
	"sample.step_counter", "sample.mirage", "sample.long.bin_ctr", "sample.ulong.count.kilo",
	"sample.ulong.count.mega", "sample.scale_step.time_up_secs", "sample.datasize", "sample.seconds",
	"kernel.all.load", "kernel.all.cpu.user", "kernel.percpu.cpu.user", "disk.dev.read", "disk.dev.read_bytes",
	"mem.util.used", "hinv.ncpu", "network.interface.in.bytes", "sample.aggregate.hullo", "sample.noinst",
}

var semRE = regexp.MustCompile(`^Semantic error: derived metric (\S+): (.*)$`)

// libpcpDescribe loads a config with the real libpcp and returns, per
// name, the pminfo -d block or "semantic: RENDERING: MESSAGE" or "absent".
func libpcpDescribe(t *testing.T, config string, names []string) map[string]string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gen.conf")
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("pminfo", append([]string{"-h", "127.0.0.1", "-c", path, "-d"}, names...)...)
	cmd.Env = append(os.Environ(), "PCP_DERIVED_CONFIG=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run() // exits 1 when any name fails; the output says which
	got := map[string]string{}
	for _, block := range strings.Split(stdout.String(), "\n\n") {
		lines := strings.SplitN(strings.TrimSpace(block), "\n", 2)
		if len(lines) == 2 {
			got[lines[0]] = lines[1] + "\n"
		}
	}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if m := semRE.FindStringSubmatch(l); m != nil {
			got[m[1]] = "semantic: " + m[2]
		}
	}
	for _, n := range names {
		if _, ok := got[n]; !ok {
			got[n] = "absent"
		}
	}
	return got
}

// ourDescribe is our verdict in libpcpDescribe's form, for release v.
func ourDescribe(m *Metric, v pcpver.Version) string {
	switch m.Status {
	case Valid:
		return PminfoDesc(m.Desc)
	case SemanticError:
		return "semantic: " + m.Rendering() + ": " + m.Message()
	case Unbound:
		if v.Has(pcpver.UnknownOperandReported) && len(m.Unknown()) > 0 {
			return "semantic: operand " + m.Unknown()[0] + ": Unknown operand metric"
		}
	}
	return "absent"
}

// TestGeneratedAgainstLibpcp: thousands of generated definitions over the
// sample and linux metrics get the same verdict and metadata as libpcp.
func TestGeneratedAgainstLibpcp(t *testing.T) {
	src := liveMetadata(t)
	g := exprgen.New(4242, genMetrics)
	g.BrokenShare = 0
	var config strings.Builder
	var names []string
	for len(names) < 6000 {
		e := g.Next()
		if !grammar.LibpcpVerdict(e, pcpver.V6_0_3, false).OK {
			continue
		}
		name := fmt.Sprintf("gen.m%d", len(names))
		names = append(names, name)
		fmt.Fprintf(&config, "%s = %s\n", name, e)
	}
	want := libpcpDescribe(t, config.String(), names)
	f := grammar.ParseConfig("gen.conf", []byte(config.String()), grammar.Options{Version: pcpver.V6_0_3})
	rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: pcpver.V6_0_3})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	differ := 0
	for i, name := range names {
		m := rep.ByName.Metric(name)
		got := ourDescribe(m, pcpver.V6_0_3)
		kind := strings.SplitN(want[name], ":", 2)[0]
		counts[kind]++
		if got != want[name] {
			differ++
			if differ <= 25 {
				t.Errorf("%s = %s\n  libpcp: %q\n  ours:   %q", name, f.Definitions.At(i).Expr, want[name], got)
			}
		}
	}
	t.Logf("%d definitions (%d valid, %d semantic errors, %d hidden): %d differ",
		len(names), len(names)-counts["semantic"]-counts["absent"], counts["semantic"], counts["absent"], differ)
}

// TestShippedConfigs: PCP's own derived configs get libpcp's verdict and
// metadata for every metric they define.
func TestShippedConfigs(t *testing.T) {
	src := liveMetadata(t)
	paths, _ := filepath.Glob("/var/lib/pcp/config/derived/*.conf")
	if len(paths) == 0 {
		t.Fatal("no configs in /var/lib/pcp/config/derived (run scripts/pcp-testenv.sh)")
	}
	total := 0
	for _, path := range paths {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f := grammar.ParseConfig(path, text, grammar.Options{Version: pcpver.V6_0_3})
		var names []string
		for _, d := range f.Definitions.All() {
			if d.Registered {
				names = append(names, d.Name)
			}
		}
		want := libpcpDescribe(t, string(text), names)
		rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: pcpver.V6_0_3})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			total++
			if got := ourDescribe(rep.ByName.Metric(n), pcpver.V6_0_3); got != want[n] {
				t.Errorf("%s: %s\n  libpcp: %q\n  ours:   %q", filepath.Base(path), n, want[n], got)
			}
		}
	}
	t.Logf("%d metrics in %d shipped configs agree with libpcp", total, len(paths))
}
