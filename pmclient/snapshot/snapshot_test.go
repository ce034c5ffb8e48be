package snapshot

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/hostile"
)

func sample() *File {
	return &File{Source: "test", PCPVersion: "6.0.3",
		Metrics: []Metric{
			MetricFromDesc("sample.bin", pmapi.Desc{PMID: pmapi.NewPMID(29, 0, 6), Type: pmapi.Type32, InDom: pmapi.NewInDom(29, 2), Sem: pmapi.SemInstant}),
			{Name: "disk.dev.read", PMID: "60.0.4", Type: "U64", InDom: "60.1", Sem: "counter", Units: "count", OneLine: "reads"},
		},
		InDoms: []InDom{{InDom: "29.2", Instances: []Instance{{100, "bin-100"}, {200, "bin-200"}}}},
	}
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	src, err := Read(&buf, "test snapshot")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pmids, errs, _ := src.LookupNames(ctx, []string{"sample.bin", "nope", "disk.dev.read"})
	if errs[0] != nil || errs[1] != pmclient.ErrUnknownName || pmids[0] != pmapi.NewPMID(29, 0, 6) {
		t.Fatalf("lookup: %v %v", pmids, errs)
	}
	descs, _, _ := src.Descs(ctx, []pmapi.PMID{pmids[2]})
	if descs[0].Sem != pmapi.SemCounter || descs[0].Units.DimCount != 1 || descs[0].Type != pmapi.TypeU64 {
		t.Errorf("desc %+v", descs[0])
	}
	kids, err := src.Children(ctx, "sample")
	if err != nil || len(kids) != 1 || kids[0].Name != "bin" || !kids[0].Leaf {
		t.Errorf("children %v %v", kids, err)
	}
	top, _ := src.Children(ctx, "")
	if len(top) != 2 || top[0].Name != "disk" || top[0].Leaf {
		t.Errorf("root %v", top)
	}
	insts, err := src.Instances(ctx, pmapi.NewInDom(29, 2))
	if err != nil || len(insts) != 2 || insts[1].Name != "bin-200" {
		t.Errorf("instances %v %v", insts, err)
	}
	if help, err := src.HelpText(ctx, pmclient.HelpTarget{PMID: pmids[2], InDom: pmapi.InDomNull}, false); help != "reads" || err != nil {
		t.Errorf("help %q %v", help, err)
	}
}

func TestReadRejectsBadInput(t *testing.T) {
	for _, in := range []string{
		"", "{", "[]", `{"format":"other","version":1}`, `{"format":"pcp-derive-lsp-snapshot","version":2}`,
		`{"format":"pcp-derive-lsp-snapshot","version":1,"metrics":[{"name":"a","pmid":"1.2","type":"32","sem":"instant"}]}`,
		`{"format":"pcp-derive-lsp-snapshot","version":1,"metrics":[{"name":"a","pmid":"1.2.3","type":"int","sem":"instant"}]}`,
		`{"format":"pcp-derive-lsp-snapshot","version":1,"metrics":[{"name":"a","pmid":"1.2.3","type":"32","sem":"x"}]}`,
		`{"format":"pcp-derive-lsp-snapshot","version":1,"metrics":[{"name":"a","pmid":"1.2.3","type":"32","sem":"instant","units":"furlong"}]}`,
	} {
		if _, err := Read(strings.NewReader(in), "bad"); err == nil {
			t.Errorf("%q: accepted", in)
		}
	}
}

// snapshotSeeds are a real snapshot, an empty one, and snapshots over
// FuzzRead's 64 KiB cap: whitespace, one long help text, many metrics.
func snapshotSeeds() [][]byte {
	var buf bytes.Buffer
	Write(&buf, sample())
	head := `{"format":"pcp-derive-lsp-snapshot","version":1,"metrics":[`
	return [][]byte{
		buf.Bytes(),
		[]byte(`{"format":"pcp-derive-lsp-snapshot","version":1}`),
		[]byte(strings.Repeat(" ", 70<<10) + "{}"),
		[]byte(head + `{"name":"a","pmid":"1.2.3","type":"32","sem":"instant","units":"","help":"` + strings.Repeat("h", 70<<10) + `"}]}`),
		[]byte(head + strings.Repeat(`{"name":"a","pmid":"1.2.3","type":"32","sem":"instant","units":""},`, 1200) + "]}"),
	}
}

// TestWriteFuzzSeeds refreshes testdata/fuzz from the seeds when
// $PCP_DERIVE_LSP_WRITE_SEEDS is set.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_WRITE_SEEDS") == "" {
		t.Skip("set PCP_DERIVE_LSP_WRITE_SEEDS to write testdata/fuzz")
	}
	if err := hostile.WriteCorpus(".", "FuzzRead", snapshotSeeds()); err != nil {
		t.Fatal(err)
	}
}

// FuzzRead: any bytes give a snapshot or an error, never a panic.
func FuzzRead(f *testing.F) {
	for _, s := range snapshotSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		src, err := ReadWith(bytes.NewReader(b), "fuzz", Options{MaxBytes: 64 << 10})
		if err != nil {
			return
		}
		ctx := context.Background()
		src.Children(ctx, "")
		names := src.Names()
		pmids, _, _ := src.LookupNames(ctx, names)
		src.Descs(ctx, pmids)
	})
}
