package report

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestAppendDiagIsMarshalIndent: the hand-written finding writer gives
// encoding/json's bytes, for every escape encoding/json makes.
func TestAppendDiagIsMarshalIndent(t *testing.T) {
	strs := []string{"", "plain", `quote " and \ backslash`, "<expr> & <b>", "tab\tnl\nret\rbs\bff\f",
		"\x00\x01\x1f\x7f", "caf\u00e9 \u2028 \u2029 \U0001F600", "bad \xff\xfe utf8 \xe2\x82", "semantic"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		strs = append(strs, string(b))
	}
	for i, s := range strs {
		d := jsonDiag{
			Range:    jsonRange{jsonPos{int32(i), -int32(i), 1 << 40, 0}, jsonPos{int32(i) + 1, 2, 3, 4}},
			Severity: s, Code: strs[(i+1)%len(strs)], Message: s + strs[(i+2)%len(strs)],
		}
		if i%4 == 3 {
			d.More = i * 1000
		}
		switch i % 3 {
		case 1:
			d.PCP = []string{s}
		case 2:
			d.PCP = []string{s, "second", strs[(i+3)%len(strs)]}
		}
		for _, prefix := range []string{"", "        "} {
			want, err := json.MarshalIndent(d, prefix, "  ")
			if err != nil {
				t.Fatal(err)
			}
			if got := appendDiag(nil, prefix, &d); string(got) != string(want) {
				t.Fatalf("%q:\ngot  %s\nwant %s", s, got, want)
			}
		}
	}
	// An empty, non-nil list is omitted as encoding/json omits it.
	d := jsonDiag{PCP: []string{}}
	want, _ := json.MarshalIndent(d, "  ", "  ")
	if got := appendDiag(nil, "  ", &d); string(got) != string(want) {
		t.Fatalf("empty pcp:\ngot  %s\nwant %s", got, want)
	}
}
