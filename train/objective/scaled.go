package objective

// The real-valued counterparts of spanadd.Gather and spanadd.Scatter, for
// the rows of a valued corpus (word vectors, valued columns, attribute
// files) whose attributes have every label active. Each element of the
// result gets the same IEEE operations, in the same order, as
// floats.AddScaled called once per span: a product v*x rounded, then
// added (the float64 conversions forbid a fused multiply-add). The row
// being summed (gather) or added (scatter) stays in locals four columns at
// a time while the spans stream by, instead of one function call and one
// load and store of the row per span.

// gatherScaled adds v[k] times src[lo_k : lo_k+len(dst)] to dst for every
// span (lo_k, hi_k) of spans, in order (len(spans) == 2*len(v)).
func gatherScaled(dst, src []float64, spans []int32, v []float64) {
	n := len(dst)
	spans = spans[:2*len(v)]
	j := 0
	for ; j+4 <= n; j += 4 {
		a0, a1, a2, a3 := dst[j], dst[j+1], dst[j+2], dst[j+3]
		for k, c := range v {
			s := src[int(spans[2*k])+j:][:4]
			a0 += float64(c * s[0])
			a1 += float64(c * s[1])
			a2 += float64(c * s[2])
			a3 += float64(c * s[3])
		}
		dst[j], dst[j+1], dst[j+2], dst[j+3] = a0, a1, a2, a3
	}
	for ; j < n; j++ {
		a := dst[j]
		for k, c := range v {
			a += float64(c * src[int(spans[2*k])+j])
		}
		dst[j] = a
	}
}

// scatterScaled adds v[k] times mu to dst[lo_k : lo_k+len(mu)] for every
// span (lo_k, hi_k) of spans, in order (len(spans) == 2*len(v)). Two spans
// must be disjoint or identical, as for spanadd.Scatter.
func scatterScaled(dst, mu []float64, spans []int32, v []float64) {
	n := len(mu)
	spans = spans[:2*len(v)]
	j := 0
	for ; j+4 <= n; j += 4 {
		m0, m1, m2, m3 := mu[j], mu[j+1], mu[j+2], mu[j+3]
		for k, c := range v {
			d := dst[int(spans[2*k])+j:][:4]
			d[0] += float64(c * m0)
			d[1] += float64(c * m1)
			d[2] += float64(c * m2)
			d[3] += float64(c * m3)
		}
	}
	for ; j < n; j++ {
		m := mu[j]
		for k, c := range v {
			dst[int(spans[2*k])+j] += float64(c * m)
		}
	}
}
