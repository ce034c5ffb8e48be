//go:build race

package lsp

// raceDetector reports a -race build: the memory tests scale their
// inputs down under it (the detector slows parsing about tenfold), and
// still assert the same ratios.
const raceDetector = true
