package lsp

import (
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/analysis"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// maxDerivedFiles bounds the derived option files one definition request
// reads.
const maxDerivedFiles = 32

// derivedFileDefinitions are the definitions of name in the derived
// config files a pmrep file's derived options name, read from disk when
// asked (they may lie outside the workspace, as /etc/pcp/derived does).
// A relative path is pmrep's working directory's, which the server cannot
// know: only absolute ones are read.
func derivedFileDefinitions(d *snapshot, name string) protocol.LocationSlice {
	if len(d.res.Files) == 0 || d.res.Files[0].ToolDoc() == nil {
		return nil
	}
	var locs protocol.LocationSlice
	for i, path := range d.res.Files[0].ToolDoc().DerivedFiles {
		if i == maxDerivedFiles {
			break
		}
		if !filepath.IsAbs(path) {
			continue
		}
		for _, in := range analysis.ReadInputs([]string{path}, nil, analysis.DefaultMaxSize) {
			if in.Err != nil || in.Problem != "" {
				continue
			}
			f := grammar.ParseConfig(in.Path, in.Src, grammar.Options{Version: d.release()})
			for _, def := range f.Definitions.All() {
				if def.Name == name {
					locs = append(locs, protocol.Location{URI: uri.File(in.Path), Range: toRange(f, def.NameRange)})
				}
			}
		}
	}
	return locs
}
