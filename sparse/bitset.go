package sparse

import "math/bits"

// Bitset is a fixed-size set of non-negative integers.
type Bitset []uint64

// NewBitset returns an empty set able to hold 0..n-1.
func NewBitset(n int) Bitset { return make(Bitset, (n+63)/64) }

// Set adds i.
func (b Bitset) Set(i int) { b[i>>6] |= 1 << uint(i&63) }

// Clear removes i.
func (b Bitset) Clear(i int) { b[i>>6] &^= 1 << uint(i&63) }

// Has reports whether i is in the set.
func (b Bitset) Has(i int) bool { return b[i>>6]&(1<<uint(i&63)) != 0 }

// Count returns the number of elements.
func (b Bitset) Count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// AppendIndices appends the elements below n in increasing order to dst.
func (b Bitset) AppendIndices(dst []int32, n int) []int32 {
	for i := 0; i < n; i++ {
		if b.Has(i) {
			dst = append(dst, int32(i))
		}
	}
	return dst
}
