//go:build race

package grammar

// raceDetector reports a -race build: the Text tests walk fewer and
// smaller texts under it (the detector slows them about tenfold), with
// the same checks.
const raceDetector = true
