package sparse

// Gather writes src[idx[k]] into dst[k] for every k and returns dst[:len(idx)].
// dst must not overlap src.
func Gather(dst, src []float64, idx []int32) []float64 {
	dst = dst[:len(idx)]
	for k, j := range idx {
		dst[k] = src[j]
	}
	return dst
}

// Scatter writes src[k] into dst[idx[k]] for every k. Entries of dst not named
// in idx are left unchanged.
func Scatter(dst, src []float64, idx []int32) {
	for k, j := range idx {
		dst[j] = src[k]
	}
}

// Compact keeps the entries of x at the positions keep (increasing indices
// into x) and returns x shortened in place.
func Compact(x []float64, keep []int32) []float64 {
	for k, j := range keep {
		x[k] = x[j]
	}
	return x[:len(keep)]
}

// CompactIndex is Compact for index slices.
func CompactIndex(x []int32, keep []int32) []int32 {
	for k, j := range keep {
		x[k] = x[j]
	}
	return x[:len(keep)]
}
