package peer

// dartsUnit is one unit of a Darts double array (darts.h of CRF++: a signed
// base and an unsigned check, 8 bytes little-endian in the model file).
type dartsUnit struct {
	base  int32
	check uint32
}

// dartsExact looks key up in a Darts double array and returns its value or
// -1 (DoubleArray::exactMatchSearch): from node b, byte c leads to unit
// p = b + c + 1 if units[p].check == b; after the last byte, unit b holds
// the value v as base -v-1 when its check is b. Unlike the C code, indexes
// outside the array count as a miss, so a corrupt array cannot be read out of
// bounds.
func dartsExact(da []dartsUnit, key []byte) int {
	if len(da) == 0 {
		return -1
	}
	b := da[0].base
	n := uint64(len(da))
	for _, c := range key {
		p := uint64(uint32(b) + uint32(c) + 1)
		if p >= n || da[p].check != uint32(b) {
			return -1
		}
		b = da[p].base
	}
	p := uint64(uint32(b))
	if p >= n {
		return -1
	}
	if v := da[p].base; da[p].check == uint32(b) && v < 0 {
		return int(-int64(v) - 1)
	}
	return -1
}
