package lsp

import (
	"context"
	"fmt"
	"io"
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
//
// Scanned files are kept as a fileIndex, not as their parse (see
// fileIndex for why).
type workspace struct {
	mu      sync.Mutex
	folders []string
	files   map[uri.URI]*fileIndex
	// pending are open documents' latest parses not indexed yet: an edit
	// only records its parse, and the index is built when a workspace
	// request needs it (a keystroke must not cost a pass over the file).
	pending map[uri.URI]*grammar.File
	limits  scanLimits
}

// Limits of the scan: a workspace is usually a handful of configs; a home
// directory opened as a workspace must not cost minutes or gigabytes, and
// nothing in it may make the server read without end (a link to
// /dev/zero) or block (a FIFO).
const (
	// maxScannedFiles is the most config files read from all folders.
	maxScannedFiles = 2000
	// maxScannedSize is the largest config file read; a larger one is
	// skipped with a warning (open it to have it analysed).
	maxScannedSize = 4 << 20
	// maxScannedTotal bounds the bytes read from all folders together;
	// files past it are skipped with a warning.
	maxScannedTotal = 256 << 20
)

// scanLimits are the scan's bounds (the constants above; tests lower them).
type scanLimits struct {
	files       int
	size, total int64
}

func defaultScanLimits() scanLimits {
	return scanLimits{files: maxScannedFiles, size: maxScannedSize, total: maxScannedTotal}
}

func newWorkspace() *workspace {
	return &workspace{files: map[uri.URI]*fileIndex{}, limits: defaultScanLimits()}
}

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

// scanResult says what a scan read and what it left out.
type scanResult struct {
	files   int
	bytes   int64
	skipped map[string]string // path → why
}

// scan parses the config files under the workspace folders. Only regular
// files inside a folder are read: a symbolic link is followed only to a
// regular file inside the same folder; devices, FIFOs, sockets and links
// leading elsewhere (another workspace, /etc/shadow) are skipped.
func (w *workspace) scan(ctx context.Context, log *zap.Logger) scanResult {
	w.mu.Lock()
	folders := append([]string(nil), w.folders...)
	lim := w.limits
	w.mu.Unlock()
	res := scanResult{skipped: map[string]string{}}
	skip := func(path, why string) {
		res.skipped[path] = why
		log.Warn("workspace scan: file skipped", zap.String("path", path), zap.String("why", why))
	}
	for _, folder := range folders {
		root, err := filepath.EvalSymlinks(folder)
		if err != nil {
			log.Warn("workspace scan: folder unreadable", zap.String("folder", folder), zap.Error(err))
			continue
		}
		// Walk the folder as the editor names it (its URIs are the open
		// documents'), unless the folder itself is a link.
		walk := folder
		if info, err := os.Lstat(folder); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			walk = root
		}
		err = filepath.WalkDir(walk, func(path string, e fs.DirEntry, err error) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err != nil {
				log.Debug("workspace scan: unreadable", zap.String("path", path), zap.Error(err))
				if e != nil && e.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if e.IsDir() {
				if name := e.Name(); path != walk && (strings.HasPrefix(name, ".") || name == "node_modules") {
					return filepath.SkipDir
				}
				return nil
			}
			if !isConfigPath(path) {
				return nil
			}
			if res.files >= lim.files {
				skip(path, fmt.Sprintf("the scan reads at most %d files", lim.files))
				return filepath.SkipAll
			}
			src, why := readConfig(root, path, e, lim.size, lim.total-res.bytes)
			if why != "" {
				skip(path, why)
				return nil
			}
			res.files++
			res.bytes += int64(len(src))
			u := uri.File(path)
			ix := indexFile(grammar.ParseConfig(path, src, grammar.Options{Version: pcpver.Latest}))
			w.mu.Lock()
			_, open := w.files[u]
			_, edited := w.pending[u]
			if !open && !edited {
				w.files[u] = ix
			}
			w.mu.Unlock()
			return nil
		})
		if err != nil && ctx.Err() == nil {
			log.Warn("workspace scan", zap.String("folder", folder), zap.Error(err))
		}
	}
	log.Debug("workspace scanned", zap.Int("configs", res.files), zap.Int64("bytes", res.bytes), zap.Int("skipped", len(res.skipped)))
	return res
}

// readConfig reads a config file found by the scan, or says why not. A
// symbolic link must lead to a regular file under root; anything not a
// regular file is refused before it is opened, and again on the open
// file (it may have been replaced meanwhile), which is opened without
// blocking so a FIFO cannot hold up the scan. At most min(size, left)
// bytes are read, so a file growing under the scan stays bounded too.
func readConfig(root, path string, e fs.DirEntry, size, left int64) ([]byte, string) {
	target := path
	if e.Type()&fs.ModeSymlink != 0 {
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, fmt.Sprintf("unresolvable symbolic link: %v", err)
		}
		if rel, err := filepath.Rel(root, resolved); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, "symbolic link to " + resolved + ", outside the workspace folder"
		}
		target = resolved
	}
	info, err := os.Lstat(target)
	if err != nil {
		return nil, err.Error()
	}
	if !info.Mode().IsRegular() {
		return nil, "not a regular file (" + info.Mode().Type().String() + ")"
	}
	f, err := openScanned(target)
	if err != nil {
		return nil, err.Error()
	}
	defer f.Close()
	info, err = f.Stat()
	switch {
	case err != nil:
		return nil, err.Error()
	case !info.Mode().IsRegular():
		return nil, "not a regular file (" + info.Mode().Type().String() + ")"
	case info.Size() > size:
		return nil, fmt.Sprintf("%d bytes, over the scan's %d-byte limit for one file (open it to analyse it)", info.Size(), size)
	case info.Size() > left:
		return nil, fmt.Sprintf("the scan's total limit is reached (%d bytes left, the file has %d)", left, info.Size())
	}
	limit := min(size, left)
	src, err := io.ReadAll(io.LimitReader(f, limit+1))
	switch {
	case err != nil:
		return nil, err.Error()
	case int64(len(src)) > limit:
		return nil, fmt.Sprintf("grew past %d bytes while being read", limit)
	}
	return src, ""
}

// update records an open document's latest parse.
func (w *workspace) update(u uri.URI, f *grammar.File) {
	w.mu.Lock()
	if w.pending == nil {
		w.pending = map[uri.URI]*grammar.File{}
	}
	w.pending[u] = f
	w.mu.Unlock()
}

// closed indexes a closed document's last parse now, if it was not yet:
// kept pending, the parse of a closed document stayed in memory until a
// workspace request came (a 100,000-line document closed and opened again
// held two parses, and the collector worked through the second opening
// near the server's memory limit).
func (w *workspace) closed(u uri.URI) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if f, ok := w.pending[u]; ok {
		w.files[u] = indexFile(f)
		delete(w.pending, u)
	}
}

// snapshot lists the files in a stable order.
func (w *workspace) snapshot() []wsFile {
	w.mu.Lock()
	defer w.mu.Unlock()
	for u, f := range w.pending {
		w.files[u] = indexFile(f)
	}
	clear(w.pending)
	out := make([]wsFile, 0, len(w.files))
	for u, f := range w.files {
		out = append(out, wsFile{u, f})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].uri < out[j].uri })
	return out
}

type wsFile struct {
	uri uri.URI
	*fileIndex
}
