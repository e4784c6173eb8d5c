//go:build race

package chain

// decodeRace: the race detector makes sync.Pool drop entries at random, so
// allocation counts are meaningless.
const decodeRace = true
