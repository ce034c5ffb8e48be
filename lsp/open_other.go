//go:build !unix

package lsp

import "os"

// openScanned opens a file the workspace scan has found to be a regular
// file. Windows has no FIFOs to block on, and the file is checked again
// after it is opened (workspace.readConfig).
func openScanned(path string) (*os.File, error) {
	return os.Open(path)
}
