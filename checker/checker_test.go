package checker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/snapshot"
)

func requirePCP(t testing.TB) {
	t.Helper()
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1: not comparing with libpcp")
	}
	if _, err := exec.LookPath("pminfo"); err != nil {
		t.Fatal("pminfo not found: run scripts/pcp-testenv.sh (or set PCP_DERIVE_LSP_NO_ORACLE=1)")
	}
}

var (
	liveOnce sync.Once
	liveSrc  *snapshot.Source
	liveErr  error
)

// liveMetadata is the test pmcd's metadata as libpcp itself reports it.
func liveMetadata(t testing.TB) *snapshot.Source {
	t.Helper()
	requirePCP(t)
	liveOnce.Do(func() {
		cmd := exec.Command("/usr/bin/python3", "../pmclient/snapshot/testdata/libpcp_capture.py", "127.0.0.1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			liveErr = fmt.Errorf("capturing metadata through libpcp (run scripts/pcp-testenv.sh): %v\n%s", err, stderr.String())
			return
		}
		liveSrc, liveErr = snapshot.Read(bytes.NewReader(out), "live pmcd")
	})
	if liveErr != nil {
		t.Fatal(liveErr)
	}
	return liveSrc
}

func checkOne(t *testing.T, src *snapshot.Source, expr string) *Metric {
	t.Helper()
	f := grammar.ParseConfig("t.conf", []byte("m.x = "+expr+"\n"), grammar.Options{Version: pcpver.V6_0_3})
	rep, err := Check(context.Background(), []*grammar.File{f}, src, Options{Version: pcpver.V6_0_3})
	if err != nil {
		t.Fatal(err)
	}
	return rep.ByName.Metric("m.x")
}

// TestStarterSetSemantics compares with libpcp 6.0.3's verdicts collected
// in the starter set: semantic errors, metadata, silent bind failures.
func TestStarterSetSemantics(t *testing.T) {
	src := liveMetadata(t)
	f, err := os.Open("../grammar/testdata/conformance-starter-6.0.3.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var c struct {
			Expr, Sem, OK, Bind string
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if c.Sem == "" && c.OK == "" && c.Bind == "" {
			continue
		}
		n++
		m := checkOne(t, src, c.Expr)
		if m == nil {
			t.Errorf("%q: not registered", c.Expr)
			continue
		}
		switch {
		case c.Sem != "":
			if got := m.Rendering() + ": " + m.Message(); m.Status != SemanticError || got != c.Sem {
				t.Errorf("%q: got %v %q, libpcp says %q", c.Expr, m.Status, got, c.Sem)
			}
		case c.Bind != "":
			if m.Status != Unbound {
				t.Errorf("%q: got %v, libpcp hides it silently", c.Expr, m.Status)
			}
		default:
			got := strings.Join(strings.Fields(PminfoDesc(m.Desc)), " ")
			want := strings.Join(strings.Fields(c.OK), " ")
			if m.Status != Valid || got != want {
				t.Errorf("%q: got %v %q (%s), libpcp says %q", c.Expr, m.Status, got, m.Message(), want)
			}
		}
	}
	t.Logf("%d semantic cases", n)
}
