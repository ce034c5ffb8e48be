package snapshot

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// endless is a pipe that yields head, then body over and over until the
// reader closes it: a snapshot on stdin that never ends.
func endless(head, body string) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		if _, err := io.WriteString(pw, head); err != nil {
			return
		}
		chunk := strings.Repeat(body, max(1, 64<<10/len(body)))
		for {
			if _, err := io.WriteString(pw, chunk); err != nil {
				return
			}
		}
	}()
	return pr
}

// TestSizeCap: a snapshot larger than Options.MaxBytes, from a pipe that
// never ends or a file, is an error naming it and the cap, and reading
// it costs a bounded multiple of the cap (issue #12: a snapshot read from
// a pipe had no bound).
func TestSizeCap(t *testing.T) {
	const capBytes = 1 << 20
	var small bytes.Buffer
	if err := Write(&small, sample()); err != nil {
		t.Fatal(err)
	}
	head := `{"format":"pcp-derive-lsp-snapshot","version":1,"metrics":[`
	tests := []struct {
		name    string
		in      io.ReadCloser
		wantErr error
	}{
		{"endless whitespace", endless("", " \n"), ErrTooLarge},
		{"endless help text", endless(head+`{"name":"a","pmid":"1.2.3","type":"32","sem":"instant","units":"","help":"`, "help "), ErrTooLarge},
		{"endless metrics", endless(head, `{"name":"a","pmid":"1.2.3","type":"32","sem":"instant","units":""},`), ErrTooLarge},
		{"a small snapshot", io.NopCloser(bytes.NewReader(small.Bytes())), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.in.Close()
			var err error
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err = ReadWith(tc.in, "snapshot stdin", Options{MaxBytes: capBytes})
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > 16*capBytes {
				t.Errorf("allocated %d bytes reading at most %d", got, capBytes)
			}
			if !errors.Is(err, tc.wantErr) || err != nil && !strings.Contains(err.Error(), "snapshot stdin: larger than 1048576 bytes") {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
		})
	}
}
