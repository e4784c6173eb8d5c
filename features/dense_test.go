package features

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
)

// randomVectorData returns embeddings of nw words (about a third of the
// coordinates zero, so that some dimensions get their ids late) and n
// sequences over those words and unknown ones, with a POS-like column.
func randomVectorData(t *testing.T, r *rand.Rand, nw, dim, n int) (*Embeddings, []Columns) {
	t.Helper()
	words := make([]string, nw)
	vecs := make([]float64, nw*dim)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i)
	}
	for k := range vecs {
		if r.IntN(3) > 0 {
			vecs[k] = r.NormFloat64()
		}
	}
	m, err := NewEmbeddings(words, vecs, dim)
	if err != nil {
		t.Fatal(err)
	}
	seqs := make([]Columns, n)
	for i := range seqs {
		T := 1 + r.IntN(7)
		for range T {
			w := fmt.Sprintf("w%d", r.IntN(nw+nw/3)) // some unknown
			if r.IntN(5) == 0 {
				w = "W" + w[1:] // found lower-cased
			}
			seqs[i] = append(seqs[i], []string{w, fmt.Sprintf("p%d", r.IntN(4))})
		}
	}
	return m, seqs
}

// denseTemplate has pure %v lines before, between and after plain ones, a
// %v conjoined with a column (sparse), and pair lines.
const denseTemplate = "UA:%v[0,0]\nU00:%x[0,0]\nUB:%v[-1,0]\nU01:%x[0,1]\nUC:%v[0,0]/%x[0,1]\nU02:%x[-1,1]/%x[0,1]\nUD:%v[1,0]\nB\nB01:%x[0,1]\n"

// encodeBoth encodes seqs with a sparse and a dense-block encoder of the
// same template (minFreq as EncodeTraining: count, freeze, encode frozen).
func encodeBoth(t *testing.T, m *Embeddings, seqs []Columns, minFreq int) (sp, dn *sparse.Corpus, es, ed *Encoder) {
	t.Helper()
	es = mustValued(t, denseTemplate, Valued{Embeddings: m})
	ed = mustValued(t, denseTemplate, Valued{Embeddings: m}).DenseVectors()
	sp, dn = &sparse.Corpus{}, &sparse.Corpus{}
	for _, pair := range []struct {
		e *Encoder
		c *sparse.Corpus
	}{{es, sp}, {ed, dn}} {
		grow := minFreq <= 1
		if !grow {
			for _, s := range seqs {
				if err := pair.e.Count(s); err != nil {
					t.Fatal(err)
				}
			}
			pair.e.Freeze(minFreq)
		}
		for i, s := range seqs {
			labels := make([]int32, len(s))
			labels[0] = int32(i % 3)
			if err := pair.e.Encode(pair.c, s, labels, grow); err != nil {
				t.Fatal(err)
			}
		}
	}
	return sp, dn, es, ed
}

// TestDenseVectorsExpand checks the dense blocks against the sparse
// encoding: the same dictionaries (names in order, counts), and every row
// of the sparse corpus given back by ExpandRow, bit for bit.
func TestDenseVectorsExpand(t *testing.T) {
	for _, minFreq := range []int{1, 3} {
		r := rand.New(rand.NewPCG(7, uint64(minFreq)))
		m, seqs := randomVectorData(t, r, 40, 6, 120)
		sp, dn, es, ed := encodeBoth(t, m, seqs, minFreq)
		if len(dn.Dense) != 3 || sp.HasDense() {
			t.Fatalf("minFreq %d: %d dense blocks (want 3), sparse corpus has blocks: %v", minFreq, len(dn.Dense), sp.HasDense())
		}
		if err := dn.Validate(3); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(es.Unary().Names(), ed.Unary().Names()) || !slices.Equal(es.Pair().Names(), ed.Pair().Names()) {
			t.Fatalf("minFreq %d: dictionaries differ", minFreq)
		}
		for id := range es.Unary().Len() {
			if a, b := es.Unary().Count(int32(id)), ed.Unary().Count(int32(id)); a != b {
				t.Fatalf("minFreq %d: attribute %s counted %d (sparse) and %d (dense)", minFreq, es.Unary().Name(int32(id)), a, b)
			}
		}
		if dn.Unary.NNZ() >= sp.Unary.NNZ() {
			t.Errorf("minFreq %d: dense corpus stores %d entries, sparse %d", minFreq, dn.Unary.NNZ(), sp.Unary.NNZ())
		}
		x := dn.Expanded()
		if !slices.Equal(x.Unary.RowPtr, sp.Unary.RowPtr) || !slices.Equal(x.Unary.Col, sp.Unary.Col) ||
			!slices.Equal(x.Unary.Val, sp.Unary.Val) || !slices.Equal(x.Pair.Col, sp.Pair.Col) ||
			!slices.Equal(x.Labels, sp.Labels) || !slices.Equal(x.SeqPtr, sp.SeqPtr) || x.NumUnary != sp.NumUnary {
			t.Fatalf("minFreq %d: the expanded dense corpus differs from the sparse one", minFreq)
		}
	}
}

// TestEmbeddingsAllLower checks the lookup of a table whose words are all
// lower-case (one map serves both lookups): exact, then lower-cased.
func TestEmbeddingsAllLower(t *testing.T) {
	m, err := NewEmbeddings([]string{"the", "dog"}, []float64{1, 2, 3, 4}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		word string
		want float64
	}{{"the", 0.25}, {"The", 0.25}, {"DOG", 0.75}, {"cat", 0}} {
		v := m.Lookup(tc.word)
		if (v == nil) != (tc.want == 0) || (v != nil && v[0] != tc.want) {
			t.Errorf("Lookup(%q) = %v, want first value %v", tc.word, v, tc.want)
		}
	}
}
