package fleet_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/fleet"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
)

// fleetConfig has definitions whose fate differs between the releases
// of the fleet (5.2.6, 6.0.3, 6.3.8, 7.2.2) and between the hosts' PMDAs
// (this machine's pmcd has proc and xfs, the chroots' only linux and
// sample).
const fleetConfig = `fleet.ok = sample.long.one + sample.long.ten
fleet.load = kernel.all.load * 2
fleet.unknown = sample.no.such.metric + 1
fleet.string = sample.string.hullo + 1
fleet.countmix = sample.long.bin_ctr + sample.long.one
fleet.delta = delta(sample.ulong.bin_ctr)
fleet.novalue = novalue(type=u32, semantics=instant)
fleet.rateexpr = rate(sample.long.one + sample.long.ten)
fleet.nested = fleet.ok * 2
fleet.procs = proc.nprocs + 1
fleet.xfs = xfs.write + xfs.read
fleet.inst = sample.bin[bin-100] + sample.bin[bin-200]
`

// delayer forwards connections to addr, holding every chunk from the
// server back by delay: a host that answers, slowly.
func delayer(t *testing.T, addr string, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", addr)
				if err != nil {
					return
				}
				defer up.Close()
				go io.Copy(up, c)
				buf := make([]byte, 64<<10)
				for {
					n, err := up.Read(buf)
					if n > 0 {
						time.Sleep(delay)
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// pminfo's -d block, as the checker's one-line description.
var (
	typeRE  = regexp.MustCompile(`Data Type: (.*?)  InDom: (\S+)`)
	unitsRE = regexp.MustCompile(`Semantics: (\S+)  Units: (.*)`)
)

func pminfoDesc(block string) string {
	tm, um := typeRE.FindStringSubmatch(block), unitsRE.FindStringSubmatch(block)
	if tm == nil || um == nil {
		return "unparsed: " + block
	}
	indom := "singular"
	if tm[2] != "PM_INDOM_NULL" {
		indom = "indom " + tm[2]
	}
	return fmt.Sprintf("%s %s, units %s, %s", tm[1], um[1], strings.TrimSpace(um[2]), indom)
}

// The fleet check over real pmcds of four releases (each chroot's own
// pmcd, this machine's, and two of them again through pmproxy), one host
// that is down and two that are slow, gives each host's verdicts as that
// host's own libpcp gives them: its pminfo -c CONFIG -d against its own
// pmcd.
func TestFleetMatchesEachHostsLibpcp(t *testing.T) {
	hosts := oracle.FleetFor(t)
	proxy := oracle.PMProxyFor(t)
	port, err := oracle.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	sluggish := delayer(t, "127.0.0.1:44321", 50*time.Millisecond)
	stuck := delayer(t, "127.0.0.1:44321", 10*time.Second)
	var list []string
	byName := map[string]oracle.FleetHost{}
	for _, h := range hosts {
		list = append(list, h.Suite+"="+h.Addr)
		byName[h.Suite] = h
		if h.Root != "" && h.Suite != "trixie" {
			name := h.Suite + "-proxied"
			list = append(list, fmt.Sprintf("%s=%s?hostspec=%s", name, proxy.URL, h.Addr))
			byName[name] = h
		}
	}
	list = append(list, fmt.Sprintf("down=127.0.0.1:%d", port), "sluggish="+sluggish, "stuck="+stuck)
	targets, err := fleet.Hosts{List: list}.Targets(fleet.HostsNames{List: "hosts"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	start := time.Now()
	res := fleet.Check(ctx, []analysis.Input{analysis.Buffer("fleet.conf", []byte(fleetConfig))}, targets,
		fleet.Options{Concurrency: 4, HostTimeout: 4 * time.Second})
	elapsed := time.Since(start)
	if elapsed > 30*time.Second {
		t.Errorf("the fleet took %v", elapsed)
	}
	names := make([]string, len(res.Definitions))
	for i, d := range res.Definitions {
		names[i] = d.Name
	}
	seen := map[string]map[string]bool{} // definition -> distinct verdicts over the fleet
	for _, h := range res.Hosts {
		switch h.Name {
		case "down":
			if h.State != fleet.Unreachable || !strings.Contains(h.Err, "refused") {
				t.Errorf("down: %v %q", h.State, h.Err)
			}
			continue
		case "stuck":
			if h.State != fleet.TimedOut || h.Elapsed > 6*time.Second {
				t.Errorf("stuck: %v after %v: %q", h.State, h.Elapsed, h.Err)
			}
			continue
		case "sluggish":
			if h.State != fleet.Checked {
				t.Errorf("sluggish: %v %q", h.State, h.Err)
			}
			continue
		}
		fh, ok := byName[h.Name]
		if !ok {
			t.Fatalf("host %s", h.Name)
		}
		if h.State != fleet.Checked || h.PCP.Version != fh.Version {
			t.Errorf("%s: %v %q, release %v, want %v", h.Name, h.State, h.Err, h.PCP.Version, fh.Version)
			continue
		}
		want, stderr, err := fh.DescribeOn(ctx, fh.Addr, fleetConfig, names)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range res.Definitions {
			v, ok := res.Verdict(h, i)
			if !ok {
				t.Errorf("%s %s: no verdict", h.Name, d.Name)
				continue
			}
			var got string
			switch v.Status {
			case "valid":
				got, want[d.Name] = v.Desc, pminfoDesc(want[d.Name])
				if strings.HasPrefix(want[d.Name], "unparsed: absent") {
					want[d.Name] = "absent"
				}
			case "semantic":
				got = "semantic: " + v.Message
			default: // hidden, syntax, not registered: no metric, no word at bind time
				got = "absent"
			}
			if got != want[d.Name] {
				t.Errorf("%s (PCP %s) %s: we say %s %q, its pminfo %q\n%s", h.Name, fh.Version, d.Name, v.Status, got, want[d.Name], stderr)
			}
			if seen[d.Name] == nil {
				seen[d.Name] = map[string]bool{}
			}
			seen[d.Name][v.Status+" "+v.Desc+v.Message] = true
		}
	}
	// The fleet is a real test of release differences: most definitions
	// differ somewhere.
	differ := 0
	for _, vs := range seen {
		if len(vs) > 1 {
			differ++
		}
	}
	if differ < 6 {
		t.Errorf("only %d of %d definitions differ across the fleet: %v", differ, len(names), seen)
	}
	t.Logf("%d hosts in %v; %d of %d definitions differ between hosts", len(res.Hosts), elapsed.Round(time.Millisecond), differ, len(names))
}

// A pmlogger farm: a folder per host, each with archives pmlogger wrote
// from that host's pmcd (this machine's 6.0.3 and the sid chroot's
// 7.2.2). Each host is checked against its latest archive, with the
// release the archive logged.
func TestArchiveFarmCheck(t *testing.T) {
	hosts := oracle.FleetFor(t)
	farm := t.TempDir()
	config := filepath.Join(farm, "pmlogger.config")
	os.WriteFile(config, []byte("log mandatory on once { pmcd.version }\nlog mandatory on 100 msec { sample.long.one kernel.all.load }\n"), 0o644)
	want := map[string]string{}
	for _, h := range hosts {
		if h.Suite != "bookworm" && h.Suite != "sid" {
			continue
		}
		dir := filepath.Join(farm, h.Suite)
		os.MkdirAll(dir, 0o755)
		for _, name := range []string{"20260101.00.10", "20260102.00.10"} {
			out, err := exec.Command("pmlogger", "-h", h.Addr, "-c", config, "-s", "3", "-t", "100msec", "-l", filepath.Join(dir, "pmlogger.log"), filepath.Join(dir, name)).CombinedOutput()
			if err != nil {
				t.Fatalf("pmlogger from %s: %v: %s", h.Addr, err, out)
			}
		}
		want[h.Suite] = h.Version.String()
	}
	targets, err := fleet.ArchiveFarm(farm)
	if err != nil {
		t.Fatal(err)
	}
	res := fleet.Check(context.Background(), []analysis.Input{analysis.Buffer("farm.conf", []byte("farm.ok = sample.long.one * 2\nfarm.unknown = sample.no.such + 1\n"))}, targets, fleet.Options{})
	if len(res.Hosts) != 2 {
		t.Fatalf("%d hosts: %+v", len(res.Hosts), targets)
	}
	for _, h := range res.Hosts {
		if h.State != fleet.Checked || h.PCP.Version.String() != want[h.Name] || !strings.HasSuffix(h.Source.Archive, "20260102.00.10") {
			t.Errorf("%s: %v %q, PCP %v (want %s), archive %s", h.Name, h.State, h.Err, h.PCP, want[h.Name], h.Source.Archive)
		}
	}
	rows := res.Rows()
	if got := rows[0].Summary(); got != "valid on all 2 hosts" {
		t.Errorf("farm.ok: %s", got)
	}
	if got := rows[1].Summary(); got != "valid on 0 of 2 hosts; fails on sid: operand sample.no.such: Unknown operand metric; silently absent on bookworm: unknown operand sample.no.such" {
		t.Errorf("farm.unknown: %s", got)
	}
}
