package analysis

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestReadTree: a PCP configuration tree (a directory with a derived,
// pmrep, dstat or htop directory in it, as /etc/pcp is) is read for the
// files that hold derived metrics only; any other directory is read
// whole, hidden files included, as libpcp loads a derived config
// directory; a file named on its own is always read.
func TestReadTree(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"derived/cpu.conf":         "m.x = 1\n",
		"derived/.hidden":          "m.h = 1\n",
		"pmrep/pmrep.conf":         "[options]\n",
		"dstat/cpu":                "[cpu]\n",
		"htop/meters/load":         "[load]\n",
		"pmie/rules.pmie":          "x = (count_inst $m > 4);\n",
		"pmlogrewrite/linux.conf":  "metric 60.0.0 { type -> U64 }\n",
		"pmcd/pmcd.conf":           "[access]\n",
		"pmrep.conf":               "[options]\n",
		"labels.conf":              "{\"a\": 1}\n",
		"other/derived/nested.txt": "m.n = 1\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			r, err := filepath.Rel(root, p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	paths := func(inputs []Input) []string {
		var out []string
		for _, in := range inputs {
			out = append(out, in.Path)
		}
		return rel(out)
	}

	inputs, skipped := ReadTree([]string{root}, nil, DefaultMaxSize)
	wantRead := []string{"derived/.hidden", "derived/cpu.conf", "dstat/cpu", "htop/meters/load", "pmrep/pmrep.conf", "pmrep.conf"}
	if got := paths(inputs); !reflect.DeepEqual(got, wantRead) {
		t.Errorf("tree read\n got %q\nwant %q", got, wantRead)
	}
	wantSkipped := []string{"labels.conf", "other/derived/nested.txt", "pmcd/pmcd.conf", "pmie/rules.pmie", "pmlogrewrite/linux.conf"}
	if got := rel(skipped); !reflect.DeepEqual(got, wantSkipped) {
		t.Errorf("tree skipped\n got %q\nwant %q", got, wantSkipped)
	}

	// A directory that is no tree (here the tree's pmie directory) and a
	// file named on its own are read whatever they hold.
	inputs, skipped = ReadTree([]string{filepath.Join(root, "pmie"), filepath.Join(root, "labels.conf")}, nil, DefaultMaxSize)
	if got, want := paths(inputs), []string{"pmie/rules.pmie", "labels.conf"}; !reflect.DeepEqual(got, want) || len(skipped) != 0 {
		t.Errorf("plain directory and file: read %q (want %q), skipped %q", got, want, skipped)
	}
	inputs, _ = ReadTree([]string{filepath.Join(root, "derived")}, nil, DefaultMaxSize)
	if got, want := paths(inputs), []string{"derived/.hidden", "derived/cpu.conf"}; !reflect.DeepEqual(got, want) {
		t.Errorf("derived directory: read %q, want %q (libpcp loads hidden files too)", got, want)
	}
}
