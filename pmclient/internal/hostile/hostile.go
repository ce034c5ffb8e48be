// Package hostile builds hostile and oversized inputs for regression
// tests and fuzz seeds: byte layouts
// that are small on disk or on the wire but that a naive decoder expands
// by orders of magnitude. Only tests import it.
package hostile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/ulikunitz/xz"
)

// typeString is PM_TYPE_STRING, the value-block type used by the attacks.
const typeString = 6

// SharedBlockVsets is one value set (for pmid) of n STRING values that all
// point at a single value block with a payload of size bytes. The bytes
// are laid out to start at byte start of the enclosing PDU, since value
// block offsets count words from the PDU's first byte. A decoder that
// copies the block once per reference allocates n*size bytes.
func SharedBlockVsets(pmid uint32, n, size, start int) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, pmid)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = binary.BigEndian.AppendUint32(b, 1) // valfmt DPTR
	block := start + 12 + 8*n
	for i := 0; i < n; i++ {
		b = binary.BigEndian.AppendUint32(b, uint32(i))
		b = binary.BigEndian.AppendUint32(b, uint32(block/4))
	}
	return append(b, stringBlock(size)...)
}

// OverlappingBlockVsets is one value set of n STRING values pointing at n
// different value blocks that overlap: block i starts at word i of one
// region and claims to run to its end, so every block's payload holds the
// headers of the blocks after it. Sharing repeated offsets does not help
// here; only a bound on the bytes decoded does. A naive decoder
// allocates about n*n*2 bytes.
func OverlappingBlockVsets(pmid uint32, n, start int) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, pmid)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = binary.BigEndian.AppendUint32(b, 1)
	region := start + 12 + 8*n
	for i := 0; i < n; i++ {
		b = binary.BigEndian.AppendUint32(b, uint32(i))
		b = binary.BigEndian.AppendUint32(b, uint32(region/4+i))
	}
	for i := 0; i < n; i++ {
		vlen := uint32(4 * (n - i))
		b = binary.BigEndian.AppendUint32(b, typeString<<24|vlen)
	}
	return b
}

// stringBlock is a STRING value block with a payload of size bytes (the
// last one its NUL), padded to a word.
func stringBlock(size int) []byte {
	b := binary.BigEndian.AppendUint32(nil, typeString<<24|uint32(4+size))
	for i := 0; i < size-1; i++ {
		b = append(b, 'x')
	}
	b = append(b, 0)
	for len(b)%4 != 0 {
		b = append(b, '~')
	}
	return b
}

// ResultPDU is a RESULT PDU (legacy timestamp) around value sets made by
// vsets, which is given the byte offset where they start.
func ResultPDU(numpmid int, vsets func(start int) []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, 0) // length, filled in below
	b = binary.BigEndian.AppendUint32(b, 0x7001)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, 1) // sec
	b = binary.BigEndian.AppendUint32(b, 0) // usec
	b = binary.BigEndian.AppendUint32(b, uint32(numpmid))
	b = append(b, vsets(len(b))...)
	binary.BigEndian.PutUint32(b, uint32(len(b)))
	return b
}

// Record frames an archive record body: length, body, trailer.
func Record(body []byte) []byte {
	n := uint32(len(body) + 8)
	b := binary.BigEndian.AppendUint32(nil, n)
	b = append(b, body...)
	return binary.BigEndian.AppendUint32(b, n)
}

// DataRecordV3 is a version 3 archive data record around value sets made
// by vsets. Value block offsets in archive records count words from 8
// bytes before the record (where the RESULT PDU it came from began), so
// vsets is given that frame's offset of where they start.
func DataRecordV3(numpmid int, vsets func(start int) []byte) []byte {
	var body []byte
	body = append(body, make([]byte, 12)...) // v3 timestamp: sec lo, sec hi, nsec
	body = binary.BigEndian.AppendUint32(body, uint32(numpmid))
	// The vsets begin at record byte 4+len(body), PDU byte 8 more.
	return Record(append(body, vsets(8+4+len(body))...))
}

// LabelV3 is a version 3 archive label record for volume vol (-1 for the
// .meta file).
func LabelV3(vol int32) []byte {
	var body []byte
	body = binary.BigEndian.AppendUint32(body, 0x50052603)
	body = binary.BigEndian.AppendUint32(body, 1) // pid
	body = append(body, make([]byte, 12)...)      // start
	body = binary.BigEndian.AppendUint32(body, uint32(vol))
	body = binary.BigEndian.AppendUint32(body, 0) // features
	body = binary.BigEndian.AppendUint32(body, 0) // reserved
	body = append(body, make([]byte, 3*256)...)   // host, tz, zoneinfo
	return Record(body)
}

// InDomSharedName is a version 3 INDOM record of n instances whose name
// offsets all point at the start of one string of size bytes. With
// terminated false the string has no NUL, so a decoder that reads a
// name "to the NUL or the end" copies size bytes per instance.
func InDomSharedName(indom uint32, n, size int, terminated bool) []byte {
	var body []byte
	body = binary.BigEndian.AppendUint32(body, 5) // INDOM
	body = append(body, make([]byte, 12)...)
	body = binary.BigEndian.AppendUint32(body, indom)
	body = binary.BigEndian.AppendUint32(body, uint32(n))
	for i := 0; i < n; i++ {
		body = binary.BigEndian.AppendUint32(body, uint32(i))
	}
	for i := 0; i < n; i++ {
		body = binary.BigEndian.AppendUint32(body, 0)
	}
	for i := 0; i < size; i++ {
		body = append(body, 'x')
	}
	if terminated {
		body[len(body)-1] = 0
	}
	return Record(body)
}

// InDomSuffixNames is a version 3 INDOM record of n instances whose names
// are the n suffixes of one NUL-terminated string of n bytes: distinct
// offsets, overlapping names, n*n/2 bytes if each is copied.
func InDomSuffixNames(indom uint32, n int) []byte {
	var body []byte
	body = binary.BigEndian.AppendUint32(body, 5)
	body = append(body, make([]byte, 12)...)
	body = binary.BigEndian.AppendUint32(body, indom)
	body = binary.BigEndian.AppendUint32(body, uint32(n))
	for i := 0; i < n; i++ {
		body = binary.BigEndian.AppendUint32(body, uint32(i))
	}
	for i := 0; i < n; i++ {
		body = binary.BigEndian.AppendUint32(body, uint32(i))
	}
	for i := 0; i < n-1; i++ {
		body = append(body, 'x')
	}
	return Record(append(body, 0))
}

// HelpText is a TEXT record (one-line help of PMID ident) of size bytes.
// Repeated, it compresses by a factor of thousands; with a different
// ident each time, a reader keeps every copy.
func HelpText(ident uint32, size int) []byte {
	var body []byte
	body = binary.BigEndian.AppendUint32(body, 4) // TEXT
	body = binary.BigEndian.AppendUint32(body, 1|4)
	body = binary.BigEndian.AppendUint32(body, ident)
	body = append(body, bytes.Repeat([]byte{'h'}, size-1)...)
	return Record(append(body, 0))
}

// LabelPDU is a LABEL PDU answering (ident, typ) with n label sets that
// all address one JSON text of size bytes, each with one label whose name
// and value claim the most of it their 8-bit and 16-bit lengths allow.
func LabelPDU(ident, typ uint32, n, size int) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, 0x7013)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, ident)
	b = binary.BigEndian.AppendUint32(b, typ)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	jsonOff := len(b) + n*24
	nameLen, valueLen := min(size, 255), min(size, 65535)
	for i := 0; i < n; i++ {
		b = binary.BigEndian.AppendUint32(b, uint32(i))
		b = binary.BigEndian.AppendUint32(b, 1)
		b = binary.BigEndian.AppendUint32(b, uint32(jsonOff))
		b = binary.BigEndian.AppendUint32(b, uint32(size))
		b = append(b, 0, 0, byte(nameLen), 0x10, 0, 0, byte(valueLen>>8), byte(valueLen))
	}
	for i := 0; i < size; i++ {
		b = append(b, 'j')
	}
	binary.BigEndian.PutUint32(b, uint32(len(b)))
	return b
}

// DescV3 is a DESC record for pmid of type typ (singular, instant, no
// units) with one name.
func DescV3(pmid uint32, typ int32, name string) []byte {
	var body []byte
	body = binary.BigEndian.AppendUint32(body, 1) // DESC
	body = binary.BigEndian.AppendUint32(body, pmid)
	body = binary.BigEndian.AppendUint32(body, uint32(typ))
	body = binary.BigEndian.AppendUint32(body, 0xffffffff) // PM_INDOM_NULL
	body = binary.BigEndian.AppendUint32(body, 3)          // instant
	body = binary.BigEndian.AppendUint32(body, 0)          // units
	body = binary.BigEndian.AppendUint32(body, 1)
	body = binary.BigEndian.AppendUint32(body, uint32(len(name)))
	return Record(append(body, name...))
}

// XZ compresses b as one .xz stream with a 64 KiB dictionary (small, so
// that fuzzing decompresses many inputs a second).
func XZ(b []byte) []byte {
	var out bytes.Buffer
	w, err := xz.WriterConfig{DictCap: 64 << 10}.NewWriter(&out)
	if err != nil {
		panic(err)
	}
	if _, err := w.Write(b); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return out.Bytes()
}

// XZHugeDictionary is the start of an .xz stream whose first block asks
// for a dictionary of 2^(dictProp/2+12) bytes for even dictProp (40:
// 4 GiB - 1), with
// valid header checksums, followed by a little LZMA2 data: a decoder
// that trusts the header allocates the dictionary before reading any.
func XZHugeDictionary(dictProp byte) []byte {
	crc := func(b []byte) []byte { return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b)) }
	b := append([]byte{0xfd, '7', 'z', 'X', 'Z', 0}, crc([]byte{0, 1})...) // stream flags: CRC32
	// Block header: size (2+1 words), flags (one filter), LZMA2 with its
	// one property byte, padding, CRC32.
	hdr := []byte{2, 0, 0x21, 1, dictProp, 0, 0, 0}
	b = append(b, crc(hdr)...)
	// One uncompressed chunk of 4 bytes, then the end of the LZMA2 data.
	return append(b, 1, 0, 3, 'd', 'a', 't', 'a', 0)
}

// CorpusFile encodes one fuzz input in the format of the files under
// testdata/fuzz/FuzzName/ ("go test fuzz v1"), for []byte, string and
// uint32 arguments.
func CorpusFile(args ...any) []byte {
	out := []byte("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case []byte:
			out = append(out, "[]byte("...)
			out = strconv.AppendQuote(out, string(v))
		case string:
			out = append(out, "string("...)
			out = strconv.AppendQuote(out, v)
		case uint32:
			out = append(out, "uint32("...)
			out = strconv.AppendUint(out, uint64(v), 10)
		default:
			panic("CorpusFile: unsupported argument type")
		}
		out = append(out, ")\n"...)
	}
	return out
}

// WriteCorpus writes seeds of a one-argument []byte fuzz target as
// corpus files testdata/fuzz/<name>/seed-N under dir.
func WriteCorpus(dir, name string, seeds [][]byte) error {
	args := make([][]any, len(seeds))
	for i, s := range seeds {
		args[i] = []any{s}
	}
	return WriteCorpusArgs(dir, name, args)
}

// WriteCorpusArgs writes seeds (each the arguments of one call) as corpus
// files testdata/fuzz/<name>/seed-N under dir, replacing earlier seed
// files of that name.
func WriteCorpusArgs(dir, name string, seeds [][]any) error {
	d := filepath.Join(dir, "testdata", "fuzz", name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	for i, s := range seeds {
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("seed-%d", i)), CorpusFile(s...), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Slack is what decoding costs whatever its input (maps, slices, the
// runtime's own bookkeeping): memory bounds in tests are a multiple of
// the input's size plus this.
const Slack = 64 << 10

// Allocated reports the bytes fn allocates.
func Allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
