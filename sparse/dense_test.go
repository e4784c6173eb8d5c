package sparse

import (
	"slices"
	"testing"
)

// TestExpandRow checks the merge of a binary row with two dense blocks:
// sorted by id, zero values and dimensions without attribute left out,
// equal ids kept apart (row first), the zero vector adding nothing; and
// Validate on blocks.
func TestExpandRow(t *testing.T) {
	c := &Corpus{NumUnary: 10}
	c.AppendSequence([][]int32{{1, 5}, {2}}, nil, nil, nil, []int32{0, 1})
	c.Dense = []Dense{
		{D: 3, Table: []float64{0.5, 0, -1, 2, 3, 4}, Attrs: []int32{7, 3, -1}, Word: []int32{0, -1}},
		{D: 2, Table: []float64{9, 8}, Attrs: []int32{5, 0}, Word: []int32{0, 0}},
	}
	if err := c.Validate(2); err != nil {
		t.Fatal(err)
	}
	var buf RowBuffer
	cols, vals := c.ExpandRow(0, &buf)
	if want := []int32{0, 1, 5, 5, 7}; !slices.Equal(cols, want) {
		t.Fatalf("row 0 ids %v, want %v", cols, want)
	}
	if want := []float64{8, 1, 1, 9, 0.5}; !slices.Equal(vals, want) {
		t.Fatalf("row 0 values %v, want %v", vals, want)
	}
	cols, vals = c.ExpandRow(1, &buf)
	if !slices.Equal(cols, []int32{0, 2, 5}) || !slices.Equal(vals, []float64{8, 1, 9}) {
		t.Fatalf("row 1: %v %v", cols, vals)
	}
	x := c.Expanded()
	if x.HasDense() || x.Unary.NNZ() != 8 || x.Validate(2) != nil {
		t.Fatalf("Expanded: %d entries, blocks %v", x.Unary.NNZ(), x.HasDense())
	}
	c.Dense[0].Word[1] = 2
	if c.Validate(2) == nil {
		t.Error("Validate accepted row 2 of a 2-row table")
	}
	c.Dense[0].Word[1], c.Dense[1].Attrs[0] = -1, 10
	if c.Validate(2) == nil {
		t.Error("Validate accepted attribute 10 of 10")
	}
}
