package grammar

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// starterCase is one line of the conformance starter set collected from
// libpcp 6.0.3 (../shared/docs/conformance-starter-6.0.3.jsonl, copied into
// testdata): a syntax error has caret and msg.
type starterCase struct {
	Expr  string  `json:"expr"`
	Caret *int    `json:"caret"`
	Msg   *string `json:"msg"`
}

func loadStarter(t *testing.T) []starterCase {
	t.Helper()
	f, err := os.Open("testdata/conformance-starter-6.0.3.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []starterCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c starterCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		cases = append(cases, c)
	}
	return cases
}

func TestLibpcpVerdictStarterSet(t *testing.T) {
	for _, c := range loadStarter(t) {
		v := LibpcpVerdict(c.Expr, PCP6, false)
		if c.Caret == nil {
			if !v.OK {
				t.Errorf("%q: rejected (caret %d, %q), libpcp accepts", c.Expr, v.Caret, v.Message)
			}
			continue
		}
		if v.OK {
			t.Errorf("%q: accepted, libpcp rejects at %d with %q", c.Expr, *c.Caret, *c.Msg)
			continue
		}
		if v.Caret != *c.Caret || v.Message != *c.Msg {
			t.Errorf("%q: got caret %d %q, libpcp %d %q", c.Expr, v.Caret, v.Message, *c.Caret, *c.Msg)
		}
	}
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
