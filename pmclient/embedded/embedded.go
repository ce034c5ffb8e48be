// Package embedded is the metadata snapshot compiled into the binary: a
// typical Linux host's PMNS, descriptors, help text and small instance
// domains, so that `check` can do semantic checks where no pmcd runs.
//
// Regenerate default.snapshot.json.gz from a real pmcd (see
// scripts/make-embedded-snapshot.sh); it is data, not code.
package embedded

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"sync"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/snapshot"
)

//go:embed default.snapshot.json.gz
var defaultSnapshot []byte

// Name is how outputs name this source.
const Name = "embedded default metadata"

var load = sync.OnceValues(func() (*snapshot.Source, error) {
	zr, err := gzip.NewReader(bytes.NewReader(defaultSnapshot))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return snapshot.Read(zr, Name)
})

// Source returns the embedded snapshot, decoded once.
func Source() (*snapshot.Source, error) { return load() }
