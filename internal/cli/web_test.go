package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWebListen: an address that listens beyond this machine without
// naming it is refused before anything is opened; flags out of range too.
func TestWebListen(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", ":8080"}, `--listen ":8080" serves every interface: name the address`},
		{[]string{"--listen", "8080"}, `--listen "8080": want HOST:PORT`},
		{[]string{"--max-samples", "1"}, "--max-samples must be at least 2"},
		{[]string{"--interval", "0"}, "must be more than zero"},
		{[]string{"--start", "+1sec"}, "--start and --finish need --archive"},
	} {
		_, stderr, status := run(t, "", append([]string{"web", "--metadata", "embedded"}, c.args...)...)
		if status != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("web %s: exit %d, stderr %q, want %q", strings.Join(c.args, " "), status, stderr, c.want)
		}
	}
}

// syncBuffer is a buffer a running command writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestWebServes: web prints its URL on stdout, serves the configs it was
// given on 127.0.0.1, and ends with status 0 when interrupted.
func TestWebServes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int)
	go func() {
		done <- Main(ctx, Env{Args: []string{"web", "--metadata", "embedded", "../../testdata/examples"}, Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }})
	}()
	re := regexp.MustCompile(`^pcp-derive-lsp web: serving (http://127\.0\.0\.1:\d+)/ \(values from `)
	var url string
	for deadline := time.Now().Add(20 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		cancel()
		t.Fatalf("no URL on stdout %q (stderr %q)", out.String(), errOut.String())
	}
	res, err := http.Get(url + "/api/configs")
	if err != nil {
		t.Fatal(err)
	}
	var configs struct {
		Configs []struct{ Path string }
	}
	json.NewDecoder(res.Body).Decode(&configs)
	res.Body.Close()
	if len(configs.Configs) == 0 {
		t.Errorf("no configs served from testdata/examples")
	}
	cancel()
	select {
	case status := <-done:
		if status != ExitOK || errOut.String() != "" {
			t.Errorf("exit %d, stderr %q", status, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("web did not stop when interrupted")
	}
}
