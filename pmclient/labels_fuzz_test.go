package pmclient

import (
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/internal/hostile"
)

// labelSeeds are (JSON text, label entries) pairs: a real set, and sets
// whose labels all claim the whole text, as in issue #12's LABEL attack.
func labelSeeds() [][]any {
	real := `{"agent":"sample","hostname":"db1"}`
	entry := func(nameOff, nameLen, flags, valueOff, valueLen int) []byte {
		return []byte{byte(nameOff >> 8), byte(nameOff), byte(nameLen), byte(flags), byte(valueOff >> 8), byte(valueOff), byte(valueLen >> 8), byte(valueLen)}
	}
	whole := strings.Repeat("j", 4096)
	var shared []byte
	for i := 0; i < 64; i++ {
		shared = append(shared, entry(0, 255, 0x10, 0, len(whole))...)
	}
	return [][]any{
		{real, append(entry(2, 5, 2, 9, 8), entry(19, 8, 2, 29, 5)...)},
		{whole, shared},
	}
}

// TestWriteFuzzSeeds refreshes testdata/fuzz from the seeds when
// $PCP_DERIVE_LSP_WRITE_SEEDS is set.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_WRITE_SEEDS") == "" {
		t.Skip("set PCP_DERIVE_LSP_WRITE_SEEDS to write testdata/fuzz")
	}
	if err := hostile.WriteCorpusArgs(".", "FuzzParseLabelSet", labelSeeds()); err != nil {
		t.Fatal(err)
	}
}

// FuzzParseLabelSet: any entries parse or fail without a panic, and every
// name and value is a piece of the text, not a copy, however many entries
// share it.
func FuzzParseLabelSet(f *testing.F) {
	for _, s := range labelSeeds() {
		f.Add(s[0].(string), s[1].([]byte))
	}
	f.Fuzz(func(t *testing.T, json string, entries []byte) {
		set, err := ParseLabelSet(-1, json, entries)
		if err != nil {
			return
		}
		if len(set.Labels) != len(entries)/8 {
			t.Fatalf("%d labels from %d entries", len(set.Labels), len(entries)/8)
		}
		for _, l := range set.Labels {
			if !within(l.Name, json) || !within(l.Value, json) {
				t.Fatalf("label %q=%q is not a substring of the text", l.Name, l.Value)
			}
		}
	})
}

// within reports whether s is a non-empty substring of text that shares
// its memory (not a copy).
func within(s, text string) bool {
	if s == "" || text == "" {
		return false
	}
	base := uintptr(unsafe.Pointer(unsafe.StringData(text)))
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return p >= base && p+uintptr(len(s)) <= base+uintptr(len(text))
}
