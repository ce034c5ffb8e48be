//go:build !race

package htop

// raceDetector reports a -race build (see race_on_test.go).
const raceDetector = false
