package features

import (
	"math"
	"slices"
)

// sort16 sorts a with Batcher's odd-even merge sorting network for 16
// inputs: 63 compare-exchanges at fixed indices, each a min and a max that
// compile to conditional moves, so that sorting the ids of a row costs no
// branch mispredictions and about half the work of an insertion sort of 10
// to 16 ids. (Generated; TestSort16 checks it on every input of zeros and
// ones, which by the 0-1 principle proves it sorts every input.)
func sort16(a *[16]int32) {
	a[0], a[1] = min(a[0], a[1]), max(a[0], a[1])
	a[2], a[3] = min(a[2], a[3]), max(a[2], a[3])
	a[0], a[2] = min(a[0], a[2]), max(a[0], a[2])
	a[1], a[3] = min(a[1], a[3]), max(a[1], a[3])
	a[1], a[2] = min(a[1], a[2]), max(a[1], a[2])
	a[4], a[5] = min(a[4], a[5]), max(a[4], a[5])
	a[6], a[7] = min(a[6], a[7]), max(a[6], a[7])
	a[4], a[6] = min(a[4], a[6]), max(a[4], a[6])
	a[5], a[7] = min(a[5], a[7]), max(a[5], a[7])
	a[5], a[6] = min(a[5], a[6]), max(a[5], a[6])
	a[0], a[4] = min(a[0], a[4]), max(a[0], a[4])
	a[2], a[6] = min(a[2], a[6]), max(a[2], a[6])
	a[2], a[4] = min(a[2], a[4]), max(a[2], a[4])
	a[1], a[5] = min(a[1], a[5]), max(a[1], a[5])
	a[3], a[7] = min(a[3], a[7]), max(a[3], a[7])
	a[3], a[5] = min(a[3], a[5]), max(a[3], a[5])
	a[1], a[2] = min(a[1], a[2]), max(a[1], a[2])
	a[3], a[4] = min(a[3], a[4]), max(a[3], a[4])
	a[5], a[6] = min(a[5], a[6]), max(a[5], a[6])
	a[8], a[9] = min(a[8], a[9]), max(a[8], a[9])
	a[10], a[11] = min(a[10], a[11]), max(a[10], a[11])
	a[8], a[10] = min(a[8], a[10]), max(a[8], a[10])
	a[9], a[11] = min(a[9], a[11]), max(a[9], a[11])
	a[9], a[10] = min(a[9], a[10]), max(a[9], a[10])
	a[12], a[13] = min(a[12], a[13]), max(a[12], a[13])
	a[14], a[15] = min(a[14], a[15]), max(a[14], a[15])
	a[12], a[14] = min(a[12], a[14]), max(a[12], a[14])
	a[13], a[15] = min(a[13], a[15]), max(a[13], a[15])
	a[13], a[14] = min(a[13], a[14]), max(a[13], a[14])
	a[8], a[12] = min(a[8], a[12]), max(a[8], a[12])
	a[10], a[14] = min(a[10], a[14]), max(a[10], a[14])
	a[10], a[12] = min(a[10], a[12]), max(a[10], a[12])
	a[9], a[13] = min(a[9], a[13]), max(a[9], a[13])
	a[11], a[15] = min(a[11], a[15]), max(a[11], a[15])
	a[11], a[13] = min(a[11], a[13]), max(a[11], a[13])
	a[9], a[10] = min(a[9], a[10]), max(a[9], a[10])
	a[11], a[12] = min(a[11], a[12]), max(a[11], a[12])
	a[13], a[14] = min(a[13], a[14]), max(a[13], a[14])
	a[0], a[8] = min(a[0], a[8]), max(a[0], a[8])
	a[4], a[12] = min(a[4], a[12]), max(a[4], a[12])
	a[4], a[8] = min(a[4], a[8]), max(a[4], a[8])
	a[2], a[10] = min(a[2], a[10]), max(a[2], a[10])
	a[6], a[14] = min(a[6], a[14]), max(a[6], a[14])
	a[6], a[10] = min(a[6], a[10]), max(a[6], a[10])
	a[2], a[4] = min(a[2], a[4]), max(a[2], a[4])
	a[6], a[8] = min(a[6], a[8]), max(a[6], a[8])
	a[10], a[12] = min(a[10], a[12]), max(a[10], a[12])
	a[1], a[9] = min(a[1], a[9]), max(a[1], a[9])
	a[5], a[13] = min(a[5], a[13]), max(a[5], a[13])
	a[5], a[9] = min(a[5], a[9]), max(a[5], a[9])
	a[3], a[11] = min(a[3], a[11]), max(a[3], a[11])
	a[7], a[15] = min(a[7], a[15]), max(a[7], a[15])
	a[7], a[11] = min(a[7], a[11]), max(a[7], a[11])
	a[3], a[5] = min(a[3], a[5]), max(a[3], a[5])
	a[7], a[9] = min(a[7], a[9]), max(a[7], a[9])
	a[11], a[13] = min(a[11], a[13]), max(a[11], a[13])
	a[1], a[2] = min(a[1], a[2]), max(a[1], a[2])
	a[3], a[4] = min(a[3], a[4]), max(a[3], a[4])
	a[5], a[6] = min(a[5], a[6]), max(a[5], a[6])
	a[7], a[8] = min(a[7], a[8]), max(a[7], a[8])
	a[9], a[10] = min(a[9], a[10]), max(a[9], a[10])
	a[11], a[12] = min(a[11], a[12]), max(a[11], a[12])
	a[13], a[14] = min(a[13], a[14]), max(a[13], a[14])
}

// sortDedup16 is sortDedup for 2 to 16 ids: it pads them to 16 with the
// largest int32, which sorts last, and sorts them with sort16.
func sortDedup16(ids []int32) []int32 {
	var a [16]int32
	n := copy(a[:], ids)
	for i := n; i < len(a); i++ {
		a[i] = math.MaxInt32
	}
	sort16(&a)
	copy(ids, a[:n])
	return slices.Compact(ids)
}
