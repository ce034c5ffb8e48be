package htop

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// fuzzSeeds are small hand-written files, one or two of each trap.
var fuzzSeeds = []string{
	"[load]\ncaption = Load\nl.metric = kernel.all.load\nl.color = red\n",
	"[t]\none.metric = a == 1 ? 2 : 3\ntwo.metric = =x\n",
	"[rss]\nheading = RSS\nwidth = -8\nmetric = proc.psinfo.rss\nformat = process\n[rss]\nmetric = y\n",
	"[s]\nheading = S\npid.metric = proc.psinfo.pid\npid.width = 7\n[abcdefghijklmnopqrstuvwxyz]\nabcdefgh.metric = x\n",
	"caption = x\n[bad-name]\n[open\n[]\nx.metric = 1\n",
	"[m]\na.metric = x\x00zz\nb.metric = @\n",
	"[m]\r\na.metric = x\r\n",
	"\x00\x01\x02[\xff]\n=\n==\n[=]\n",
}

// FuzzRead: any bytes read as any kind for any release give expressions
// that are exactly their file bytes on one line, and problems inside the
// file; reading is deterministic and never panics.
func FuzzRead(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(0), uint8(0))
	}
	// The shipped files, when this machine has them.
	for _, dir := range []string{"/etc/pcp/htop", "/usr/share/pcp/htop"} {
		for _, k := range []Kind{Meter, Column, Screen} {
			paths, _ := filepath.Glob(filepath.Join(dir, k.Dir(), "*"))
			for _, p := range paths {
				if src, err := os.ReadFile(p); err == nil {
					f.Add(src, uint8(k-1), uint8(3))
				}
			}
		}
	}
	versions := []pcpver.Version{pcpver.V6_0_3, pcpver.V6_3_8, pcpver.V7_2_2, pcpver.V5_2_6}
	f.Fuzz(func(t *testing.T, src []byte, kind, release uint8) {
		k := Kind(kind%3) + 1
		v := versions[int(release)%len(versions)]
		file := Read(v, k, "/f/"+k.Dir()+"/x", src)
		checkFile(t, file)
		again := Read(v, k, "/f/"+k.Dir()+"/x", src)
		if summary(again) != summary(file) {
			t.Fatalf("two reads differ:\n%s\n%s", summary(file), summary(again))
		}
	})
}

// checkFile checks what any read must give.
func checkFile(t *testing.T, f *File) {
	t.Helper()
	for _, e := range f.Exprs {
		end := e.Offset(len(e.Text))
		if e.Off < 0 || end > len(f.Src) || string(f.Src[e.Off:end]) != e.Text {
			t.Fatalf("%s: text %q is not file bytes [%d, %d)", e.Name, e.Text, e.Off, end)
		}
		if bytes.ContainsAny([]byte(e.Text), "\n\x00") {
			t.Fatalf("%s: text %q holds a newline or NUL", e.Name, e.Text)
		}
		if l, _ := f.Position(end); l != e.Line {
			t.Fatalf("%s: text ends on line %d, starts on %d", e.Name, l, e.Line)
		}
		if e.KeyOff > e.KeyEnd || e.KeyEnd > e.Off || e.HtopLine < 1 || e.HtopLine > e.Line {
			t.Fatalf("%s: key [%d, %d), off %d, lines %d/%d", e.Name, e.KeyOff, e.KeyEnd, e.Off, e.HtopLine, e.Line)
		}
	}
	for _, p := range f.Problems {
		if p.Off < 0 || p.Off > p.End || p.End > len(f.Src) || p.Code == "" || p.Message == "" {
			t.Fatalf("problem %+v", p)
		}
		if l, _ := f.Position(p.Off); l != p.Line {
			t.Fatalf("%s at %d: line %d, Position says %d", p.Code, p.Off, p.Line, l)
		}
	}
}
