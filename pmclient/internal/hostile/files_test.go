package hostile

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestWriteFiles writes the issue #12 attack inputs at their reported
// sizes under $PCP_DERIVE_LSP_HOSTILE_DIR, for measuring peak RSS of the
// built binary (see docs/limits.md). Skipped without it. The help-text
// bomb is written compressed only (text/a.meta.xz, by the xz command),
// never as its 2 GiB expansion.
func TestWriteFiles(t *testing.T) {
	dir := os.Getenv("PCP_DERIVE_LSP_HOSTILE_DIR")
	if dir == "" {
		t.Skip("set PCP_DERIVE_LSP_HOSTILE_DIR to write the attack files")
	}
	const strPMID, u32PMID = 0x07400001, 0x07400002
	meta := append(LabelV3(-1), DescV3(strPMID, 6, "hostile.string")...)
	meta = append(meta, DescV3(u32PMID, 1, "hostile.u32")...)
	vol := func(rec []byte) []byte { return append(LabelV3(0), rec...) }
	// A u32 value set first (the metric a config can use), then the attack.
	u32 := func(b []byte) []byte {
		var v []byte
		for _, w := range []uint32{u32PMID, 1, 0, 0xffffffff, 7} {
			v = binary.BigEndian.AppendUint32(v, w)
		}
		return append(v, b...)
	}
	files := map[string][]byte{
		// A 4 MB RESULT: 520,000 values share one 8 KiB block.
		"result.pdu": ResultPDU(1, func(start int) []byte { return SharedBlockVsets(strPMID, 520000, 8192, start) }),
		// A 1 MB data record: 128,000 values share one 8 KiB block.
		"data/a.meta": meta,
		"data/a.0": vol(DataRecordV3(2, func(start int) []byte {
			return u32(SharedBlockVsets(strPMID, 128000, 8192, start+20))
		})),
		// A 2 MB .meta: 256,000 instance names at one unterminated 8 KiB string.
		"indom/a.meta": append(append([]byte(nil), meta...), InDomSharedName(0x07400003, 256000, 8192, false)...),
		"indom/a.0":    vol(nil),
		"text/a.0":     vol(nil),
		// A 0-byte data volume.
		"empty/a.meta": meta,
		"empty/a.0":    nil,
		"x.conf":       []byte("x = hostile.u32 + 1\n"),
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s bytes", p, strconv.Itoa(len(b)))
	}
	writeTextBomb(t, filepath.Join(dir, "text/a.meta.xz"), meta, u32PMID)
}

// writeTextBomb writes an .meta.xz of 2 GiB of help text for 2048
// metrics (about 400 KB compressed), streaming it through xz.
func writeTextBomb(t *testing.T, path string, meta []byte, pmid uint32) {
	if _, err := exec.LookPath("xz"); err != nil {
		t.Skip("no xz command")
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command("xz", "-6", "-c")
	cmd.Stdout = out
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in.Write(meta)
	for i := 0; i < 2048; i++ {
		if _, err := in.Write(HelpText(pmid+uint32(i), 1<<20)); err != nil {
			t.Fatal(err)
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	info, _ := out.Stat()
	t.Logf("%s: %d bytes (2 GiB expanded)", path, info.Size())
}
