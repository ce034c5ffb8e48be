package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// fixable is a config with one safe fix that makes it longer (a
// misspelt code in a suppression comment: "sytax" becomes "syntax") and
// a last line that libpcp drops silently when its newline is lost.
const fixable = "# pcp-derive-lsp: ignore[sytax]\nm.a = 1 +\nm.last = 1\n"

// TestFixFullDisk: check --fix on a disk with no room for the fixed file
// (a file-size limit of the original's size: writes past it fail with
// EFBIG, as on a full disk with ENOSPC) fails, says so, and leaves the
// original byte for byte. Before --fix wrote to a temporary file and
// renamed it, the file was truncated in place and rewritten up to the
// limit: its last line lost its newline, and libpcp drops such a line.
func TestFixFullDisk(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "f.conf")
	if err := os.WriteFile(conf, []byte(fixable), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runChild(t, "fsize="+strconv.Itoa(len(fixable)), "check", "--no-metadata", "--fix", conf)
	got, rerr := os.ReadFile(conf)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if string(got) != fixable {
		t.Errorf("a failed --fix left %d bytes on disk, want the original %d byte for byte:\n%q", len(got), len(fixable), got)
	}
	if r.status != ExitUsage || !strings.Contains(r.stderr, "file too large") || !strings.Contains(r.stderr, "not rewritten") {
		t.Errorf("--fix on a full disk: exit %d, want 2 and that the file was not rewritten:\n%s", r.status, r.stderr)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(conf), ".f.conf*")); len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

// TestFixWriteError: a write that fails part way (any writer error)
// leaves the original byte for byte and no temporary file.
func TestFixWriteError(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "f.conf")
	if err := os.WriteFile(conf, []byte(fixable), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	env := Env{Args: []string{"check", "--no-metadata", "--fix", conf}, Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &stderr,
		Getenv: func(string) string { return "" }, fixWriter: func(w *os.File) io.Writer { return failAfter{w, 10} }}
	if status := Main(context.Background(), env); status != ExitUsage || !strings.Contains(stderr.String(), "no space left") {
		t.Errorf("exit %d, stderr %q; want 2 and the write's error", status, stderr.String())
	}
	if got, _ := os.ReadFile(conf); string(got) != fixable {
		t.Errorf("the original became %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// failAfter writes n bytes, then fails as a full disk does.
type failAfter struct {
	f *os.File
	n int
}

func (w failAfter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k, _ := w.f.Write(p[:w.n])
		return k, syscall.ENOSPC
	}
	return w.f.Write(p)
}

// TestFixKeepsMode: the fixed file has the original's permissions, and
// is a new file renamed over it (an editor's save), not rewritten in
// place: a hard link to the old file keeps the old text.
func TestFixKeepsMode(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "f.conf")
	if err := os.WriteFile(conf, []byte(fixable), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(conf, 0o640); err != nil { // past the umask
		t.Fatal(err)
	}
	if _, stderr, status := run(t, "", "check", "--no-metadata", "--fix", conf); status == ExitUsage {
		t.Fatalf("--fix: exit 2, %s", stderr)
	}
	info, err := os.Stat(conf)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v after --fix, want -rw-r-----", info.Mode())
	}
	if got, _ := os.ReadFile(conf); string(got) != strings.Replace(fixable, "sytax", "syntax", 1) {
		t.Errorf("fixed text %q", got)
	}
}

// TestFixConcurrentAppend: a line another program appends after check
// read the file and before --fix writes it is not lost: --fix refuses,
// says the file changed, and leaves it as the other program made it.
// Before, the appended line was overwritten and check exited 0.
func TestFixConcurrentAppend(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "f.conf")
	if err := os.WriteFile(conf, []byte(fixable), 0o644); err != nil {
		t.Fatal(err)
	}
	const appended = "m.other = 2\n"
	var stderr bytes.Buffer
	env := Env{Args: []string{"check", "--no-metadata", "--fix", conf}, Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &stderr,
		Getenv: func(string) string { return "" },
		InputsRead: func(int64) { // the other program, between the read and the fix
			f, err := os.OpenFile(conf, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(appended)
			f.Close()
		}}
	status := Main(context.Background(), env)
	if got, _ := os.ReadFile(conf); string(got) != fixable+appended {
		t.Errorf("the file became %q, want the other program's %q", got, fixable+appended)
	}
	if status != ExitUsage || !strings.Contains(stderr.String(), "changed since it was read") {
		t.Errorf("exit %d, stderr %q; want 2 and that the file changed", status, stderr.String())
	}
}

// TestFixLinkOutsideTree: a symbolic link in the checked directory to a
// file outside it is not written through (the workspace scan's policy:
// links are followed only inside the tree), unless --fix-through-links
// asks; a link inside the tree is, and stays a link.
func TestFixLinkOutsideTree(t *testing.T) {
	root := t.TempDir()
	tree, outside := filepath.Join(root, "tree"), filepath.Join(root, "outside")
	for _, d := range []string{tree, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(outside, "f.conf")
	if err := os.WriteFile(target, []byte(fixable), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tree, "f.conf")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{tree, link} {
		_, stderr, status := run(t, "", "check", "--no-metadata", "--fix", arg)
		if got, _ := os.ReadFile(target); string(got) != fixable {
			t.Errorf("check --fix %s rewrote %s outside the tree through the link: %q", arg, target, got)
		}
		if status != ExitUsage || !strings.Contains(stderr, "outside") || !strings.Contains(stderr, "--fix-through-links") {
			t.Errorf("check --fix %s: exit %d, stderr %q; want 2 and why", arg, status, stderr)
		}
	}
	if _, stderr, status := run(t, "", "check", "--no-metadata", "--fix", "--fix-through-links", tree); status == ExitUsage {
		t.Fatalf("--fix-through-links: exit 2, %s", stderr)
	}
	if got, _ := os.ReadFile(target); string(got) != strings.Replace(fixable, "sytax", "syntax", 1) {
		t.Errorf("--fix-through-links left %q", got)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a link: %v %v", info.Mode(), err)
	}
	// A link inside the tree is written through, and stays a link.
	inner := filepath.Join(tree, "inner.conf")
	real := filepath.Join(tree, "real.conf.txt")
	if err := os.WriteFile(real, []byte(fixable), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.conf.txt", inner); err != nil {
		t.Fatal(err)
	}
	if _, stderr, status := run(t, "", "check", "--no-metadata", "--fix", inner); status == ExitUsage {
		t.Fatalf("link inside the tree: exit 2, %s", stderr)
	}
	if got, _ := os.ReadFile(real); string(got) != strings.Replace(fixable, "sytax", "syntax", 1) {
		t.Errorf("a link inside the tree: the target is %q", got)
	}
	if info, err := os.Lstat(inner); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the inner link is no longer a link")
	}
}
