package pmcd

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/snapshot"
)

func requirePmcd(t *testing.T) {
	t.Helper()
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	if _, err := exec.LookPath("pminfo"); err != nil {
		t.Fatal("pminfo missing: run scripts/pcp-testenv.sh")
	}
}

// TestWholeNamespaceAgainstLibpcp: for every metric pmcd serves, our names,
// PMIDs, descriptors, one-line help and small instance domains equal what
// libpcp reports for the same pmcd.
func TestWholeNamespaceAgainstLibpcp(t *testing.T) {
	requirePmcd(t)
	out, err := exec.Command("/usr/bin/python3", "../snapshot/testdata/libpcp_capture.py", "127.0.0.1").Output()
	if err != nil {
		t.Fatalf("libpcp capture: %v", err)
	}
	want, err := snapshot.Read(bytes.NewReader(out), "libpcp")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, spec := range []string{"127.0.0.1", "unix:"} {
		c, err := New(spec, Options{})
		if err != nil {
			t.Fatal(err)
		}
		names, err := c.AllNames(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantNames := want.Names()
		if len(names) < 2000 || len(names) < len(wantNames)-50 {
			t.Fatalf("%s: %d names, libpcp %d", spec, len(names), len(wantNames))
		}
		pmids, errs, err := c.LookupNames(ctx, wantNames)
		if err != nil {
			t.Fatal(err)
		}
		wantIDs, _, _ := want.LookupNames(ctx, wantNames)
		descs, derrs, err := c.Descs(ctx, pmids)
		if err != nil {
			t.Fatal(err)
		}
		wantDescs, _, _ := want.Descs(ctx, wantIDs)
		differ := 0
		for i, n := range wantNames {
			if errs[i] != nil || derrs[i] != nil || pmids[i] != wantIDs[i] || descs[i] != wantDescs[i] {
				differ++
				if differ < 10 {
					t.Errorf("%s: %v %v %+v, libpcp %v %+v", n, errs[i], derrs[i], descs[i], wantIDs[i], wantDescs[i])
				}
			}
		}
		// Help text of every metric (one-line and long), and every
		// instance domain: its instances and its help.
		helpDiffer, indomsCompared := 0, 0
		seen := map[pmapi.InDom]bool{}
		for i, n := range wantNames {
			if errs[i] != nil {
				continue
			}
			for _, long := range []bool{false, true} {
				got, _ := c.HelpText(ctx, pmclient.HelpTarget{PMID: pmids[i], InDom: pmapi.InDomNull}, long)
				exp, _ := want.HelpText(ctx, pmclient.HelpTarget{PMID: wantIDs[i], InDom: pmapi.InDomNull}, long)
				if got != exp {
					if helpDiffer++; helpDiffer < 10 {
						t.Errorf("%s: help (long %v) %q, libpcp %q", n, long, got, exp)
					}
				}
			}
			indom := wantDescs[i].InDom
			if indom == pmapi.InDomNull || seen[indom] || volatileInstances(n) {
				continue
			}
			seen[indom] = true
			for _, long := range []bool{false, true} {
				got, _ := c.HelpText(ctx, pmclient.HelpTarget{InDom: indom}, long)
				exp, _ := want.HelpText(ctx, pmclient.HelpTarget{InDom: indom}, long)
				if got != exp {
					if helpDiffer++; helpDiffer < 10 {
						t.Errorf("indom %s of %s: help (long %v) %q, libpcp %q", indom, n, long, got, exp)
					}
				}
			}
			got, gerr := c.Instances(ctx, indom)
			exp, _ := want.Instances(ctx, indom)
			if len(exp) == 0 {
				// libpcp listed nothing: access control, or a PMDA too
				// busy to answer its capture in time (seen under load).
				continue
			}
			if fmt.Sprint(got) != fmt.Sprint(exp) {
				t.Errorf("indom %s of %s: instances %v %v, libpcp %v", indom, n, got, gerr, exp)
			}
			indomsCompared++
		}
		if indomsCompared < 40 {
			t.Errorf("%s: compared only %d instance domains", spec, indomsCompared)
		}
		t.Logf("%s: instances and help of %d instance domains identical", spec, indomsCompared)
		t.Logf("%s: %d names, %d descriptors differ, %d help texts differ", spec, len(wantNames), differ, helpDiffer)
		c.Close()
	}
}

// TestValuesAgainstPminfo: deterministic sample metrics read the same as
// pminfo -f prints them.
func TestValuesAgainstPminfo(t *testing.T) {
	requirePmcd(t)
	names := []string{"sample.long.one", "sample.long.hundred", "sample.ulong.million", "sample.longlong.ten",
		"sample.ulonglong.hundred", "sample.float.ten", "sample.double.million", "sample.string.hullo", "sample.bin"}
	out, err := exec.Command("pminfo", append([]string{"-h", "127.0.0.1", "-f"}, names...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	c, _ := New("127.0.0.1", Options{})
	defer c.Close()
	ctx := context.Background()
	ids, _, err := c.LookupNames(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	descs, _, _ := c.Descs(ctx, ids)
	res, err := c.Fetch(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	var ours strings.Builder
	for i, m := range res.Metrics {
		ours.WriteString("\n" + names[i] + "\n")
		for _, v := range m.Values {
			ours.WriteString("    ")
			if v.Inst != pmclient.InNull {
				insts, _ := c.Instances(ctx, descs[i].InDom)
				for _, in := range insts {
					if in.ID == v.Inst {
						ours.WriteString("inst [" + strconv.Itoa(int(in.ID)) + " or \"" + in.Name + "\"] ")
					}
				}
			}
			ours.WriteString("value " + formatValue(descs[i].Type, v) + "\n")
		}
	}
	if got, want := ours.String(), string(out); got != want {
		t.Errorf("pminfo -f:\n%s\nours:\n%s", want, got)
	}
}

func formatValue(t pmapi.Type, v pmapi.Value) string {
	switch t {
	case pmapi.Type32, pmapi.Type64, pmapi.TypeU32:
		return strconv.FormatInt(v.Int, 10)
	case pmapi.TypeU64:
		return strconv.FormatUint(v.Uint, 10)
	case pmapi.TypeFloat, pmapi.TypeDouble:
		return strconv.FormatFloat(v.Float, 'g', 10, 64)
	case pmapi.TypeString:
		return strconv.Quote(v.String)
	}
	return "?"
}

// fakePmcd serves one scripted connection on 127.0.0.1.
func fakePmcd(t *testing.T, script func(net.Conn)) string {
	t.Helper()
	return serveOne(t, "tcp", "127.0.0.1:0", script).Addr().String()
}

// serveOne listens on network/address and runs script on the first
// connection accepted.
func serveOne(t *testing.T, network, address string, script func(net.Conn)) net.Listener {
	t.Helper()
	ln, err := net.Listen(network, address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		script(c)
	}()
	return ln
}

func greeting(c net.Conn) {
	var g [20]byte
	binary.BigEndian.PutUint32(g[0:], 20)
	binary.BigEndian.PutUint32(g[4:], pduError)
	binary.BigEndian.PutUint32(g[16:], 0x02010e44)
	c.Write(g[:])
	var creds [20]byte
	c.Read(creds[:])
}

func TestHostilePmcd(t *testing.T) {
	header := func(n, typ uint32) []byte {
		var h [12]byte
		binary.BigEndian.PutUint32(h[0:], n)
		binary.BigEndian.PutUint32(h[4:], typ)
		return h[:]
	}
	cases := []struct {
		name   string
		script func(net.Conn)
		want   string
	}{
		{"oversized length", func(c net.Conn) { greeting(c); c.Read(make([]byte, 100)); c.Write(header(1<<31, pduPMNSIDs)) }, "PDU length"},
		{"truncated PDU", func(c net.Conn) {
			greeting(c)
			c.Read(make([]byte, 100))
			c.Write(header(40, pduPMNSIDs))
			c.Write([]byte{0, 0})
		}, "closed"},
		{"wrong PDU type", func(c net.Conn) {
			greeting(c)
			c.Read(make([]byte, 100))
			c.Write(append(header(16, pduText), 0, 0, 0, 0))
		}, "IPC"},
		{"garbage greeting", func(c net.Conn) { c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n")) }, "greeting"},
		{"lying counts", func(c net.Conn) {
			greeting(c)
			c.Read(make([]byte, 100))
			c.Write(append(header(20, pduPMNSIDs), 0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff))
		}, "does not fit"},
		{"stall", func(c net.Conn) { greeting(c); time.Sleep(3 * time.Second) }, "Timeout"},
		{"refused", func(c net.Conn) {
			var g [20]byte
			binary.BigEndian.PutUint32(g[0:], 20)
			binary.BigEndian.PutUint32(g[4:], pduError)
			binary.BigEndian.PutUint32(g[12:], uint32(0xffffffff-1043+1)) // -1043: connection limit in 1.x numbering
			c.Write(g[:])
		}, "connection limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr := fakePmcd(t, tc.script)
			c, err := New(addr, Options{RequestTimeout: 500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, errs, err := c.LookupNames(context.Background(), []string{"a.b", "c.d"})
			if err == nil {
				t.Fatalf("no error (errs %v)", errs)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to mention %q", err, tc.want)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestCancellation(t *testing.T) {
	addr := fakePmcd(t, func(c net.Conn) { greeting(c); time.Sleep(3 * time.Second) })
	c, _ := New(addr, Options{RequestTimeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := c.LookupNames(ctx, []string{"a"})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}

func TestReconnectBackoff(t *testing.T) {
	now := time.Unix(1000, 0)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close() // nothing listens: every connection fails
	c, _ := New(addr, Options{Now: func() time.Time { return now }, ConnectTimeout: time.Second})
	ctx := context.Background()
	var waits []time.Duration
	for i := 0; i < 7; i++ {
		if _, _, err := c.LookupNames(ctx, []string{"a"}); err == nil {
			t.Fatal("connected to nothing")
		}
		_, _, err := c.LookupNames(ctx, []string{"a"}) // inside the back-off: no attempt
		if err == nil || !strings.Contains(err.Error(), "next attempt in") {
			t.Fatalf("attempt %d: %v", i, err)
		}
		waits = append(waits, c.retryAt.Sub(now))
		now = c.retryAt
	}
	want := []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 80 * time.Second, 80 * time.Second}
	if fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Errorf("back-off %v, want %v", waits, want)
	}
}

// TestEndpoints: host specifications resolve to what libpcp connects to,
// in its order (PCPIntro(1); __pmConnectPMCD): "localhost" is TCP, as
// for libpcp, and only "local:" tries the unix socket first.
func TestEndpoints(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	unix := func(path string) Endpoint { return Endpoint{"unix", path} }
	tcp := func(addr string) Endpoint { return Endpoint{"tcp", addr} }
	const sock = "/run/pcp/pmcd.socket"
	cases := []struct {
		spec   string
		getenv func(string) string
		want   []Endpoint
		err    string
	}{
		{spec: "", want: []Endpoint{unix(sock), tcp("localhost:44321")}},
		{spec: "local:", want: []Endpoint{unix(sock), tcp("localhost:44321")}},
		{spec: "local:/tmp/p.sock", want: []Endpoint{unix("/tmp/p.sock"), tcp("localhost:44321")}},
		{spec: "local:", getenv: env("PMCD_SOCKET", "/s", "PMCD_PORT", "4000,4001"), want: []Endpoint{unix("/s"), tcp("localhost:4000"), tcp("localhost:4001")}},
		{spec: "unix:", want: []Endpoint{unix(sock)}},
		{spec: "unix:/tmp/p.sock", want: []Endpoint{unix("/tmp/p.sock")}},
		{spec: "localhost", want: []Endpoint{tcp("localhost:44321")}},
		{spec: "db1", want: []Endpoint{tcp("db1:44321")}},
		{spec: "db1:44322", want: []Endpoint{tcp("db1:44322")}},
		{spec: "db1:44321,44322", want: []Endpoint{tcp("db1:44321"), tcp("db1:44322")}},
		{spec: "db1", getenv: env("PMCD_PORT", "4000, 4001"), want: []Endpoint{tcp("db1:4000"), tcp("db1:4001")}},
		{spec: "db1:5000", getenv: env("PMCD_PORT", "4000"), want: []Endpoint{tcp("db1:5000")}},
		{spec: "[::1]:44322", want: []Endpoint{tcp("[::1]:44322")}},
		{spec: "[::1]", want: []Endpoint{tcp("[::1]:44321")}},
		{spec: "::1", want: []Endpoint{tcp("[::1]:44321")}},
		{spec: "fe80::1:2", want: []Endpoint{tcp("[fe80::1:2]:44321")}},
		{spec: "db1:", err: "no port after the colon"},
		{spec: "db1:http", err: `"http" is not a port number`},
		{spec: "db1:70000", err: `"70000" is not a port number`},
		{spec: "db1:44321,", err: `"" is not a port number`},
		{spec: ":44321", err: "empty host name"},
		{spec: "[::1", err: "no closing ]"},
		{spec: "[::1]x", err: `"x" after the address`},
		{spec: "db1@proxy", err: "pmproxy relay"},
		{spec: "db1?container=web", err: "connection attributes"},
		{spec: "db1", getenv: env("PMCD_PORT", "pmcd"), err: `$PMCD_PORT "pmcd"`},
	}
	for _, c := range cases {
		getenv := c.getenv
		if getenv == nil {
			getenv = env()
		}
		got, err := Endpoints(c.spec, getenv)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Endpoints(%q): %v, %v; want an error with %q", c.spec, got, err, c.err)
			}
		case err != nil:
			t.Errorf("Endpoints(%q): %v", c.spec, err)
		case !reflect.DeepEqual(got, c.want):
			t.Errorf("Endpoints(%q) = %v, want %v", c.spec, got, c.want)
		}
	}
}

// TestFetchDescribesEachNewList: Fetch skips looking its metrics' types up
// when it fetches the list it fetched last; a list that differs in any
// place has its new metrics described before their values are decoded.
func TestFetchDescribesEachNewList(t *testing.T) {
	requirePmcd(t)
	c, _ := New("127.0.0.1", Options{})
	defer c.Close()
	ctx := context.Background()
	names := []string{"sample.long.one", "sample.double.million", "sample.string.hullo"}
	ids, _, err := c.LookupNames(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	want := []pmapi.Value{{Inst: pmclient.InNull, Int: 1}, {Inst: pmclient.InNull, Float: 1e6}, {Inst: pmclient.InNull, String: "hullo world!"}}
	for _, list := range [][]int{{0}, {0}, {1}, {0, 1}, {0, 2}, {2, 1}, {0, 1, 2}, {0, 1, 2}} {
		var pmids []pmapi.PMID
		for _, i := range list {
			pmids = append(pmids, ids[i])
		}
		res, err := c.Fetch(ctx, pmids)
		if err != nil {
			t.Fatalf("fetching %v: %v", list, err)
		}
		for j, i := range list {
			m := res.Metrics[j]
			if m.Err != nil || !reflect.DeepEqual(m.Values, want[i:i+1]) {
				t.Errorf("fetching %v: %s is %+v, want %+v", list, names[i], m, want[i])
			}
		}
	}
}
