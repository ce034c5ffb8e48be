package cli

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// fileSaver writes the files check --fix changes as an editor saves them:
// the new text goes to a temporary file in the same directory, which is
// synced and renamed over the original, so a failed write (a full disk)
// leaves the original byte for byte and a reader sees the old text or
// the new, never part of one. A file that changed since check read it
// is not written (another program's edit would be lost), and a symbolic
// link that leads out of the tree the file was found in is not written
// through unless throughLinks (the workspace scan's policy).
type fileSaver struct {
	// trees are the PATH arguments: a file found under one of them
	// belongs to its tree, a file named itself to its directory's.
	trees        []string
	throughLinks bool
	// wrap, when set, is what the new text is written through (tests
	// make it fail part way, as a full disk does).
	wrap func(*os.File) io.Writer
}

// save writes ff's fixed text over its file.
func (s fileSaver) save(ff fileFix) error {
	path := ff.file.Path
	target, err := s.target(path)
	if err != nil {
		return err
	}
	was, err := unchanged(target, ff.file.Text)
	if err != nil {
		return fmt.Errorf("%s: %w: not rewritten", path, err)
	}
	if err := s.replace(target, was, ff.writeTo); err != nil {
		return fmt.Errorf("%s: %w: not rewritten, the file is as it was", path, err)
	}
	return nil
}

// target is the file the fixed text replaces: path itself, or the file
// its symbolic links lead to (the link stays a link), which must be in
// path's tree unless throughLinks.
func (s fileSaver) target(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w: not rewritten", path, err)
	}
	if s.throughLinks {
		return real, nil
	}
	tree := s.treeOf(path)
	realTree, err := filepath.EvalSymlinks(tree)
	if err != nil {
		return "", fmt.Errorf("%s: its tree %s: %w: not rewritten", path, tree, err)
	}
	if rel, err := filepath.Rel(realTree, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s: a symbolic link to %s, outside %s: not rewritten through it (--fix-through-links writes through links that leave the tree)", path, real, tree)
	}
	return real, nil
}

// treeOf is the tree path was found in: the PATH argument it was found
// under, or its own directory when it was named itself.
func (s fileSaver) treeOf(path string) string {
	for _, arg := range s.trees {
		for _, t := range grammar.SplitConfigPath(arg) {
			t = filepath.Clean(t)
			switch {
			case path == t:
				return filepath.Dir(t)
			case strings.HasPrefix(path, t+string(filepath.Separator)):
				return t
			}
		}
	}
	return filepath.Dir(path)
}

// unchanged returns what path is now (its size, time of modification and
// identity) after checking that its content is still checked, the text
// check read and analysed: the same size and the same SHA-256, streamed
// from the file rather than read into a second copy.
func unchanged(path string, checked *grammar.Text) (os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("no longer a regular file")
	}
	if info.Size() != int64(checked.Len()) {
		return nil, fmt.Errorf("changed since it was read (%d bytes then, %d now; run check --fix again)", checked.Len(), info.Size())
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	if want := sha256.Sum256(checked.Bytes()); !bytes.Equal(h.Sum(nil), want[:]) {
		return nil, errors.New("changed since it was read (its content differs from what was checked; run check --fix again)")
	}
	return info, nil
}

// replace writes a new file in path's directory with write, gives it
// was's permissions, syncs it and renames it over path, unless path's
// size, modification time or identity differ from was by then. On any
// failure the temporary file is removed and path is untouched.
func (s fileSaver) replace(path string, was os.FileInfo, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".fix-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	var out io.Writer = tmp
	if s.wrap != nil {
		out = s.wrap(tmp)
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	if err := write(bw); err != nil {
		return fmt.Errorf("writing the fixes: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the fixes: %w", err)
	}
	if err := tmp.Chmod(was.Mode().Perm()); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("writing the fixes: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the fixes: %w", err)
	}
	now, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !os.SameFile(was, now) || now.Size() != was.Size() || !now.ModTime().Equal(was.ModTime()) {
		return errors.New("changed while the fixes were written (run check --fix again)")
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable; a directory that cannot be
// synced (some file systems refuse) leaves the rename done all the same.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
