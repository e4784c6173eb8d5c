// Command vectors trains small word vectors on the text of the embedded
// CoNLL-2000 training set, for measuring --embeddings without downloading
// anything: a deterministic truncated SVD of the positive pointwise mutual
// information (PPMI) matrix of word co-occurrences.
//
//	go run ./examples/vectors -dim 50 -o conll2000-50d.txt
//
// The method, step by step:
//
//  1. Words are lower-cased; the vocabulary is every word seen at least
//     -min-count times (2 by default), in order of decreasing count, ties
//     in byte order.
//  2. Co-occurrences are counted in a symmetric window of -window words (2)
//     on either side, within a sentence, weight 1.
//  3. PPMI(w, c) = max(0, log(P(w,c) / (P(w) P(c)))) with the marginals
//     of the co-occurrence counts (no smoothing).
//  4. The PPMI matrix M (sparse, V×V) is factored by a randomized SVD
//     (Halko, Martinsson and Tropp 2011, algorithms 4.4 and 5.1): a
//     Gaussian test matrix of dim+10 columns drawn from a PCG generator
//     with a fixed seed, two power iterations with QR re-orthonormalisation,
//     then the exact SVD of the small projected matrix.
//  5. The vector of a word is its row of U·sqrt(Σ), dim columns.
//
// The output is the word2vec text format with its "N D" header, values with
// 5 significant digits. Everything is sequential with a fixed seed, so the
// file is the same on every run.
package main

import (
	"bufio"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/internal/atomicfile"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "vectors:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("vectors", flag.ContinueOnError)
	dim := fs.Int("dim", 50, "the `dimension` of the vectors")
	window := fs.Int("window", 2, "co-occurrence `words` on either side")
	minCount := fs.Int("min-count", 2, "the least `count` of a word in the vocabulary")
	out := fs.String("o", "", "the output `file` (word2vec text format)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || *dim < 1 || *window < 1 || *minCount < 1 {
		return errors.New("want -o FILE, -dim, -window and -min-count at least 1")
	}
	seqs, err := corpora.EmbeddedCoNLL2000("train")
	if err != nil {
		return err
	}
	sents := make([][]string, len(seqs))
	for i, s := range seqs {
		for _, tok := range s.Tokens {
			sents[i] = append(sents[i], strings.ToLower(tok[0]))
		}
	}
	vocab, index := vocabulary(sents, *minCount)
	m := ppmi(sents, index, len(vocab), *window)
	vecs := randomizedSVD(m, len(vocab), *dim)
	err = atomicfile.Write(*out, func(w io.Writer) error { return write(w, vocab, vecs) }, nil)
	if err == nil {
		fmt.Fprintf(stdout, "%d words, dimension %d, written to %s\n", len(vocab), *dim, *out)
	}
	return err
}

// vocabulary returns the words seen at least minCount times, by decreasing
// count then bytes, and their indices.
func vocabulary(sents [][]string, minCount int) ([]string, map[string]int) {
	counts := map[string]int{}
	for _, s := range sents {
		for _, w := range s {
			counts[w]++
		}
	}
	var vocab []string
	for w, n := range counts {
		if n >= minCount {
			vocab = append(vocab, w)
		}
	}
	slices.SortFunc(vocab, func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b))
	})
	index := make(map[string]int, len(vocab))
	for i, w := range vocab {
		index[w] = i
	}
	return vocab, index
}

// csr is a sparse square matrix in compressed rows.
type csr struct {
	ptr []int
	col []int
	val []float64
}

// ppmi returns the PPMI matrix of the co-occurrences within window words.
func ppmi(sents [][]string, index map[string]int, v, window int) *csr {
	pairs := make([]map[int]float64, v)
	for i := range pairs {
		pairs[i] = map[int]float64{}
	}
	for _, s := range sents {
		for i, w := range s {
			a, ok := index[w]
			if !ok {
				continue
			}
			for j := max(0, i-window); j <= min(len(s)-1, i+window); j++ {
				if b, ok := index[s[j]]; ok && j != i {
					pairs[a][b]++
				}
			}
		}
	}
	row := make([]float64, v)
	total := 0.0
	for a, p := range pairs {
		for _, n := range p {
			row[a] += n
			total += n
		}
	}
	m := &csr{ptr: []int{0}}
	for a, p := range pairs {
		cols := slices.Sorted(func(yield func(int) bool) {
			for b := range p {
				if !yield(b) {
					return
				}
			}
		})
		for _, b := range cols {
			if x := math.Log(p[b] * total / (row[a] * row[b])); x > 0 {
				m.col, m.val = append(m.col, b), append(m.val, x)
			}
		}
		m.ptr = append(m.ptr, len(m.col))
	}
	return m
}

// mulDense returns m·x (m symmetric, so also mᵀ·x).
func (m *csr) mulDense(x *mat.Dense) *mat.Dense {
	_, k := x.Dims()
	y := mat.NewDense(len(m.ptr)-1, k, nil)
	for r := 0; r+1 < len(m.ptr); r++ {
		dst := y.RawRowView(r)
		for p := m.ptr[r]; p < m.ptr[r+1]; p++ {
			src, v := x.RawRowView(m.col[p]), m.val[p]
			for j := range dst {
				dst[j] += v * src[j]
			}
		}
	}
	return y
}

// orthonormal returns an orthonormal basis of the columns of y, by
// modified Gram-Schmidt done twice (enough for a well-conditioned y).
func orthonormal(y *mat.Dense) *mat.Dense {
	_, c := y.Dims()
	q := mat.DenseCopyOf(y)
	col := make([][]float64, c)
	for j := range c {
		col[j] = mat.Col(nil, j, q)
	}
	for range 2 {
		for j := range c {
			for i := range j {
				dot := floats.Dot(col[i], col[j])
				floats.AddScaled(col[j], -dot, col[i])
			}
			if n := floats.Norm(col[j], 2); n > 0 {
				floats.Scale(1/n, col[j])
			}
		}
	}
	for j := range c {
		q.SetCol(j, col[j])
	}
	return q
}

// randomizedSVD returns the rows of U·sqrt(Σ) (dim columns) of the
// symmetric matrix m of order v.
func randomizedSVD(m *csr, v, dim int) *mat.Dense {
	k := min(dim+10, v)
	rng := rand.New(rand.NewPCG(38, 2000))
	omega := mat.NewDense(v, k, nil)
	for i := range v {
		for j := range k {
			omega.Set(i, j, rng.NormFloat64())
		}
	}
	q := orthonormal(m.mulDense(omega))
	for range 2 {
		q = orthonormal(m.mulDense(q))
	}
	b := m.mulDense(q) // B = Qᵀ M, stored transposed (M is symmetric): v×k
	var svd mat.SVD
	if !svd.Factorize(b.T(), mat.SVDThin) {
		panic("vectors: SVD did not converge")
	}
	var ut mat.Dense
	svd.UTo(&ut) // k×k
	s := svd.Values(nil)
	var u mat.Dense
	u.Mul(q, &ut) // v×k: the left singular vectors of M
	d := min(dim, k)
	out := mat.NewDense(v, d, nil)
	for i := range v {
		for j := range d {
			out.Set(i, j, u.At(i, j)*math.Sqrt(s[j]))
		}
	}
	return out
}

func write(w io.Writer, vocab []string, vecs *mat.Dense) error {
	bw := bufio.NewWriter(w)
	_, d := vecs.Dims()
	fmt.Fprintf(bw, "%d %d\n", len(vocab), d)
	var b []byte
	for i, word := range vocab {
		b = append(b[:0], word...)
		for _, x := range vecs.RawRowView(i) {
			b = append(b, ' ')
			b = strconv.AppendFloat(b, x, 'g', 5, 64)
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}
