package chain

// InitFrom returns a full-size weight vector for m holding the weights of
// old wherever the two models share a feature: the same label names, and
// for state and pair features the same attribute names (both models need
// an encoder for those). Features m has and old lacks start at zero. Use it
// as train.Options.Init to continue training from an existing model on new or
// extended data.
func (m *Model) InitFrom(old *Model) []float64 {
	w := make([]float64, len(m.W))
	L := m.NumLabels()
	lab := make([]int, L) // label of m -> label of old, or -1
	for y, name := range m.Labels {
		lab[y] = old.LabelID(name)
	}
	if m.Transitions && old.Transitions {
		for p := 0; p < L; p++ {
			for q := 0; q < L; q++ {
				if lab[p] >= 0 && lab[q] >= 0 {
					w[m.TransIndex(p, q)] = old.W[old.TransIndex(lab[p], lab[q])]
				}
			}
		}
	}
	if m.Encoder == nil || old.Encoder == nil {
		return w
	}
	ud, oud := m.Encoder.Unary(), old.Encoder.Unary()
	for a := 0; a < m.NumUnary; a++ {
		oa, ok := oud.ID(ud.Name(int32(a)))
		if !ok {
			continue
		}
		for y := 0; y < L; y++ {
			if lab[y] >= 0 {
				w[m.StateIndex(a, y)] = old.W[old.StateIndex(int(oa), lab[y])]
			}
		}
	}
	pd, opd := m.Encoder.Pair(), old.Encoder.Pair()
	for a := 0; a < m.NumPair; a++ {
		oa, ok := opd.ID(pd.Name(int32(a)))
		if !ok {
			continue
		}
		for p := 0; p < L; p++ {
			for q := 0; q < L; q++ {
				if lab[p] >= 0 && lab[q] >= 0 {
					w[m.PairIndex(a, p, q)] = old.W[old.PairIndex(int(oa), lab[p], lab[q])]
				}
			}
		}
	}
	return w
}
