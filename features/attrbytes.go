package features

import (
	"errors"
	"fmt"
	"math"

	"github.com/sparsetag/sparsetag/sparse"
)

// AttributeBytes is one sequence of name:value attributes held as bytes, in
// the layout of corpora.RawSequence: the names back to back in Names, name
// k being Names[NamePtr[k]:NamePtr[k+1]] with the value Values[k], and
// position t holding the names PosPtr[t] to PosPtr[t+1]-1. It is the input
// of EncodeBytes, which reads an attribute file's names without a string
// for each.
type AttributeBytes struct {
	Names   []byte
	NamePtr []int
	Values  []float64
	PosPtr  []int
}

// Len returns the number of positions.
func (a *AttributeBytes) Len() int { return max(len(a.PosPtr)-1, 0) }

// EncodeBytes is Encode of the Attributes with the same names and values
// (the same rows, ids, counts and errors but for their wording), for an
// attribute encoder: names are looked up by their bytes, and only a name
// new to a growing dictionary becomes a string. Other encoders return a
// *KindError.
func (e *Encoder) EncodeBytes(dst *sparse.Corpus, in AttributeBytes, labels []int32, grow bool) error {
	if e.kind != KindAttributes {
		return &KindError{Encoder: e.kind, Input: KindAttributes}
	}
	if dst == nil {
		return errors.New("features: EncodeBytes into a nil corpus")
	}
	n := in.Len()
	if err := e.begin(dst, n, labels, grow); err != nil {
		return err
	}
	if err := checkAttributeBytes(&in); err != nil {
		return err
	}
	m := markOf(dst)
	for t := range n {
		lo, hi := in.PosPtr[t], in.PosPtr[t+1]
		ids, vals, err := appendAttrIDs(e.unary, e.ids[:0], e.vals[:0], &in, lo, hi, grow)
		e.ids, e.vals = ids, vals
		if err != nil {
			m.restore(dst)
			return err
		}
		ids, vals = e.mergeRow(ids, vals)
		e.ids = ids
		if grow {
			count(e.unary, ids)
		}
		startRow(&dst.Unary)
		dst.Unary.AppendRow(ids, vals)
	}
	e.finish(dst, n, labels)
	return nil
}

// appendAttrIDs appends to ids and vals the ids and values of the names lo
// to hi-1 of in, adding new names to d when grow (unknown names are left
// out otherwise).
func appendAttrIDs(d *Dictionary, ids []int32, vals []float64, in *AttributeBytes, lo, hi int, grow bool) ([]int32, []float64, error) {
	for k := lo; k < hi; k++ {
		name := in.Names[in.NamePtr[k]:in.NamePtr[k+1]]
		id, ok := d.lookup(name)
		if !ok {
			if !grow {
				continue
			}
			var err error
			if id, err = d.insert(string(name)); err != nil {
				return ids, vals, err
			}
		}
		ids = append(ids, id)
		vals = append(vals, in.Values[k])
	}
	return ids, vals, nil
}

// mergeRow is sortMerge, and then the test of attributes' binary rows: it
// returns the row's sorted ids with the sums of the values of equal ids,
// vals nil when they are all 1. A row whose values are all 1 and whose ids
// are distinct (the usual row of an attribute file) is sorted without its
// values: a stable sort of equal values changes nothing and sums nothing.
func (e *Encoder) mergeRow(ids []int32, vals []float64) ([]int32, []float64) {
	if allOnes(vals) {
		sortSmall(ids)
		distinct := true
		for i := 1; i < len(ids); i++ {
			if ids[i] == ids[i-1] {
				distinct = false
				break
			}
		}
		if distinct {
			return ids, nil
		}
	}
	ids, vals = e.sortMerge(ids, vals)
	if allOnes(vals) {
		return ids, nil
	}
	return ids, vals
}

// checkAttributeBytes checks the layout of in (offsets in range and in
// order) and what checkAttributes checks: non-empty names, finite values
// whose sum over a position is finite.
func checkAttributeBytes(in *AttributeBytes) error {
	nn := len(in.NamePtr) - 1
	switch {
	case len(in.PosPtr) == 0 || nn < 0:
		return errors.New("features: AttributeBytes without PosPtr or NamePtr (each holds a leading 0)")
	case len(in.Values) != nn:
		return fmt.Errorf("features: %d values for %d attribute names", len(in.Values), nn)
	case in.PosPtr[0] < 0 || in.PosPtr[len(in.PosPtr)-1] > nn:
		return fmt.Errorf("features: positions over names %d to %d, of %d", in.PosPtr[0], in.PosPtr[len(in.PosPtr)-1], nn)
	case in.NamePtr[0] < 0 || in.NamePtr[nn] > len(in.Names):
		return fmt.Errorf("features: names over bytes %d to %d, of %d", in.NamePtr[0], in.NamePtr[nn], len(in.Names))
	}
	for k := range nn {
		if in.NamePtr[k+1] <= in.NamePtr[k] {
			return fmt.Errorf("features: attribute %d: empty name (or names out of order)", k)
		}
	}
	for t := range in.Len() {
		lo, hi := in.PosPtr[t], in.PosPtr[t+1]
		if hi < lo {
			return fmt.Errorf("features: position %d: names out of order", t)
		}
		sum := 0.0
		for k := lo; k < hi; k++ {
			v := in.Values[k]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("features: position %d, attribute %q: value %v, want a finite number", t, in.Names[in.NamePtr[k]:in.NamePtr[k+1]], v)
			}
			sum += math.Abs(v)
		}
		if math.IsInf(sum, 0) {
			return fmt.Errorf("features: position %d: values too large (their sum overflows)", t)
		}
	}
	return nil
}
