//go:build !race

package testsize

// Race reports a -race build (see race_on.go).
const Race = false
