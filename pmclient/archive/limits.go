package archive

import "errors"

// ErrLimit is wrapped by the errors of reading that stopped at one of the
// caps below rather than at a fault in the archive.
var ErrLimit = errors.New("archive over a size limit (see docs/limits.md)")

// Caps on what reading an archive may cost. An archive is untrusted input
// (it may come from another host, or be corrupt), and a .meta.xz of a few
// hundred kilobytes can expand to gigabytes, so every quantity a file
// claims is checked against one of these before memory is spent on it.
const (
	// MaxRecordBytes bounds one record's claimed length. libpcp has no
	// such limit; pmlogger's largest records (a RESULT of every instance
	// of every metric) stay far below it. A larger claim is an error
	// naming the file and offset; no option raises it.
	MaxRecordBytes = 256 << 20

	// DefaultMaxMetadataBytes bounds the total size of an archive's .meta
	// records after decompression (all descriptors, names, instance
	// domains, labels and help text, which are all held in memory). Real
	// archives have a few megabytes at most. A .meta.xz is refused as
	// soon as its chunk headers announce more, before it is decompressed;
	// a plain .meta when a record would end past it. The error names the
	// file and the cap; Options.MaxMetadataBytes raises it, and so does
	// $PCP_DERIVE_LSP_MAX_METADATA_MB through choose.Open.
	DefaultMaxMetadataBytes = 256 << 20

	// MaxXZDictBytes bounds the dictionary an .xz block may ask for: the
	// decoder allocates it whole, and a header can ask for 4 GiB. xz's
	// presets use at most 64 MiB (-9, -e). A larger dictionary is an
	// error naming the file; no option raises it.
	MaxXZDictBytes = 64 << 20

	// maxNameLen bounds a metric name in a descriptor record (libpcp's
	// PMNS has no longer names).
	maxNameLen = 4095

	// readChunk is how much of a record is allocated ahead of the bytes
	// that arrive: a record longer than this, from a stream whose size is
	// unknown (.xz), grows as it is read, so a false length in a short
	// file costs what the file holds, not what the length claims.
	readChunk = 1 << 20
)

// Options tune OpenWith. Zero values take the defaults.
type Options struct {
	// MaxMetadataBytes caps the decompressed size of the .meta file
	// (default DefaultMaxMetadataBytes).
	MaxMetadataBytes int64
}
