package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// input is one config file to check, or why it could not be read.
type input struct {
	path string
	src  []byte
	// problem is a finding about the file as a whole (binary, too large);
	// err is an I/O error (exit status 2).
	problem, problemCode string
	err                  error
}

// collectInputs expands PATH arguments in order: files as given,
// directories recursively in sorted order (libpcp uses readdir order, which
// is not stable), "-" for standard input. Symbolic link loops are skipped.
func collectInputs(args []string, stdin io.Reader, maxSize int64) []input {
	var out []input
	for _, arg := range args {
		if arg == "-" {
			out = append(out, readInput("<stdin>", stdin, maxSize))
			continue
		}
		info, err := os.Stat(arg)
		if err != nil && strings.Contains(arg, ":") {
			// A PCP_DERIVED_CONFIG-style list: "a.conf:b.conf:dir".
			out = append(out, collectInputs(grammar.SplitConfigPath(arg), stdin, maxSize)...)
			continue
		}
		if err != nil {
			out = append(out, input{path: arg, err: err})
			continue
		}
		if info.Mode().IsRegular() {
			out = append(out, readFile(arg, maxSize))
			continue
		}
		if !info.IsDir() {
			// Opening a FIFO blocks until something writes to it, and a
			// device may never end: only "-" reads a stream.
			out = append(out, input{path: arg, err: fmt.Errorf("%s: %s, not a regular file: not read (pipe a config to \"-\" to check standard input)", arg, fileKind(info.Mode()))})
			continue
		}
		out = append(out, walkDir(arg, maxSize, map[string]bool{})...)
	}
	return out
}

func walkDir(dir string, maxSize int64, seen map[string]bool) []input {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return []input{{path: dir, err: err}}
	}
	if seen[real] {
		return nil // a symbolic link loop: already visited
	}
	seen[real] = true
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []input{{path: dir, err: err}}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var out []input
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		info, err := os.Stat(path) // follows links, as libpcp does
		switch {
		case err != nil:
			out = append(out, input{path: path, err: err})
		case info.IsDir():
			out = append(out, walkDir(path, maxSize, seen)...)
		case info.Mode().IsRegular():
			out = append(out, readFile(path, maxSize))
		}
	}
	return out
}

// fileKind names what a non-regular, non-directory file is.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

func readFile(path string, maxSize int64) input {
	f, err := os.Open(path)
	if err != nil {
		return input{path: path, err: err}
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > maxSize {
		return input{path: path, problemCode: "too-large",
			problem: fmt.Sprintf("file is %d bytes, more than the %d byte limit (--max-size): not checked", info.Size(), maxSize)}
	}
	return readInput(path, f, maxSize)
}

func readInput(path string, r io.Reader, maxSize int64) input {
	src, err := io.ReadAll(io.LimitReader(r, maxSize+1))
	if err != nil {
		return input{path: path, err: err}
	}
	if int64(len(src)) > maxSize {
		return input{path: path, problemCode: "too-large",
			problem: fmt.Sprintf("input is more than the %d byte limit (--max-size): not checked", maxSize)}
	}
	head := src[:min(len(src), 8192)]
	if bytes.IndexByte(head, 0) >= 0 {
		return input{path: path, problemCode: "binary-file", problem: "binary file (NUL bytes): not a derived metric config, not checked"}
	}
	return input{path: path, src: src}
}
