//go:build race

package htop

// raceDetector reports a -race build: TestBadInput allows ten times the
// time under it (the detector slows the reader about tenfold).
const raceDetector = true
