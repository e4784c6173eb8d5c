package chain

import (
	"fmt"
	"slices"
	"strings"
)

// WeightsFrom returns a full-size weight vector for m holding the weights of
// old wherever the two models share a feature: the same label names, and
// for state and pair features the same attribute names (both models need
// an encoder for those). Features m has and old lacks start at zero. Use it
// as train.Options.Init to continue training from an existing model on new or
// extended data.
func (m *Model) WeightsFrom(old *Model) []float64 {
	w := make([]float64, len(m.W))
	L := m.NumLabels()
	lab := make([]int, L) // label of m -> label of old, or -1
	for y, name := range m.Labels {
		lab[y] = old.LabelID(name)
	}
	if m.Layout.Transitions && old.Layout.Transitions {
		for p := 0; p < L; p++ {
			for q := 0; q < L; q++ {
				if lab[p] >= 0 && lab[q] >= 0 {
					w[m.Layout.TransIndex(p, q)] = old.W[old.Layout.TransIndex(lab[p], lab[q])]
				}
			}
		}
	}
	if m.Encoder == nil || old.Encoder == nil {
		return w
	}
	ud, oud := m.Encoder.Unary(), old.Encoder.Unary()
	for a := 0; a < m.Layout.NumUnary; a++ {
		oa, ok := oud.ID(ud.Name(int32(a)))
		if !ok {
			continue
		}
		for y := 0; y < L; y++ {
			if lab[y] >= 0 {
				w[m.Layout.StateIndex(a, y)] = old.W[old.Layout.StateIndex(int(oa), lab[y])]
			}
		}
	}
	pd, opd := m.Encoder.Pair(), old.Encoder.Pair()
	for a := 0; a < m.Layout.NumPair; a++ {
		oa, ok := opd.ID(pd.Name(int32(a)))
		if !ok {
			continue
		}
		for p := 0; p < L; p++ {
			for q := 0; q < L; q++ {
				if lab[p] >= 0 && lab[q] >= 0 {
					w[m.Layout.PairIndex(a, p, q)] = old.W[old.Layout.PairIndex(int(oa), lab[p], lab[q])]
				}
			}
		}
	}
	return w
}

// CheckWeightsFrom reports why old cannot start the training of m (see
// WeightsFrom) instead of starting it from weights that mean nothing: the
// two models share no label, or both have an encoder and they share no
// state attribute (another input format or feature template: the error
// names the kinds or an attribute of each). Label sets that differ but
// overlap are accepted: LabelChanges names the labels that start at zero
// and those whose weights are dropped. A nil error means WeightsFrom
// carries over the transitions between shared labels and the weights of
// every shared attribute and label.
func (m *Model) CheckWeightsFrom(old *Model) error {
	if onlyNew, _ := m.LabelChanges(old); len(onlyNew) == len(m.Labels) {
		return fmt.Errorf("chain: the models share no label (new: %s; initial: %s)",
			listOrNone(m.Labels), listOrNone(old.Labels))
	}
	if m.Encoder == nil || old.Encoder == nil {
		return nil
	}
	if k, ok := m.Encoder.Kind(), old.Encoder.Kind(); k != ok {
		return fmt.Errorf("chain: the new model reads %v input, the initial model %v input: they share no feature", k, ok)
	}
	ud, oud := m.Encoder.Unary(), old.Encoder.Unary()
	for a := 0; a < m.Layout.NumUnary; a++ {
		if _, ok := oud.ID(ud.Name(int32(a))); ok {
			return nil
		}
	}
	example := func(d interface{ Name(int32) string }, n int) string {
		if n == 0 {
			return "none"
		}
		return fmt.Sprintf("%q", d.Name(0))
	}
	return fmt.Errorf("chain: the models share no attribute (new: %d, e.g. %s; initial: %d, e.g. %s): another feature template?",
		m.Layout.NumUnary, example(ud, m.Layout.NumUnary), old.Layout.NumUnary, example(oud, old.Layout.NumUnary))
}

// LabelChanges returns the labels only m has, whose weights WeightsFrom
// starts at zero, and the labels only old has, whose weights it drops, each
// in its model's order.
func (m *Model) LabelChanges(old *Model) (onlyNew, onlyOld []string) {
	return labelDiff(m.Labels, old.Labels), labelDiff(old.Labels, m.Labels)
}

// labelDiff returns the labels of a that b lacks, in a's order.
func labelDiff(a, b []string) []string {
	var out []string
	for _, l := range a {
		if !slices.Contains(b, l) {
			out = append(out, l)
		}
	}
	return out
}

func listOrNone(labels []string) string {
	if len(labels) == 0 {
		return "none"
	}
	const show = 10
	if len(labels) > show {
		return fmt.Sprintf("%s and %d more", strings.Join(labels[:show], ", "), len(labels)-show)
	}
	return strings.Join(labels, ", ")
}
