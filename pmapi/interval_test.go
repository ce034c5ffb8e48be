package pmapi

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

var intervalCorpus = []string{
	"0.5", "2", "2sec", "2 sec", "2secs", "2SEC", "1min", "1 min", "1min 30sec", "1min30sec",
	"1.5hour", "1.5hours", "100msec", "100ms", "250usec", "2 days", "1d", "1h", "1hr", "1m", "1s",
	"1 2", "1e2", "1e2sec", ".5", "5.", "  3sec", "3sec  ", "1second", "2minutes", "1millisecond",
	"10microseconds", "x", "", "1x", "1min x", "-1", "1 -1", "sec", "1.2.3", "1day2hour",
}

// TestParseIntervalAgainstLibpcp: every string is read as the installed
// libpcp's pmParseInterval reads it (to the microsecond), or refused.
func TestParseIntervalAgainstLibpcp(t *testing.T) {
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	var in strings.Builder
	for _, s := range intervalCorpus {
		b, _ := json.Marshal(s)
		in.Write(append(b, '\n'))
	}
	cmd := exec.Command("/usr/bin/python3", "testdata/libpcp_interval.py")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3-pcp: %v (run scripts/pcp-testenv.sh)", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(intervalCorpus) {
		t.Fatalf("%d answers for %d strings", len(lines), len(intervalCorpus))
	}
	for i, spec := range intervalCorpus {
		got, err := ParseInterval(spec)
		var sec, usec int64
		if lines[i] == "ERR" {
			if err == nil {
				t.Errorf("%q: got %v, libpcp refuses it", spec, got)
			}
			continue
		}
		if _, scanErr := fmt.Sscan(lines[i], &sec, &usec); scanErr != nil {
			t.Fatalf("answer %q: %v", lines[i], scanErr)
		}
		want := time.Duration(sec)*time.Second + time.Duration(usec)*time.Microsecond
		if err != nil || (got-want).Abs() > time.Microsecond {
			t.Errorf("%q: got %v, %v; libpcp %v", spec, got, err, want)
		}
	}
}
