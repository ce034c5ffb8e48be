package htop

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// TestBadInput: hostile files end with a clear finding, in bounded time
// and memory (allocated bytes at most 20 times the input plus 40 MB).
func TestBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	binary := make([]byte, 10<<20)
	for i := range binary {
		binary[i] = byte(rng.Uint32())
	}
	var keys strings.Builder
	keys.WriteString("[many]\n")
	for i := range 100_000 {
		fmt.Fprintf(&keys, "m%d.metric = sample.long.one + %d\nm%d.colour = x\n", i, i, i)
	}
	var big strings.Builder
	big.WriteString("[big]\n")
	for big.Len() < 10<<20 {
		big.WriteString("x.metric = kernel.all.load == 1 ? 2 : 3\nwidth = wide\n[b-c]\n")
	}
	tests := []struct {
		name string
		v    pcpver.Version
		kind Kind
		src  []byte
		code string // a finding the file must have
	}{
		{"10 MB binary", pcpver.V7_2_2, Meter, binary, codes.HtopNulByte},
		{"100,000 keys", pcpver.V7_2_2, Meter, []byte(keys.String()), codes.HtopUnknownKey},
		{"10 MB of lines", pcpver.V6_0_3, Column, []byte(big.String()), codes.HtopBadName},
		{"one 10 MB line", pcpver.V7_2_2, Screen, []byte("[s]\nx.metric = " + strings.Repeat("a+", 5<<20) + "\n"), ""},
		{"one 10 MB header", pcpver.V7_2_2, Screen, []byte("[" + strings.Repeat("a", 10<<20)), codes.HtopBadName},
		{"not INI", pcpver.V7_2_2, Meter, []byte(strings.Repeat("{\"json\": [1, 2, 3]}\n", 1<<19)), codes.HtopNoSections},
		{"newlines only", pcpver.V7_2_2, Meter, []byte(strings.Repeat("\n", 10<<20)), ""},
		{"short keys", pcpver.V7_2_2, Meter, []byte("[s]\n" + strings.Repeat("a=b\n", 5<<19)), codes.HtopUnknownKey},
		{"NULs", pcpver.V7_2_2, Meter, make([]byte, 10<<20), codes.HtopNulByte},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			f := Read(tc.v, tc.kind, "/x/"+tc.kind.Dir()+"/f", tc.src)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			limit := uint64(20*len(tc.src) + 40<<20)
			t.Logf("%d bytes in, %d allocated, %v, %d expressions, %d findings", len(tc.src), alloc, took, len(f.Exprs), len(f.Problems))
			if alloc > limit {
				t.Errorf("allocated %d bytes, limit %d", alloc, limit)
			}
			limitTime := 10 * time.Second
			if raceDetector {
				limitTime *= 10
			}
			if took > limitTime {
				t.Errorf("took %v", took)
			}
			if len(f.Problems) > 20*maxPerCode {
				t.Errorf("%d findings: not bounded per code", len(f.Problems))
			}
			if tc.code != "" {
				found := false
				for _, p := range f.Problems {
					found = found || p.Code == tc.code
				}
				if !found {
					t.Errorf("no %s finding", tc.code)
				}
			}
			checkFile(t, f)
		})
	}
}
