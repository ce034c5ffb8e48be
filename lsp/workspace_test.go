package lsp

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// hostileWorkspace makes a workspace folder whose derived/ directory holds
// one good config and the things issue #12 found in the wild. It returns
// the folder.
func hostileWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	derived := filepath.Join(ws, "derived")
	other := filepath.Join(dir, "other", "derived")
	for _, d := range []string{derived, other, filepath.Join(ws, "lib")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(derived, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(derived, "ok.conf"), "m.ok = 1\n")
	write(filepath.Join(ws, "lib", "shared.txt"), "m.shared = 2\n")
	write(filepath.Join(other, "theirs.conf"), "their.secret = 3\n")
	link("../lib/shared.txt", "inside.conf")
	link(filepath.Join(other, "theirs.conf"), "outside.conf")
	link("/etc/passwd", "passwd.conf")
	link("/dev/zero", "zero.conf")
	link("/dev/null", "null.conf")
	link("nowhere", "dangling.conf")
	if err := syscall.Mkfifo(filepath.Join(derived, "fifo.conf"), 0o644); err != nil {
		t.Fatal(err)
	}
	link("fifo.conf", "fifo-link.conf")
	return ws
}

// TestScanReadsOnlyRegularFilesInside: the scan reads regular files in
// the folder and links to them, and skips (without blocking or reading)
// devices, FIFOs, sockets and links leading outside the folder.
func TestScanReadsOnlyRegularFilesInside(t *testing.T) {
	ws := hostileWorkspace(t)
	derived := filepath.Join(ws, "derived")
	// A socket, where the path is short enough for one.
	if ln, err := net.Listen("unix", filepath.Join(derived, "sock.conf")); err == nil {
		defer ln.Close()
	}
	w := newWorkspace()
	w.addFolder(uri.File(ws))
	done := make(chan scanResult, 1)
	go func() { done <- w.scan(context.Background(), zap.NewNop()) }()
	var res scanResult
	select {
	case res = <-done:
	case <-time.After(60 * time.Second): // a guard against a hang, not a timing check
		t.Fatal("the scan blocked (on the FIFO?)")
	}
	var got []string
	for _, wf := range w.snapshot() {
		for _, def := range wf.defs {
			got = append(got, filepath.Base(wf.uri.FsPath())+":"+wf.nameOf(def))
		}
	}
	sort.Strings(got)
	if want := []string{"inside.conf:m.shared", "ok.conf:m.ok"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("indexed %v, want %v", got, want)
	}
	wantSkipped := map[string]string{
		"outside.conf":   "outside the workspace",
		"passwd.conf":    "outside the workspace",
		"zero.conf":      "outside the workspace",
		"null.conf":      "outside the workspace",
		"dangling.conf":  "unresolvable",
		"fifo.conf":      "not a regular file",
		"fifo-link.conf": "not a regular file",
	}
	if _, err := os.Lstat(filepath.Join(derived, "sock.conf")); err == nil {
		wantSkipped["sock.conf"] = "not a regular file"
	}
	for name, why := range wantSkipped {
		if got := res.skipped[filepath.Join(derived, name)]; !strings.Contains(got, why) {
			t.Errorf("%s: skipped because %q, want %q", name, got, why)
		}
	}
}

// TestScanDeviceInsideWorkspace: a character device inside the folder
// itself (not a link) is never opened for reading.
func TestScanDeviceInsideWorkspace(t *testing.T) {
	ws := t.TempDir()
	derived := filepath.Join(ws, "derived")
	os.MkdirAll(derived, 0o755)
	// mknod needs privileges: make test runs as root (it installs PCP).
	if err := syscall.Mknod(filepath.Join(derived, "zero.conf"), syscall.S_IFCHR|0o644, int(mkdev(1, 5))); err != nil {
		t.Fatalf("mknod (make test runs as root): %v", err)
	}
	w := newWorkspace()
	w.addFolder(uri.File(ws))
	res := w.scan(context.Background(), zap.NewNop())
	if why := res.skipped[filepath.Join(derived, "zero.conf")]; !strings.Contains(why, "not a regular file") {
		t.Errorf("device: %q", why)
	}
}

// mkdev is Linux's makedev for small numbers.
func mkdev(major, minor uint32) uint64 { return uint64(major)<<8 | uint64(minor) }

// TestScanSizeLimits: a file over the per-file limit is skipped, and once
// the total is reached further files are too, each with a reason.
func TestScanSizeLimits(t *testing.T) {
	ws := t.TempDir()
	derived := filepath.Join(ws, "derived")
	os.MkdirAll(derived, 0o755)
	line := "m.x = 1\n"
	os.WriteFile(filepath.Join(derived, "a.conf"), []byte(strings.Repeat(line, 100)), 0o644)  // 800 bytes
	os.WriteFile(filepath.Join(derived, "b.conf"), []byte(strings.Repeat(line, 1000)), 0o644) // 8000 bytes: too big
	os.WriteFile(filepath.Join(derived, "c.conf"), []byte(strings.Repeat(line, 100)), 0o644)
	os.WriteFile(filepath.Join(derived, "d.conf"), []byte(strings.Repeat(line, 100)), 0o644) // over the total
	w := newWorkspace()
	w.limits = scanLimits{files: 100, size: 4000, total: 2000}
	w.addFolder(uri.File(ws))
	res := w.scan(context.Background(), zap.NewNop())
	if res.files != 2 || res.bytes != 1600 {
		t.Errorf("read %d files, %d bytes; want 2, 1600", res.files, res.bytes)
	}
	if why := res.skipped[filepath.Join(derived, "b.conf")]; !strings.Contains(why, "limit for one file") {
		t.Errorf("b.conf: %q", why)
	}
	if why := res.skipped[filepath.Join(derived, "d.conf")]; !strings.Contains(why, "total limit") {
		t.Errorf("d.conf: %q", why)
	}
}

// TestWorkspaceScanUnderMemoryLimit: the real server scans a folder with
// a link to /dev/zero (which grew it ~400 MB/s until it died), a FIFO and
// a link to another workspace, answers workspace/symbol with only the
// folder's own definitions, and its peak RSS stays small. A 4 GiB
// address-space limit only keeps a regression from taking the machine:
// Go reserves address space it never uses (an idle server's VmPeak is
// ~1.6 GB), so a tight one failed at start-up now and then under load.
func TestWorkspaceScanUnderMemoryLimit(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Fatalf("prlimit (util-linux) is needed to bound the server's memory: %v", err)
	}
	ws := hostileWorkspace(t)
	bin := buildServer(t)
	p := startServer(t, bin, prlimit, fmt.Sprintf("--as=%d", 4<<30))
	folder := string(uri.File(ws))
	p.send(1, "initialize", map[string]any{"capabilities": map[string]any{}, "rootUri": folder,
		"workspaceFolders": []any{map[string]any{"uri": folder, "name": "ws"}}})
	if m := p.reply(1); m.Error != nil {
		t.Fatalf("initialize: %+v", m.Error)
	}
	p.send(nil, "initialized", map[string]any{})
	// The scan runs in the background; its debug log says when it ended.
	guard := time.Now().Add(60 * time.Second)
	for !strings.Contains(p.stderr.String(), "workspace scanned") {
		select {
		case <-p.waited:
			t.Fatalf("the server died during the scan: %v\n%s", p.err, tail(p.stderr.String()))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(guard) {
			t.Fatalf("the scan never ended:\n%s", tail(p.stderr.String()))
		}
	}
	p.send(2, "workspace/symbol", map[string]any{"query": ""})
	m := p.reply(2)
	if m.Error != nil || !strings.Contains(string(m.Result), "m.ok") || strings.Contains(string(m.Result), "their.secret") {
		t.Errorf("workspace/symbol: %+v %s", m.Error, m.Result)
	}
	// prlimit execs the server: its pid is the server's.
	if mb := peakRSSMB(p.cmd.Process.Pid); mb == 0 || mb > 300 {
		t.Errorf("the server's peak RSS is %.0f MB after scanning a small workspace (0: unreadable)", mb)
	}
	p.send(3, "shutdown", nil)
	p.reply(3)
	p.send(nil, "exit", nil)
	if st := p.status(); st != 0 {
		t.Errorf("status %d:\n%s", st, tail(p.stderr.String()))
	}
}

// tail is the end of a long log.
func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}
