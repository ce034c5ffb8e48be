package embedded

import (
	"context"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

func TestEmbeddedSnapshot(t *testing.T) {
	src, err := Source()
	if err != nil {
		t.Fatal(err)
	}
	names := src.Names()
	if len(names) < 1000 {
		t.Fatalf("only %d metrics", len(names))
	}
	ctx := context.Background()
	pmids, errs, err := src.LookupNames(ctx, []string{"kernel.all.load", "disk.dev.read", "sample.long.one"})
	if err != nil || errs[0] != nil || errs[1] != nil || errs[2] == nil {
		t.Fatalf("lookups: %v %v", errs, err)
	}
	descs, _, _ := src.Descs(ctx, pmids[:2])
	if descs[0].Type != pmapi.TypeFloat || descs[0].InDom == pmapi.InDomNull {
		t.Errorf("kernel.all.load: %+v", descs[0])
	}
	if descs[1].Sem != pmapi.SemCounter {
		t.Errorf("disk.dev.read: %+v", descs[1])
	}
	insts, err := src.Instances(ctx, descs[0].InDom)
	if err != nil || len(insts) != 3 {
		t.Errorf("kernel.all.load instances: %v %v", insts, err)
	}
}
