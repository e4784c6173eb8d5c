//go:build !race

package owlqn

// raceEnabled reports whether the race detector is on; the slowest tests
// then use smaller problems.
const raceEnabled = false
