package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestNamedFilesRefused: every flag that names a file reads only a
// regular file. A FIFO with no writer (which an open for reading waits on
// for ever) and /dev/zero (which never ends) are refused at once with an
// error naming the file and what it is, under a memory limit of 4 GB (as issue #41 ran them) and
// within 40 MB of peak RSS. Before internal/safeopen, the FIFOs hung (the
// child was killed after childHang) and /dev/zero as --indom-config read
// until the memory ran out.
func TestNamedFilesRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "x.conf")
	if err := os.WriteFile(conf, []byte("m.a = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// An archive whose metadata file is a FIFO.
	archive := filepath.Join(dir, "arch")
	if err := syscall.Mkfifo(archive+".meta", 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(archive+".0", []byte("not read"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		says string
	}{
		{"hosts-file FIFO", []string{"check", "--hosts-file", fifo, conf}, fifo + ": a FIFO"},
		{"hosts-file device", []string{"check", "--hosts-file", "/dev/zero", conf}, "/dev/zero: a character device"},
		{"config FIFO", []string{"check", "--no-metadata", "--config", fifo, conf}, fifo + ": a FIFO"},
		{"config device", []string{"check", "--no-metadata", "--config", "/dev/zero", conf}, "/dev/zero: a character device"},
		{"indom-config FIFO", []string{"check", "--no-metadata", "--indom-config", fifo, conf}, fifo + ": a FIFO"},
		{"indom-config device", []string{"check", "--no-metadata", "--indom-config", "/dev/zero", conf}, "/dev/zero: a character device"},
		{"metadata device", []string{"check", "--metadata", "/dev/zero", conf}, "/dev/zero: a character device"},
		{"archive FIFO", []string{"check", "--archive", archive, conf}, archive + ".meta: a FIFO"},
		{"config path FIFO", []string{"check", "--no-metadata", fifo}, fifo + ": a FIFO"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := runChild(t, "as=4000000000", c.args...)
			const bound = 40 << 20
			switch {
			case r.hung:
				t.Errorf("%v hung (killed after %v)", c.args, childHang)
			case r.peak == 0:
				t.Errorf("%v crashed: exit %d\n%s", c.args, r.status, lastLines(r.stderr, 40))
			case !strings.Contains(r.stderr, c.says):
				t.Errorf("%v: exit %d, stderr\n%s\nwant it to say %q", c.args, r.status, r.stderr, c.says)
			case r.peak > bound:
				t.Errorf("%v: peak RSS %d MB, over %d MB", c.args, r.peak>>20, bound>>20)
			}
			t.Logf("%v: exit %d, peak RSS %.1f MB", c.args, r.status, float64(r.peak)/(1<<20))
		})
	}
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// TestProjectConfigPeakRSS: check --config of a project file naming
// 140,000 unknown codes (issue #41: 1 MiB, quadratic, killed after 90 s)
// is refused for its size at once; one just under the 256 KiB cap
// (37,000 codes) is a usage error that lists the first 100 with their
// lines and counts the rest. Each within 20 times the file + 40 MB of
// peak RSS.
func TestProjectConfigPeakRSS(t *testing.T) {
	// The binary as released: a race-enabled test binary's own memory
	// is several times a release's.
	bin, dir := peakRSSBinary(t, "the peak RSS of a project config's unknown codes")
	conf := filepath.Join(dir, "x.conf")
	if err := os.WriteFile(conf, []byte("m.a = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		codes int
		says  string
	}{
		{140_000, "980009 bytes, over the size limit of 262144 bytes"},
		{37_000, "36900 more unknown finding codes"},
	} {
		var b strings.Builder
		b.WriteString("disable:\n")
		for i := 0; i < c.codes; i++ {
			b.WriteString("- " + strconv.FormatInt(int64(i)+36*36*36, 36) + "\n")
		}
		project := filepath.Join(dir, strconv.Itoa(c.codes)+".yaml")
		if err := os.WriteFile(project, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		r := peakRSS(t, bin, []string{"check", "--no-metadata", "--config", project, conf})
		bound := int64(20*b.Len() + 40<<20)
		t.Logf("%d codes, %d bytes: exit %d, peak RSS %.1f MB (bound %.1f MB)", c.codes, b.Len(), r.status, float64(r.peak)/(1<<20), float64(bound)/(1<<20))
		switch {
		case r.hung:
			t.Errorf("%d codes: hung (killed after %v)", c.codes, childHang)
		case r.status != ExitUsage || !strings.Contains(r.stderr, c.says):
			t.Errorf("%d codes: exit %d, stderr %.500q…, want it to say %q", c.codes, r.status, r.stderr, c.says)
		case r.peak == 0 || r.peak > bound:
			t.Errorf("%d codes: peak RSS %d MB, over %d MB", c.codes, r.peak>>20, bound>>20)
		}
	}
}
