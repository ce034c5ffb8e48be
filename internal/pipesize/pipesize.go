// Package pipesize grows the pipe the language server writes to: an
// editor reads the server's stdout through a pipe of 64 KB by default,
// and a publication of several hundred findings (150 KB at 500) then
// blocked the server's write until the editor had read twice.
package pipesize

// Stdout is the pipe buffer the server asks for on its stdout: a
// publication of several hundred findings fits whole.
const Stdout = 1 << 20
