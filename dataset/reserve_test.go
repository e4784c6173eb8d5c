package dataset

import (
	"reflect"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// encodeGrown is the encoding before reserve: every sequence appended to
// a corpus that grows as it goes.
func encodeGrown(t *testing.T, enc *features.Encoder, exs []Example) *sparse.Corpus {
	t.Helper()
	var labels Labels
	c := &sparse.Corpus{}
	for i := range exs {
		ids := labels.AppendIDs(nil, exs[i].Labels)
		if err := Encode(enc, c, &exs[i], ids, true); err != nil {
			t.Fatal(err)
		}
	}
	enc.Freeze(0)
	return c
}

// TestReserve checks that the training encoding into a corpus sized
// ahead (reserve) is the grown encoding's, serially and in parts, that
// every sequence appends at most features.EntryBound's entries (exactly
// that many when no rule repeats an attribute), and that the rows were
// appended into the storage reserved for them, never reallocated.
func TestReserve(t *testing.T) {
	tmpls := map[string]struct {
		src   string
		exact bool // no two rules can give one attribute at a position
	}{
		"unary":  {"U00:%x[-1,0]\nU01:%x[0,0]\nU02:%x[0,1]/%x[1,0]\nB\n", true},
		"pair":   {"U00:%x[0,0]\nB01:%x[0,1]\nB02:%x[-1,0]\n", true},
		"repeat": {"U00:%x[0,0]\nU00:%x[1,0]\nB\n", false},
	}
	exs := partsExamples(2*minPartSeqs+5, 11)
	for name, tc := range tmpls {
		tm := features.MustCompile(tc.src)
		want := encodeGrown(t, features.NewTemplateEncoder(tm), exs)
		for _, threads := range []int{1, 2} {
			enc := features.NewTemplateEncoder(tm)
			c, _, err := EncodeTrainingThreads(enc, exs, 1, threads)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c, want) {
				t.Fatalf("%s, %d threads: the corpus differs from the grown encoding", name, threads)
			}
			var unary, pair int
			for i := range exs {
				u, p, ok := features.EntryBound(enc, exs[i].Input())
				if !ok {
					t.Fatalf("%s: no bound", name)
				}
				one := &sparse.Corpus{}
				if err := Encode(enc, one, &exs[i], nil, false); err != nil {
					t.Fatal(err)
				}
				if n := one.Unary.NNZ(); n > u || tc.exact && n != u {
					t.Fatalf("%s, sequence %d: %d unary entries, bound %d", name, i, n, u)
				}
				if n := one.Pair.NNZ(); n > p || tc.exact && n != p {
					t.Fatalf("%s, sequence %d: %d pair entries, bound %d", name, i, n, p)
				}
				unary, pair = unary+u, pair+p
			}
			// slices.Grow rounds a capacity up to the allocator's size
			// class: a reallocation while appending would give another.
			reserved := func(n int) int { return cap(slices.Grow([]int32(nil), n)) }
			if cap(c.Unary.Col) != reserved(unary) || cap(c.Pair.Col) != reserved(pair) ||
				cap(c.Unary.RowPtr) != reserved(c.Positions()+1) || cap(c.Labels) != reserved(c.Positions()) ||
				cap(c.SeqPtr) != reserved(len(exs)+1) {
				t.Fatalf("%s, %d threads: capacities %d, %d, %d, %d, %d: the storage was not reserved once", name, threads,
					cap(c.Unary.Col), cap(c.Pair.Col), cap(c.Unary.RowPtr), cap(c.Labels), cap(c.SeqPtr))
			}
		}
	}
}

// TestEntryBoundAttributes checks the bound of attribute sequences (one
// entry per name) and that pixel input has none.
func TestEntryBoundAttributes(t *testing.T) {
	enc := features.NewAttributeEncoder()
	in := features.Attributes{Names: [][]string{{"a", "b", "a"}, {}, {"c"}}}
	if u, p, ok := features.EntryBound(enc, in); !ok || u != 4 || p != 0 {
		t.Fatalf("attributes: bound %d, %d, %v; want 4, 0, true", u, p, ok)
	}
	if _, _, ok := features.EntryBound(features.NewPixelEncoder(0), features.Pixels{make([]byte, features.PixelLength)}); ok {
		t.Fatal("pixels: a bound")
	}
	if _, _, ok := features.EntryBound(enc, features.Columns{{"x"}}); ok {
		t.Fatal("columns given to an attribute encoder: a bound")
	}
}
