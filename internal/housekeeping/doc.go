// Package housekeeping holds tests of the module's own shape rather than
// of what it does: how big its files and functions may grow. It has no
// code of its own.
package housekeeping
