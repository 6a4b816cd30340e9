//go:build !race

package runtime

// raceEnabled reports a build with the race detector.
const raceEnabled = false
