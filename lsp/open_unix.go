//go:build unix

package lsp

import (
	"os"
	"syscall"
)

// openScanned opens a file the workspace scan has found to be a regular
// file, without following a link swapped in since (O_NOFOLLOW) or waiting
// on a FIFO swapped in since (O_NONBLOCK).
func openScanned(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}
