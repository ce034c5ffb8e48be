// Package archive reads PCP archives (versions 2 and 3): the label, the
// .meta metadata (descriptors, names, instance domains with v3 deltas,
// help text), and the data volumes replayed forward in time order, from
// plain or .xz-compressed files.
package archive

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/ascii"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/safeopen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Label is an archive's label record.
type Label struct {
	Version  int
	PID      int32
	Start    time.Time
	Volume   int32
	Hostname string
	TZ       string
	Zoneinfo string // v3 only
}

// observation is one instance-domain record, full or (v3) delta.
type observation struct {
	at        time.Time
	delta     bool
	instances []pmclient.Instance // a delta: Name "" with ID marks a deletion
	deleted   map[int32]bool
}

// index is pmclient.Index under a name that is not exported, so that
// Archive embeds it (and gets its namespace, descriptor, help text and
// label requests) without exporting the field.
type index = pmclient.Index

// Archive is an opened archive: all its metadata in memory, volumes read
// on demand. It implements pmclient.Source; Fetch replays the next data
// record (see Fetch). Safe for concurrent use.
type Archive struct {
	*index  // the metadata that does not change over time
	base    string
	label   Label
	meta    metadata
	volumes []volumeFile
	opts    Options
	// open opens a file for reading and reports its size when known
	// (-1 when not, as for a decompressed stream); tests replace it to
	// read from memory.
	open func(path string) (io.ReadCloser, int64, error)

	histMu sync.Mutex
	hists  map[pmapi.InDom]*InDomHistory // built on first use (InDomHistory)

	mu       sync.Mutex
	replay   *replayer
	fetched  fetchState
	replayAt time.Time
	end      time.Time
	endRead  bool
}

type volumeFile struct {
	n    int
	path string
}

// metadata is what the .meta file says: the names, descriptors, help text
// and labels (the last record for each level) go to the index; instance
// domains keep every record, since they change over time.
type metadata struct {
	index  pmclient.IndexBuilder
	types  map[pmapi.PMID]pmapi.Type // the descriptors' value types, for decoding records
	indoms map[pmapi.InDom][]observation
}

// Open opens an archive by base name ("DIR/20261122"), by one of its
// volumes ("DIR/20261122.0"), by its .meta or .index file, with or
// without a compression suffix, with the default Options.
func Open(path string) (*Archive, error) { return OpenWith(path, Options{}) }

// OpenWith is Open with options.
func OpenWith(path string, opts Options) (*Archive, error) {
	if opts.MaxMetadataBytes <= 0 {
		opts.MaxMetadataBytes = DefaultMaxMetadataBytes
	}
	base := baseName(path)
	dir, prefix := filepath.Dir(base), filepath.Base(base)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", path, err)
	}
	a := &Archive{base: base, opts: opts, open: openFile}
	metaPath := ""
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".xz")
		if !strings.HasPrefix(name, prefix+".") {
			continue
		}
		suffix := strings.TrimPrefix(name, prefix+".")
		full := filepath.Join(dir, e.Name())
		switch {
		case suffix == "meta":
			metaPath = full
		case ascii.IsDigits(suffix):
			n, _ := strconv.Atoi(suffix)
			a.volumes = append(a.volumes, volumeFile{n, full})
			// No valid volume, compressed or not, is empty: say so now
			// rather than replay it as an archive with no records.
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.Size() == 0 {
				return nil, fmt.Errorf("archive %s: %s is an empty data volume (0 bytes, no label)", path, full)
			}
		}
	}
	if metaPath == "" && len(a.volumes) == 0 {
		return nil, fmt.Errorf("archive %s: no such archive (no %s.meta, no %s.0 in %s)", path, prefix, prefix, dir)
	}
	if metaPath == "" {
		return nil, fmt.Errorf("archive %s: no %s.meta file", path, prefix)
	}
	if len(a.volumes) == 0 {
		return nil, fmt.Errorf("archive %s: no data volume (%s.0, ...)", path, prefix)
	}
	sort.Slice(a.volumes, func(i, j int) bool { return a.volumes[i].n < a.volumes[j].n })
	if err := a.loadMeta(metaPath); err != nil {
		return nil, err
	}
	return a, nil
}

// loadMeta reads the label and metadata from the .meta file at path.
func (a *Archive) loadMeta(path string) error {
	f, size, err := a.openDecoded(path, a.opts.MaxMetadataBytes)
	if err != nil {
		return fmt.Errorf("archive metadata: %w", err)
	}
	defer f.Close()
	return a.readMeta(f, size, path)
}

// baseName strips compression, .meta, .index and volume suffixes. A
// path that is itself a base name is kept whole: pmlogger names
// archives YYYYMMDD.HH.MM, whose ".MM" looks like a volume number.
func baseName(path string) string {
	for _, meta := range []string{".meta", ".meta.xz"} {
		if _, err := os.Stat(path + meta); err == nil {
			return path
		}
	}
	p := strings.TrimSuffix(path, ".xz")
	if i := strings.LastIndexByte(p, '.'); i > 0 {
		suffix := p[i+1:]
		if suffix == "meta" || suffix == "index" || ascii.IsDigits(suffix) {
			return p[:i]
		}
	}
	return p
}

// openFile opens a file and returns its size when it is a regular file
// (-1 otherwise).
func openFile(path string) (io.ReadCloser, int64, error) {
	f, err := safeopen.Open(path, safeopen.NoLimit)
	if err != nil {
		return nil, 0, err
	}
	return f, f.Stat().Size(), nil
}

// openDecoded opens path with a.open, decompressing it when its name ends
// in .xz, to at most maxExpanded bytes (0: no limit). The size is -1 for
// a decompressed stream, whose size is known only at its end.
func (a *Archive) openDecoded(path string, maxExpanded int64) (io.ReadCloser, int64, error) {
	f, size, err := a.open(path)
	if err != nil || !strings.HasSuffix(path, ".xz") {
		return f, size, err
	}
	guarded := guardXZ(path, f, MaxXZDictBytes, maxExpanded)
	closeBoth := func() error {
		guarded.Close() // stops the guard's goroutine
		return f.Close()
	}
	// The decoder's default dictionary is 8 MiB whatever the file asks
	// for; the smallest lets the file's own (checked) size decide.
	zr, err := xz.ReaderConfig{DictCap: lzma.MinDictCap}.NewReader(guarded)
	if err != nil {
		closeBoth()
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return readCloser{zr, closeBoth}, -1, nil
}

// readCloser is a reader with its own Close.
type readCloser struct {
	io.Reader
	close func() error
}

func (rc readCloser) Close() error { return rc.close() }

// recordReader reads length-framed records and checks the trailer.
type recordReader struct {
	r    *bufio.Reader
	path string
	off  int64
	// size is the file's size, or -1 when unknown: a record claiming more
	// than is left is refused before anything is allocated for it.
	size int64
	// total, when positive, caps the offset a record may end at: the
	// whole file's budget. overTotal is the error for a record past it.
	total     int64
	overTotal func() error
	hdr       [4]byte // read's, here so that it is not allocated per record
}

// next returns a record's bytes including both length words; io.EOF at a
// clean end.
func (rr *recordReader) next() ([]byte, error) {
	buf, err := rr.read(nil, 0)
	return buf, err
}

// read reads the next record into buf[front:], growing buf when it is too
// small, and returns buf[:front+length]: the record after front bytes the
// caller may use. io.EOF at a clean end.
func (rr *recordReader) read(buf []byte, front int) ([]byte, error) {
	hdr := rr.hdr[:]
	if _, err := io.ReadFull(rr.r, hdr); err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, rr.failure(err, "truncated record header")
	}
	n := int64(binary.BigEndian.Uint32(hdr))
	if n < 8 || n > MaxRecordBytes {
		return nil, fmt.Errorf("%s at byte %d: record length %d (the cap is archive.MaxRecordBytes, %d): %w", rr.path, rr.off, n, MaxRecordBytes, errCorrupt)
	}
	if rr.total > 0 && rr.off+n > rr.total {
		return nil, rr.overTotal()
	}
	if rr.size >= 0 && rr.off+n > rr.size {
		return nil, fmt.Errorf("%s at byte %d: record of %d bytes is truncated: the file has %d bytes left: %w", rr.path, rr.off, n, rr.size-rr.off, errCorrupt)
	}
	buf, err := readGrowing(rr.r, buf, front, hdr, int(n))
	if err != nil {
		return nil, rr.failure(err, fmt.Sprintf("record of %d bytes is truncated", n))
	}
	rec := buf[front:]
	if trailer := binary.BigEndian.Uint32(rec[n-4:]); int64(trailer) != n {
		return nil, fmt.Errorf("%s at byte %d: record length %d but trailer %d: %w", rr.path, rr.off, n, trailer, errCorrupt)
	}
	rr.off += n
	return buf, nil
}

// failure is the error for a record that could not be read: the file
// ended (what), or the decompressor stopped (its error, which names the
// file and says why: a cap, or corrupt compressed data).
func (rr *recordReader) failure(err error, what string) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%s at byte %d: %s: %w", rr.path, rr.off, what, errCorrupt)
	}
	if errors.Is(err, ErrLimit) || errors.Is(err, errCorrupt) {
		return err
	}
	return fmt.Errorf("%s at byte %d: %w", rr.path, rr.off, err)
}

// readGrowing reads a record of n bytes whose first bytes (hdr) are read
// already into buf[front:], reusing buf when it is big enough. Beyond
// readChunk, memory is allocated only as bytes arrive (doubling), so a
// short stream claiming a long record costs about what it holds.
func readGrowing(r io.Reader, buf []byte, front int, hdr []byte, n int) ([]byte, error) {
	size := front + n
	if cap(buf) >= size || n <= readChunk {
		if cap(buf) < size {
			buf = make([]byte, size)
		}
		buf = buf[:size]
		copy(buf[front:], hdr)
		_, err := io.ReadFull(r, buf[front+len(hdr):])
		return buf, err
	}
	buf = append(buf[:front], hdr...)
	for len(buf) < size {
		next := min(size, max(2*len(buf), front+readChunk))
		have := len(buf)
		buf = append(buf, make([]byte, next-have)...)
		if _, err := io.ReadFull(r, buf[have:]); err != nil {
			return nil, err
		}
	}
	return buf, nil
}

var errCorrupt = errors.New("corrupt archive record")

// cursor reads fields of one record with bounds checks.
type cursor struct {
	b   []byte
	off int
	err error
}

func (c *cursor) need(n int) bool {
	if c.err != nil {
		return false
	}
	if n < 0 || c.off+n > len(c.b) {
		c.err = fmt.Errorf("%w: field at %d overruns a %d-byte record", errCorrupt, c.off, len(c.b))
		return false
	}
	return true
}

func (c *cursor) u32() uint32 {
	if !c.need(4) {
		return 0
	}
	v := binary.BigEndian.Uint32(c.b[c.off:])
	c.off += 4
	return v
}

func (c *cursor) bytes(n int) []byte {
	if !c.need(n) {
		return nil
	}
	v := c.b[c.off : c.off+n]
	c.off += n
	return v
}

// stamp reads a v2 (sec, usec) or v3 (split 64-bit sec, nsec) timestamp.
func (c *cursor) stamp(version int) time.Time {
	if version == 2 {
		sec := int32(c.u32())
		usec := c.u32()
		return time.Unix(int64(sec), int64(usec)*1000)
	}
	lo := c.u32()
	hi := c.u32()
	nsec := c.u32()
	return time.Unix(int64(uint64(hi)<<32|uint64(lo)), int64(nsec))
}

func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// parseLabel decodes a label record.
func parseLabel(rec []byte, path string) (Label, error) {
	c := &cursor{b: rec, off: 4}
	magic := c.u32()
	if magic&0xffffff00 != 0x50052600 {
		return Label{}, fmt.Errorf("%s: not a PCP archive (magic %#x)", path, magic)
	}
	l := Label{Version: int(magic & 0xff), PID: int32(c.u32())}
	switch l.Version {
	case 2:
		l.Start = c.stamp(2)
		l.Volume = int32(c.u32())
		l.Hostname = cstring(c.bytes(64))
		l.TZ = cstring(c.bytes(40))
	case 3:
		l.Start = c.stamp(3)
		l.Volume = int32(c.u32())
		if features := c.u32(); features&^0x80000000 != 0 {
			return l, fmt.Errorf("%s: archive feature bits %#x not supported", path, features)
		}
		c.u32()
		l.Hostname = cstring(c.bytes(256))
		l.TZ = cstring(c.bytes(256))
		l.Zoneinfo = cstring(c.bytes(256))
	default:
		return l, fmt.Errorf("%s: archive version %d not supported (only 2 and 3)", path, l.Version)
	}
	if c.err != nil {
		return l, fmt.Errorf("%s: label: %w", path, c.err)
	}
	return l, nil
}

// readMeta reads the .meta file from r (size bytes, -1 if unknown) into
// a.meta, within a.opts.MaxMetadataBytes.
func (a *Archive) readMeta(r io.Reader, size int64, path string) error {
	// All metadata stays in memory: cap the total, not only each record.
	rr := &recordReader{r: bufio.NewReaderSize(r, 64<<10), path: path, size: size, total: a.opts.MaxMetadataBytes,
		overTotal: func() error {
			return fmt.Errorf("%s: metadata exceeds %d bytes, the cap on an archive's metadata (raise it with archive.Options.MaxMetadataBytes or $PCP_DERIVE_LSP_MAX_METADATA_MB): %w", path, a.opts.MaxMetadataBytes, ErrLimit)
		}}
	rec, err := rr.next()
	if err == io.EOF {
		return fmt.Errorf("%s: empty metadata file (no label)", path)
	}
	if err != nil {
		return fmt.Errorf("%s: reading the label: %w", path, err)
	}
	if a.label, err = parseLabel(rec, path); err != nil {
		return err
	}
	a.meta = newMetadata()
	// add copies what it keeps, so one buffer serves every record.
	for buf := rec; ; {
		rec, err := rr.read(buf[:0], 0)
		if err == io.EOF {
			a.index = a.meta.index.Build()
			return nil
		}
		if err != nil {
			return err
		}
		buf = rec
		if err := a.meta.add(rec, a.label.Version); err != nil {
			return fmt.Errorf("%s at byte %d: %w", path, rr.off-int64(len(rec)), err)
		}
	}
}

// newMetadata is empty metadata, ready for add.
func newMetadata() metadata {
	return metadata{types: map[pmapi.PMID]pmapi.Type{}, indoms: map[pmapi.InDom][]observation{}}
}

// add decodes one .meta record.
func (m *metadata) add(rec []byte, version int) error {
	c := &cursor{b: rec[:len(rec)-4], off: 4}
	switch typ := c.u32(); typ {
	case 1: // DESC
		return m.addDesc(c)
	case 2, 5, 6: // INDOM_V2, INDOM, INDOM_DELTA
		if typ == 2 {
			version = 2
		}
		return m.addInDom(c, version, typ == 6)
	case 3, 7: // LABEL_V2, LABEL
		if typ == 3 {
			version = 2
		}
		return m.addLabels(c, version)
	case 4: // TEXT
		return m.addText(c)
	default:
		return fmt.Errorf("%w: metadata record type %d", errCorrupt, typ)
	}
}

// addDesc reads a descriptor and the metric's names.
func (m *metadata) addDesc(c *cursor) error {
	d := pmapi.Desc{PMID: pmapi.PMID(c.u32()), Type: pmapi.Type(int32(c.u32())), InDom: pmapi.InDom(c.u32()), Sem: pmapi.Sem(int32(c.u32()))}
	d.Units = pmapi.UnitsFromWire(c.u32())
	m.index.AddDesc(d)
	m.types[d.PMID] = d.Type
	if c.off == len(c.b) {
		return c.err // no names
	}
	n := int(c.u32())
	if n < 0 || n*4 > len(c.b) {
		return fmt.Errorf("%w: %d names", errCorrupt, n)
	}
	for i := 0; i < n && c.err == nil; i++ {
		l := int(c.u32())
		if l < 0 || l > maxNameLen {
			return fmt.Errorf("%w: name length %d", errCorrupt, l)
		}
		name := string(c.bytes(l))
		if c.err == nil {
			m.index.AddName(name, d.PMID)
		}
	}
	return c.err
}

// addInDom reads one observation of an instance domain: all of its
// instances, or (delta) those added and deleted since the last one.
// version is the stamp's: 2 for the V2 record, else the archive's.
func (m *metadata) addInDom(c *cursor, version int, delta bool) error {
	at := c.stamp(version)
	indom := pmapi.InDom(c.u32())
	n := int(int32(c.u32()))
	if n <= 0 {
		return c.err // libpcp ignores empty records
	}
	if n*8 > len(c.b) {
		return fmt.Errorf("%w: %d instances", errCorrupt, n)
	}
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(c.u32())
	}
	offs := make([]int32, n)
	for i := range offs {
		offs[i] = int32(c.u32())
	}
	if c.err != nil {
		return c.err
	}
	// Names are substrings of one copy of the string table: however
	// many offsets point into it, the names cost its size once.
	table := string(c.b[c.off:])
	obs := observation{at: at, delta: delta}
	for i, id := range ids {
		if offs[i] < 0 {
			if !obs.delta {
				return fmt.Errorf("%w: instance %d without a name in a full instance domain", errCorrupt, id)
			}
			if obs.deleted == nil {
				obs.deleted = map[int32]bool{}
			}
			obs.deleted[id] = true
			continue
		}
		if int(offs[i]) >= len(table) {
			return fmt.Errorf("%w: instance name offset %d outside the %d-byte string table", errCorrupt, offs[i], len(table))
		}
		name := table[offs[i]:]
		end := strings.IndexByte(name, 0)
		if end < 0 {
			return fmt.Errorf("%w: instance %d: name at offset %d of the string table has no NUL before the record ends", errCorrupt, id, offs[i])
		}
		obs.instances = append(obs.instances, pmclient.Instance{ID: id, Name: name[:end]})
	}
	m.indoms[indom] = append(m.indoms[indom], obs)
	return nil
}

// addLabels reads the label sets of one label type and identifier.
// version is the stamp's: 2 for the V2 record, else the archive's.
func (m *metadata) addLabels(c *cursor, version int) error {
	c.stamp(version) // the index keeps the sets in force at the end
	typ, ident := pmclient.LabelType(c.u32()), c.u32()
	var sets []pmclient.LabelSet
	n := int(int32(c.u32()))
	if c.err != nil {
		return c.err
	}
	if n < 0 || n*12 > len(c.b)-c.off {
		return fmt.Errorf("%w: %d label sets in a %d-byte record", errCorrupt, n, len(c.b))
	}
	for i := 0; i < n; i++ {
		inst := int32(c.u32())
		json := c.bytes(int(int32(c.u32())))
		nlabels := int(int32(c.u32()))
		if c.err == nil && (nlabels < 0 || nlabels*8 > len(c.b)-c.off) {
			return fmt.Errorf("%w: %d labels in a %d-byte record", errCorrupt, nlabels, len(c.b))
		}
		entries := c.bytes(nlabels * 8)
		if c.err != nil {
			return c.err
		}
		set, err := pmclient.ParseLabelSet(inst, string(json), entries)
		if err != nil {
			return fmt.Errorf("%w: label set %d: %v", errCorrupt, i, err)
		}
		sets = append(sets, set)
	}
	m.index.AddLabels(typ, ident, sets)
	return nil
}

// addText reads a help text of a metric or an instance domain.
func (m *metadata) addText(c *cursor) error {
	tt := c.u32()
	ident := c.u32()
	if c.err != nil {
		return c.err
	}
	// PM_TEXT_ONELINE (1) or PM_TEXT_HELP (2), of a metric
	// (PM_TEXT_PMID, 4) or an instance domain (PM_TEXT_INDOM, 8):
	// other combinations are nothing a lookup asks for.
	target := pmclient.HelpTarget{PMID: pmapi.PMID(ident), InDom: pmapi.InDomNull}
	switch tt &^ 3 {
	case 4:
	case 8:
		if pmapi.InDom(ident) == pmapi.InDomNull {
			return nil
		}
		target = pmclient.HelpTarget{InDom: pmapi.InDom(ident)}
	default:
		return nil
	}
	if kind := tt & 3; kind == 1 || kind == 2 {
		m.index.AddHelp(target, kind == 2, cstring(c.b[c.off:]))
	}
	return nil
}

// Label returns the archive label.
func (a *Archive) Label() Label { return a.label }

var _ pmclient.Source = (*Archive)(nil)

// Describe implements pmclient.Source.
func (a *Archive) Describe() string { return "archive " + a.base }
