package analysis

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/safeopen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/toolconf"
)

// DefaultMaxSize is the largest config read by default (check's
// --max-size, and every editor buffer).
const DefaultMaxSize = 64 << 20

// MaxSupportedSize is the largest config that can be read at all (the
// most --max-size takes): positions in a file are 32-bit (grammar.Pos),
// so a bigger one would wrap them.
const MaxSupportedSize = math.MaxInt32

// Input is one config file to analyse, or why it could not be read.
type Input struct {
	Path string
	Src  []byte
	// text is Src as an editor's grammar.Text (BufferText), or nil.
	text *grammar.Text
	// Group is the index of the PATH argument the input came from (a
	// directory gives several inputs of one group): Options.Separate
	// analyses each group as a config path of its own.
	Group int
	// Problem is a finding about the file as a whole (binary, too
	// large), with its code. A too large file is not parsed; a binary
	// one is (Src is set): libpcp loads it all the same, and its
	// verdicts and definitions are reproduced after the finding. Err is
	// an I/O error: the file could not be read at all.
	Problem, ProblemCode string
	Err                  error
	// Kind is which tool reads the file; "" or toolconf.Auto detects it
	// from the path and the text (toolconf.Detect).
	Kind toolconf.Kind
	// AfterTool loads a derived config in the config path of the pmrep
	// or pcp-dstat file just before it, after that file's formulas, so
	// that it may use them (explain -e's expression with such a file);
	// with no such file before it, it is a config path as usual.
	AfterTool bool
}

// WithKind sets the kind of every input (check --kind).
func WithKind(inputs []Input, kind toolconf.Kind) []Input {
	for i := range inputs {
		inputs[i].Kind = kind
	}
	return inputs
}

// kind is the input's kind, detected when not given.
func (in Input) kind() toolconf.Kind {
	if in.Kind != "" && in.Kind != toolconf.Auto {
		return in.Kind
	}
	if in.Src == nil {
		return toolconf.Derived
	}
	// A binary file in pcp-htop's directories is still read by pcp-htop
	// (its reader reports the NUL bytes); any other is a derived config.
	if k := toolconf.Detect(in.Path, in.Src); in.Problem == "" || k == toolconf.Htop {
		return k
	}
	return toolconf.Derived
}

// Buffer is an editor's unsaved text of a document, classified as a file
// with the same text would be (binary, too large): the same input gives
// the same findings in the editor and in check.
func Buffer(path string, src []byte) Input {
	return classify(path, src, DefaultMaxSize)
}

// BufferText is Buffer of a grammar.Text, which the parse then keeps (no
// second index of the same lines).
func BufferText(path string, text *grammar.Text) Input {
	in := classify(path, text.Bytes(), DefaultMaxSize)
	if in.Src != nil {
		in.text = text
	}
	return in
}

// bufferProblem is whether Buffer of text has a problem, without making
// text one slice.
func bufferProblem(text *grammar.Text) bool {
	return problemOf(int64(text.Len()), text.HasByte(0, 0, binaryHead), DefaultMaxSize).ProblemCode != ""
}

// ReadInputs expands PATH arguments in order: files as given,
// directories recursively in sorted order (libpcp uses readdir order,
// which is not stable), "-" for standard input, a PCP_DERIVED_CONFIG-style
// list ("a.conf:b.conf:dir") as its parts. Symbolic link loops are
// skipped; FIFOs and devices are refused (only "-" reads a stream).
// A PCP configuration tree keeps only its tool directories' files
// (ReadTree).
func ReadInputs(paths []string, stdin io.Reader, maxSize int64) []Input {
	inputs, _ := ReadTree(paths, stdin, maxSize)
	return inputs
}

// ReadTree is ReadInputs that also returns the files it left out. A
// directory is read as libpcp reads a derived config directory (every
// file, hidden ones too) unless it is a PCP configuration tree such as
// /etc/pcp, /usr/share/pcp, /var/lib/pcp/config or ~/.pcp: one with a
// derived, pmrep, dstat or htop directory directly in it. In a tree, only
// the files in those directories (and pmrep.conf) hold derived metrics;
// the rest (pmie rules, pmlogconf, pmlogrewrite, PMDA configs) are
// another language, and reading them as derived configs would bury the
// real findings under false syntax errors. A file named on its own is
// always read.
func ReadTree(paths []string, stdin io.Reader, maxSize int64) (inputs []Input, skipped []string) {
	maxSize = min(maxSize, MaxSupportedSize) // (and maxSize+1 cannot overflow)
	r := treeReader{stdin: stdin, maxSize: maxSize}
	for i, arg := range paths {
		for _, in := range r.readArg(arg) {
			in.Group = i
			inputs = append(inputs, in)
		}
	}
	return inputs, r.skipped
}

// toolDirs are the directories of a PCP configuration tree that hold
// derived metrics: derived configs, pmrep's and pcp-dstat's INI files,
// and pcp-htop's meters, columns and screens.
func toolDirs() []string { return []string{"derived", "pmrep", "dstat", "htop"} }

// isPCPTree reports whether dir is a PCP configuration tree: a directory
// with one of toolDirs directly in it.
func isPCPTree(dir string) bool {
	for _, name := range toolDirs() {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil && info.IsDir() {
			return true
		}
	}
	return false
}

// inTree reports whether rel, a path relative to a PCP configuration
// tree, is one of its files that hold derived metrics.
func inTree(rel string) bool {
	rel = filepath.ToSlash(rel)
	if first, rest, found := strings.Cut(rel, "/"); found && rest != "" && slices.Contains(toolDirs(), first) {
		return true
	}
	base := filepath.Base(rel)
	return base == "pmrep.conf" || base == ".pmrep.conf"
}

// treeReader reads PATH arguments, remembering the files a PCP
// configuration tree leaves out.
type treeReader struct {
	stdin   io.Reader
	maxSize int64
	skipped []string
}

func (r *treeReader) readArg(arg string) []Input {
	if arg == "-" {
		return []Input{readInput("<stdin>", r.stdin, r.maxSize)}
	}
	info, err := os.Stat(arg)
	if err != nil && strings.Contains(arg, ":") {
		var out []Input
		for _, p := range grammar.SplitConfigPath(arg) {
			out = append(out, r.readArg(p)...)
		}
		return out
	}
	switch {
	case err != nil:
		return []Input{{Path: arg, Err: err}}
	case info.Mode().IsRegular():
		return []Input{readFile(arg, r.maxSize)}
	case !info.IsDir():
		// Opening a FIFO blocks until something writes to it, and a
		// device may never end: only "-" reads a stream.
		return []Input{{Path: arg, Err: fmt.Errorf("%s: %s, not a regular file: not read (pipe a config to \"-\" to check standard input)", arg, safeopen.Kind(info.Mode()))}}
	}
	w := walker{maxSize: r.maxSize, seen: map[string]bool{}}
	if isPCPTree(arg) {
		w.keep = func(path string) bool {
			rel, err := filepath.Rel(arg, path)
			if err != nil || inTree(rel) {
				return true
			}
			r.skipped = append(r.skipped, path)
			return false
		}
	}
	return w.walk(arg)
}

// walker reads a directory's files recursively; keep, when set, says
// which files to read.
type walker struct {
	maxSize int64
	seen    map[string]bool
	keep    func(path string) bool
}

func (w walker) walk(dir string) []Input {
	maxSize, seen := w.maxSize, w.seen
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return []Input{{Path: dir, Err: err}}
	}
	if seen[real] {
		return nil // a symbolic link loop: already visited
	}
	seen[real] = true
	entries, err := os.ReadDir(dir)
	if err != nil {
		return []Input{{Path: dir, Err: err}}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var out []Input
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		info, err := os.Stat(path) // follows links, as libpcp does
		switch {
		case err != nil:
			out = append(out, Input{Path: path, Err: err})
		case info.IsDir():
			out = append(out, w.walk(path)...)
		case info.Mode().IsRegular() && (w.keep == nil || w.keep(path)):
			out = append(out, readFile(path, maxSize))
		}
	}
	return out
}

func readFile(path string, maxSize int64) Input {
	// Open's cap is past maxSize: a file over it is a finding here, not
	// an error, and readSized tells a file grown past it.
	f, err := safeopen.Open(path, safeopen.NoLimit)
	if err != nil {
		return Input{Path: path, Err: err}
	}
	defer f.Close()
	size := f.Stat().Size()
	if size > maxSize {
		return Input{Path: path, ProblemCode: codes.TooLarge,
			Problem: fmt.Sprintf("file is %d bytes, more than the %d byte limit (--max-size): not checked", size, maxSize)}
	}
	return readSized(path, f, size, maxSize)
}

func readInput(path string, r io.Reader, maxSize int64) Input {
	return readSized(path, r, 0, maxSize)
}

// readSized reads at most maxSize+1 bytes of r into a buffer made for
// sizeHint bytes (a regular file's size), so that the text of a big
// config is one allocation of its size: io.ReadAll grows its buffer by
// copying, leaving garbage and spare capacity of up to a quarter more.
func readSized(path string, r io.Reader, sizeHint, maxSize int64) Input {
	buf := make([]byte, 0, max(min(sizeHint, maxSize)+1, 512))
	lr := io.LimitReader(r, maxSize+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the file grew, or no hint: grow as append does
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return Input{Path: path, Err: err}
		}
	}
	return classify(path, buf, maxSize)
}

// classify refuses what is no config: more than maxSize bytes, or NUL
// bytes near the start (a binary file).
func classify(path string, src []byte, maxSize int64) Input {
	head := src[:min(len(src), binaryHead)]
	if in := problemOf(int64(len(src)), bytes.IndexByte(head, 0) >= 0, maxSize); in.ProblemCode != "" {
		in.Path = path
		if in.ProblemCode == "binary-file" {
			in.Src = src
		}
		return in
	}
	return Input{Path: path, Src: src}
}

// binaryHead is how many leading bytes classify looks at for a NUL.
const binaryHead = 8192

// problemOf is the problem (ProblemCode, Problem) of an input of size
// bytes whose first binaryHead bytes have a NUL or not; none when the
// code is "".
func problemOf(size int64, nulInHead bool, maxSize int64) Input {
	switch {
	case size > maxSize:
		return Input{ProblemCode: codes.TooLarge, Problem: fmt.Sprintf("input is more than the %d byte limit (--max-size): not checked", maxSize)}
	case nulInHead:
		return Input{ProblemCode: codes.BinaryFile, Problem: "binary file (NUL bytes in the first 8 KB): not a derived metric config; checked as libpcp would still load it"}
	}
	return Input{}
}
