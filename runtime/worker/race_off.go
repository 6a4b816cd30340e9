//go:build !race

package worker

// raceEnabled reports a build with the race detector.
const raceEnabled = false
