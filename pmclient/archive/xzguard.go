package archive

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The xz decoder allocates whatever dictionary each block's header asks
// for (up to 4 GiB), and nothing in an .xz file bounds how much it
// expands to: a few hundred kilobytes can decompress to gigabytes. So the
// compressed bytes pass through a guard first, which reads the container
// (stream headers, block headers, LZMA2 chunk headers, indexes, footers)
// and passes on only bytes it has checked: a block whose dictionary is
// over the cap, or a chunk that takes the expanded total past its limit,
// stops the stream before the decoder sees it. Chunk headers state their
// unpacked sizes, so the total is known before anything is decompressed.

// xzMagic opens every xz stream; xzFooterMagic ends its footer.
var (
	xzMagic       = []byte{0xfd, '7', 'z', 'X', 'Z', 0}
	xzFooterMagic = []byte{'Y', 'Z'}
)

// lzma2FilterID is the filter the dictionary size belongs to.
const lzma2FilterID = 0x21

// xzGuard checks an xz file as it copies it to w.
type xzGuard struct {
	path     string
	in       *bufio.Reader
	w        io.Writer
	off      int64 // compressed bytes passed on
	maxDict  int64
	maxTotal int64 // expanded bytes allowed; 0 for no limit
	total    int64 // expanded bytes announced so far
	buf      []byte
}

// guardXZ returns a reader of the compressed bytes of r that fails, with
// an error wrapping ErrLimit, before a block with a dictionary over
// maxDict or a chunk that expands the file past maxTotal bytes (0: no
// limit), and with errCorrupt where the container is malformed. Close the
// reader to stop the goroutine that feeds it.
func guardXZ(path string, r io.Reader, maxDict, maxTotal int64) io.ReadCloser {
	pr, pw := io.Pipe()
	g := &xzGuard{path: path, in: bufio.NewReaderSize(r, 64<<10), w: pw, maxDict: maxDict, maxTotal: maxTotal}
	go func() { pw.CloseWithError(g.run()) }()
	return pr
}

// take reads n bytes, passes them on and returns them.
func (g *xzGuard) take(n int) ([]byte, error) {
	b, err := g.read(n)
	if err != nil {
		return nil, err
	}
	return b, g.pass(b)
}

// read reads n bytes without passing them on: they are checked first.
func (g *xzGuard) read(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(g.in, b); err != nil {
		return nil, g.truncated(err)
	}
	return b, nil
}

// pass hands checked bytes to the decoder.
func (g *xzGuard) pass(b []byte) error {
	if _, err := g.w.Write(b); err != nil {
		return err // the reader was closed: stop quietly
	}
	g.off += int64(len(b))
	return nil
}

// skip passes on n bytes without keeping them (chunk payloads).
func (g *xzGuard) skip(n int64) error {
	if g.buf == nil {
		g.buf = make([]byte, 32<<10)
	}
	m, err := io.CopyBuffer(g.w, io.LimitReader(g.in, n), g.buf)
	g.off += m
	if err != nil {
		return err
	}
	if m < n {
		return g.truncated(io.ErrUnexpectedEOF)
	}
	return nil
}

func (g *xzGuard) truncated(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%s: xz container truncated at compressed byte %d: %w", g.path, g.off, errCorrupt)
}

func (g *xzGuard) corrupt(format string, args ...any) error {
	return fmt.Errorf("%s: xz container at compressed byte %d: %s: %w", g.path, g.off, fmt.Sprintf(format, args...), errCorrupt)
}

// run walks the file: streams, each of blocks then an index and a footer,
// separated by zero padding.
func (g *xzGuard) run() error {
	for streams := 0; ; streams++ {
		if streams > 0 {
			more, err := g.padding()
			if err != nil || !more {
				return err
			}
		}
		if err := g.stream(); err != nil {
			return err
		}
	}
}

// padding passes on stream padding (zero words) and reports whether
// another stream follows.
func (g *xzGuard) padding() (bool, error) {
	for {
		b, err := g.in.Peek(4)
		if len(b) == 0 && err == io.EOF {
			return false, nil
		}
		if len(b) < 4 {
			return false, g.corrupt("%d bytes after the last stream", len(b))
		}
		if !bytes.Equal(b, []byte{0, 0, 0, 0}) {
			return true, nil
		}
		if _, err := g.take(4); err != nil {
			return false, err
		}
	}
}

// stream checks one stream: its header, blocks, index and footer.
func (g *xzGuard) stream() error {
	hdr, err := g.take(12)
	if err != nil {
		return err
	}
	if !bytes.Equal(hdr[:6], xzMagic) {
		return g.corrupt("no xz stream header")
	}
	checkSize, err := xzCheckSize(hdr[7])
	if err != nil {
		return g.corrupt("%v", err)
	}
	for {
		b, err := g.in.Peek(1)
		if err != nil {
			return g.truncated(err)
		}
		if b[0] == 0 { // the index indicator
			return g.indexAndFooter()
		}
		if err := g.block(checkSize); err != nil {
			return err
		}
	}
}

// xzCheckSize is the size of a block's check for the stream flags' check
// type: none, CRC32, CRC64, SHA-256, or a reserved size.
func xzCheckSize(flags byte) (int, error) {
	switch t := flags & 0x0f; {
	case t == 0:
		return 0, nil
	case t <= 3:
		return 4, nil
	case t <= 6:
		return 8, nil
	case t <= 9:
		return 16, nil
	case t <= 12:
		return 32, nil
	default:
		return 64, nil
	}
}

// block checks a block header's dictionary size, then its LZMA2 chunks'
// sizes, and passes on its padding and check.
func (g *xzGuard) block(checkSize int) error {
	start := g.off
	b, _ := g.in.Peek(1)
	hdr, err := g.read((int(b[0]) + 1) * 4)
	if err != nil {
		return err
	}
	dict, err := lzma2Dict(hdr)
	if err != nil {
		return g.corrupt("block header: %v", err)
	}
	if dict > g.maxDict {
		return fmt.Errorf("%s: xz block at compressed byte %d needs a %d MiB dictionary, over the %d MiB cap (archive.MaxXZDictBytes): %w",
			g.path, start, dict>>20, g.maxDict>>20, ErrLimit)
	}
	if err := g.pass(hdr); err != nil {
		return err
	}
	if err := g.chunks(); err != nil {
		return err
	}
	if pad := (4 - (g.off-start)%4) % 4; pad > 0 {
		if _, err := g.take(int(pad)); err != nil {
			return err
		}
	}
	_, err = g.take(checkSize)
	return err
}

// lzma2Dict reads a block header's filter flags and returns the LZMA2
// filter's dictionary size.
func lzma2Dict(hdr []byte) (int64, error) {
	r := bytes.NewReader(hdr[2 : len(hdr)-4]) // after size and flags, before the CRC32
	flags := hdr[1]
	if flags&0x40 != 0 { // compressed size
		if _, err := binary.ReadUvarint(r); err != nil {
			return 0, err
		}
	}
	if flags&0x80 != 0 { // uncompressed size
		if _, err := binary.ReadUvarint(r); err != nil {
			return 0, err
		}
	}
	filters := int(flags&3) + 1
	for i := 0; i < filters; i++ {
		id, err := binary.ReadUvarint(r)
		if err != nil {
			return 0, err
		}
		n, err := binary.ReadUvarint(r)
		if err != nil || n > uint64(r.Len()) {
			return 0, errors.New("filter properties overrun the header")
		}
		props := make([]byte, n)
		r.Read(props)
		if id != lzma2FilterID {
			continue
		}
		if n != 1 || props[0] > 40 {
			return 0, errors.New("bad LZMA2 properties")
		}
		if props[0] == 40 {
			return 1<<32 - 1, nil
		}
		return int64(2|props[0]&1) << (props[0]/2 + 11), nil
	}
	return 0, errors.New("no LZMA2 filter")
}

// chunks passes on a block's LZMA2 chunks, adding each one's unpacked
// size to the total before passing its payload.
func (g *xzGuard) chunks() error {
	for {
		ctl, err := g.read(1)
		if err != nil {
			return err
		}
		var unpacked, packed int64
		var hdr []byte // the chunk's header, passed on once checked
		switch c := ctl[0]; {
		case c == 0:
			return g.pass(ctl)
		case c == 1 || c == 2: // uncompressed chunk
			h, err := g.read(2)
			if err != nil {
				return err
			}
			hdr = append(ctl, h...)
			unpacked = int64(binary.BigEndian.Uint16(h)) + 1
			packed = unpacked
		case c >= 0x80: // LZMA chunk, with new properties from 0xc0
			n := 4
			if c >= 0xc0 {
				n = 5
			}
			h, err := g.read(n)
			if err != nil {
				return err
			}
			hdr = append(ctl, h...)
			unpacked = int64(c&0x1f)<<16 + int64(binary.BigEndian.Uint16(h)) + 1
			packed = int64(binary.BigEndian.Uint16(h[2:])) + 1
		default:
			return g.corrupt("LZMA2 control byte %#x", c)
		}
		g.total += unpacked
		if g.maxTotal > 0 && g.total > g.maxTotal {
			return fmt.Errorf("%s: decompresses to more than %d bytes, the cap on an archive's metadata (raise it with archive.Options.MaxMetadataBytes or $PCP_DERIVE_LSP_MAX_METADATA_MB): %w",
				g.path, g.maxTotal, ErrLimit)
		}
		if err := g.pass(hdr); err != nil {
			return err
		}
		if err := g.skip(packed); err != nil {
			return err
		}
	}
}

// indexAndFooter passes on a stream's index (indicator, records, padding,
// CRC32) and its footer.
func (g *xzGuard) indexAndFooter() error {
	start := g.off
	if _, err := g.take(1); err != nil {
		return err
	}
	n, err := g.uvarint()
	if err != nil {
		return err
	}
	for i := uint64(0); i < 2*n; i++ {
		if _, err := g.uvarint(); err != nil {
			return err
		}
	}
	if pad := (4 - (g.off-start)%4) % 4; pad > 0 {
		if _, err := g.take(int(pad)); err != nil {
			return err
		}
	}
	if _, err := g.take(4); err != nil {
		return err
	}
	footer, err := g.take(12)
	if err != nil {
		return err
	}
	if !bytes.Equal(footer[10:], xzFooterMagic) {
		return g.corrupt("no xz stream footer")
	}
	return nil
}

// uvarint reads and passes on one multibyte integer (at most 9 bytes).
func (g *xzGuard) uvarint() (uint64, error) {
	var v uint64
	for i := 0; i < 9; i++ {
		b, err := g.take(1)
		if err != nil {
			return 0, err
		}
		v |= uint64(b[0]&0x7f) << (7 * i)
		if b[0]&0x80 == 0 {
			return v, nil
		}
	}
	return 0, g.corrupt("integer longer than 9 bytes")
}
