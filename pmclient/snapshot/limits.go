package snapshot

// DefaultMaxBytes bounds the bytes a snapshot is read from. Everything in
// a snapshot is held in memory, and a snapshot may come from a pipe
// (check --metadata /dev/stdin) whose size nothing else bounds. Real
// snapshots, help text and all, are a few megabytes. Past the cap Read
// fails with an error naming the snapshot and the cap; Options.MaxBytes
// raises it, and so does $PCP_DERIVE_LSP_MAX_METADATA_MB through
// choose.Open.
const DefaultMaxBytes = 256 << 20

// Options tune ReadWith. Zero values take the defaults.
type Options struct {
	// MaxBytes caps the snapshot's size (default DefaultMaxBytes).
	MaxBytes int64
}
