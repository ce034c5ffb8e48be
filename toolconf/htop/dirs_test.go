package htop

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestEnvDirs(t *testing.T) {
	e := Env{HtopDir: "/dev/htop", Home: "/home/u", SysconfDir: "/etc/pcp", ShareDir: "/usr/share/pcp"}
	want := []string{"/dev/htop/meters", "/home/u/.config/htop/meters", "/etc/pcp/htop/meters", "/usr/share/pcp/htop/meters"}
	if got := e.Dirs(Meter); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	e.HtopDir, e.XDGConfigHome = "", "/x"
	want = []string{"/x/htop/screens", "/etc/pcp/htop/screens", "/usr/share/pcp/htop/screens"}
	if got := e.Dirs(Screen); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestRunFiles: the user's files come before the system's, names
// starting with "." and directories are left out, a missing directory
// lists nothing.
func TestRunFiles(t *testing.T) {
	root := t.TempDir()
	write := func(rel string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("[m]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("home/.config/htop/columns/mine")
	write("home/.config/htop/columns/.swp")
	write("share/htop/columns/memory")
	write("share/htop/columns/sched")
	write("share/htop/columns/sub/inner")
	e := Env{Home: filepath.Join(root, "home"), SysconfDir: filepath.Join(root, "etc"), ShareDir: filepath.Join(root, "share")}
	got, err := e.RunFiles()
	if err != nil {
		t.Fatal(err)
	}
	cols := got[Column]
	if len(cols) != 3 || cols[0] != filepath.Join(root, "home/.config/htop/columns/mine") {
		t.Fatalf("columns %q", cols)
	}
	rest := slices.Sorted(slices.Values(cols[1:]))
	if !slices.Equal(rest, []string{filepath.Join(root, "share/htop/columns/memory"), filepath.Join(root, "share/htop/columns/sched")}) {
		t.Errorf("system columns %q", rest)
	}
	if len(got[Meter]) != 0 || len(got[Screen]) != 0 {
		t.Errorf("meters %q, screens %q", got[Meter], got[Screen])
	}
}
