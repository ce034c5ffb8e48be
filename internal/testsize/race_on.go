//go:build race

package testsize

// Race reports a -race build.
const Race = true
