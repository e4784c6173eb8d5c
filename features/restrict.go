package features

// Restrict returns an encoder that reads the same input as e (same kind,
// template and pixel options) but knows only the unary attributes whose id
// satisfies keepUnary and the pair attributes whose id satisfies keepPair,
// renumbered densely in id order (Dictionary.Subset), together with the maps
// from the old ids to the new ones (-1 for attributes left out). Its
// dictionaries are frozen; e is not changed.
//
// On any input the restricted encoder produces the rows e would produce
// with grow=false, with the left-out attributes removed and the others
// renamed through the maps: left-out names are unknown to it and so are
// skipped, and since renumbering keeps the order, every row stays sorted
// the same way. Model compaction relies on this: an attribute whose
// weights are all zero can be dropped without changing any score.
func (e *Encoder) Restrict(keepUnary, keepPair func(id int32) bool) (r *Encoder, unaryMap, pairMap []int32) {
	r = e.Clone()
	if r.lazy != nil {
		r.lazy = new(lazyIndex) // other dictionaries, another index
	}
	r.unary, unaryMap = e.unary.Subset(keepUnary)
	r.pair, pairMap = e.pair.Subset(keepPair)
	return r, unaryMap, pairMap
}
