//go:build !race

package chain

const decodeRace = false
