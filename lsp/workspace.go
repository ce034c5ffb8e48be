package lsp

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// workspace knows the derived-metric config files of the workspace
// folders (parsed from disk) and the open documents (their latest
// analysis), for workspace symbols, references and rename across files.
type workspace struct {
	mu      sync.Mutex
	folders []string
	files   map[uri.URI]*grammar.File
}

// Limits of the scan: a workspace is usually a handful of configs; a home
// directory opened as a workspace must not cost minutes.
const (
	maxScannedFiles = 2000
	maxScannedSize  = 4 << 20
)

func newWorkspace() *workspace { return &workspace{files: map[uri.URI]*grammar.File{}} }

func (w *workspace) addFolder(u uri.URI) {
	if u.Scheme() != "file" {
		return
	}
	w.mu.Lock()
	w.folders = append(w.folders, u.FsPath())
	w.mu.Unlock()
}

// isConfigPath says which files are derived-metric configs: the locations
// PCP loads them from and the ".derived" suffix.
func isConfigPath(path string) bool {
	if strings.HasSuffix(path, ".derived") {
		return true
	}
	return strings.HasSuffix(path, ".conf") && filepath.Base(filepath.Dir(path)) == "derived"
}

// scan parses the config files under the workspace folders.
func (w *workspace) scan(ctx context.Context, log *zap.Logger) {
	w.mu.Lock()
	folders := append([]string(nil), w.folders...)
	w.mu.Unlock()
	n := 0
	for _, root := range folders {
		filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil || ctx.Err() != nil || n >= maxScannedFiles {
				return filepath.SkipDir
			}
			if e.IsDir() {
				if name := e.Name(); path != root && (strings.HasPrefix(name, ".") || name == "node_modules") {
					return filepath.SkipDir
				}
				return nil
			}
			if !isConfigPath(path) {
				return nil
			}
			info, err := e.Info()
			if err != nil || info.Size() > maxScannedSize {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			n++
			u := uri.File(path)
			f := grammar.ParseConfig(path, src, grammar.Options{Version: pcpver.Latest})
			w.mu.Lock()
			if _, open := w.files[u]; !open {
				w.files[u] = f
			}
			w.mu.Unlock()
			return nil
		})
	}
	log.Debug("workspace scanned", zap.Int("configs", n))
}

// update records an open document's latest parse.
func (w *workspace) update(u uri.URI, f *grammar.File) {
	w.mu.Lock()
	w.files[u] = f
	w.mu.Unlock()
}

// snapshot lists the files in a stable order.
func (w *workspace) snapshot() []wsFile {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]wsFile, 0, len(w.files))
	for u, f := range w.files {
		out = append(out, wsFile{u, f})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].uri < out[j].uri })
	return out
}

type wsFile struct {
	uri  uri.URI
	file *grammar.File
}
