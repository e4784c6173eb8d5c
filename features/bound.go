package features

// EntryBound returns upper bounds of the unary and pair entries that e
// appends to a corpus when it encodes in (pair is 0 for an encoder without
// pair rows), and whether it knows them without encoding: a template
// encoder without valued columns or vectors appends at most one id per U
// line at every position and one per B line with macros at every position
// after the first; an attribute encoder at most one per name. Pixel and
// valued encoders return false. A caller sizes a corpus with the bounds
// (sparse.Corpus.Grow) so that its rows are not grown by doubling.
func EntryBound(e *Encoder, in Input) (unary, pair int, ok bool) {
	switch x := in.(type) {
	case Columns:
		if e.kind != KindTemplate || e.val != nil || e.tmpl.vectors != 0 {
			return 0, 0, false
		}
		n := len(x)
		if e.hasPair() && n > 1 {
			pair = (n - 1) * len(e.tmpl.pair)
		}
		return n * len(e.tmpl.unary), pair, true
	case Attributes:
		if e.kind != KindAttributes {
			return 0, 0, false
		}
		for _, row := range x.Names {
			unary += len(row)
		}
		return unary, 0, true
	}
	return 0, 0, false
}
