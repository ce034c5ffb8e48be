//go:build !linux

package lsp

// growStdoutPipe: only Linux lets a process grow a pipe, and only there
// does the server grow its own.
func growStdoutPipe() {}
