package scheme_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/inference/inferencetest"
	"github.com/sparsetag/sparsetag/scheme"
)

var schemeLabels = map[scheme.Scheme][]string{
	scheme.IOB1:  {"O", "I-A", "B-A", "I-B", "B-B"},
	scheme.IOB2:  {"O", "B-A", "I-A", "B-B", "I-B"},
	scheme.IOBES: {"O", "B-A", "I-A", "E-A", "S-A", "S-B"},
	scheme.BILOU: {"U-A", "O", "B-A", "I-A", "L-A", "B-B", "L-B"},
}

func labelsOf(t *testing.T, s scheme.Scheme) *scheme.Labels {
	l, err := scheme.NewLabels(s, schemeLabels[s])
	require.NoError(t, err)
	return l
}

func names(s scheme.Scheme, path []int) string {
	var out []string
	for _, y := range path {
		out = append(out, schemeLabels[s][y])
	}
	return strings.Join(out, " ")
}

func parse(t *testing.T, s scheme.Scheme, labels string) []int {
	var path []int
	for _, n := range strings.Fields(labels) {
		y := -1
		for k, m := range schemeLabels[s] {
			if m == n {
				y = k
			}
		}
		require.GreaterOrEqual(t, y, 0, n)
		path = append(path, y)
	}
	return path
}

func TestValid(t *testing.T) {
	cases := []struct {
		s     scheme.Scheme
		path  string
		valid bool
	}{
		{scheme.IOB2, "B-A I-A O B-B", true},
		{scheme.IOB2, "I-A", false},
		{scheme.IOB2, "O I-A", false},
		{scheme.IOB2, "B-A I-B", false},
		{scheme.IOB1, "I-A I-A B-A O I-B", true},
		{scheme.IOB1, "B-A", false},
		{scheme.IOB1, "I-B B-A", false},
		{scheme.IOBES, "B-A I-A E-A S-B O S-A", true},
		{scheme.IOBES, "B-A O", false},
		{scheme.IOBES, "B-A", false},
		{scheme.IOBES, "O I-A E-A", false},
		{scheme.IOBES, "E-A", false},
		{scheme.BILOU, "B-A I-A L-A U-A O B-B L-B", true},
		{scheme.BILOU, "B-A L-B", false},
	}
	for _, c := range cases {
		l := labelsOf(t, c.s)
		assert.Equal(t, c.valid, l.Valid(parse(t, c.s, c.path)), "%s %s", c.s, c.path)
	}
}

func TestSpans(t *testing.T) {
	cases := []struct {
		s    scheme.Scheme
		path string
		want []scheme.Span
	}{
		{scheme.IOB2, "B-A I-A O B-B B-B I-B", []scheme.Span{{0, 2, 0, 0}, {3, 4, 1, 0}, {4, 6, 1, 0}}},
		{scheme.IOB1, "I-A I-A B-A O I-B", []scheme.Span{{0, 2, 0, 0}, {2, 3, 0, 0}, {4, 5, 1, 0}}},
		{scheme.IOBES, "B-A E-A S-A S-B O B-A I-A E-A", []scheme.Span{{0, 2, 0, 0}, {2, 3, 0, 0}, {3, 4, 1, 0}, {5, 8, 0, 0}}},
		{scheme.BILOU, "U-A B-B L-B", []scheme.Span{{0, 1, 0, 0}, {1, 3, 1, 0}}},
		// invalid paths, read as conlleval reads them
		{scheme.IOB2, "O I-A I-A I-B", []scheme.Span{{1, 3, 0, 0}, {3, 4, 1, 0}}},
		{scheme.IOBES, "I-A E-A I-A", []scheme.Span{{0, 2, 0, 0}, {2, 3, 0, 0}}},
	}
	for _, c := range cases {
		l := labelsOf(t, c.s)
		assert.Equal(t, c.want, l.Spans(nil, parse(t, c.s, c.path)), "%s %s", c.s, c.path)
	}
}

func TestNewLabelsRefuses(t *testing.T) {
	_, err := scheme.NewLabels(scheme.IOB2, []string{"O", "B-A", "E-A", "S-B"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "E-A S-B")
	_, err = scheme.NewLabels(scheme.IOBES, []string{"NN", "VB"})
	assert.ErrorContains(t, err, "NN VB")
	_, err = scheme.NewLabels(scheme.IOB2, []string{"O"})
	assert.ErrorContains(t, err, "no iob2 chunk label")
	// IOB2 labels read as IOBES can never close a chunk
	_, err = scheme.NewLabels(scheme.IOBES, []string{"O", "B-NP", "I-NP", "S-VP"})
	assert.ErrorContains(t, err, "cannot mark a iobes chunk of type NP")
	_, err = scheme.NewLabels(scheme.IOB2, []string{"O", "B-NP", "I-NP", "I-VP"})
	assert.ErrorContains(t, err, "of type VP (B-X needed)")
}

func TestParseDetect(t *testing.T) {
	for _, n := range scheme.Names {
		s, err := scheme.Parse(strings.ToUpper(n))
		require.NoError(t, err)
		assert.Equal(t, n, s.String())
	}
	_, err := scheme.Parse("ioe")
	assert.Error(t, err)
	assert.Equal(t, scheme.BILOU, scheme.Detect(schemeLabels[scheme.BILOU]))
	assert.Equal(t, scheme.IOBES, scheme.Detect(schemeLabels[scheme.IOBES]))
	assert.Equal(t, scheme.IOB2, scheme.Detect(schemeLabels[scheme.IOB2]))
}

// brute holds what enumeration gives under the scheme's distribution: the
// probability of every span and the valid path of highest Σ log marginal.
type brute struct {
	span      map[[3]int]float64
	node      []float64
	bestPost  []int
	anyValid  bool
	validMass float64
}

func enumerate(l *scheme.Labels, lat *inference.Lattice) brute {
	T, L := lat.T, lat.L
	n := 1
	for range T {
		n *= L
	}
	path := make([]int, T)
	var paths [][]int
	var logw []float64
	maxw := math.Inf(-1)
	for k := range n {
		x := k
		for t := range T {
			path[t] = x % L
			x /= L
		}
		if !l.Valid(path) {
			continue
		}
		w := inference.Score(lat, path)
		paths = append(paths, append([]int(nil), path...))
		logw = append(logw, w)
		maxw = math.Max(maxw, w)
	}
	b := brute{span: map[[3]int]float64{}, node: make([]float64, T*L)}
	if len(paths) == 0 {
		return b
	}
	b.anyValid = true
	z := 0.0
	for _, w := range logw {
		z += math.Exp(w - maxw)
	}
	for k, p := range paths {
		pr := math.Exp(logw[k]-maxw) / z
		b.validMass += pr
		for t, y := range p {
			b.node[t*L+y] += pr
		}
		for _, sp := range l.Spans(nil, p) {
			b.span[[3]int{sp.Start, sp.End, sp.Type}] += pr
		}
	}
	best := math.Inf(-1)
	for _, p := range paths {
		s := 0.0
		for t, y := range p {
			s += math.Log(b.node[t*L+y])
		}
		if s > best {
			best, b.bestPost = s, p
		}
	}
	return b
}

// TestSpanProbBruteForce checks every span's marginal probability (all
// starts, ends and types) and posterior decoding against enumeration of
// all valid label sequences, on random lattices of every scheme.
func TestSpanProbBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	ws := inference.NewWorkspace(0, 0)
	for _, s := range []scheme.Scheme{scheme.IOB1, scheme.IOB2, scheme.IOBES, scheme.BILOU} {
		l := labelsOf(t, s)
		cs := chain.SchemeConstraints(l)
		for trial := range 40 {
			T := 1 + trial%5
			lat := inferencetest.RandomLattice(rng, T, l.Len(), 2, trial%3 == 0, trial%2 == 0)
			b := enumerate(l, lat)
			var d chain.Decoding
			err := chain.DecodeLattice(ws, lat, &d, &chain.DecodeOptions{Constraints: cs, Spans: l, MaxMarginal: true})
			require.NoError(t, err)
			require.True(t, l.Valid(d.Paths[0]), "%s: posterior path %s invalid", s, names(s, d.Paths[0]))
			assert.Equal(t, b.bestPost, d.Paths[0], "%s T=%d posterior decoding", s, T)
			for _, sp := range d.Spans {
				want := b.span[[3]int{sp.Start, sp.End, sp.Type}]
				assert.InDelta(t, want, sp.Prob, 1e-9, "%s T=%d span %v", s, T, sp)
			}
			var sw scheme.SpanWorkspace
			for i := range T {
				for j := i + 1; j <= T; j++ {
					for typ := range l.Types() {
						got := l.SpanProb(&sw, ws, lat, scheme.Span{Start: i, End: j, Type: typ})
						want := b.span[[3]int{i, j, typ}]
						require.False(t, math.IsNaN(got))
						assert.InDelta(t, want, got, 1e-9, "%s T=%d span [%d,%d) %s", s, T, i, j, l.Types()[typ])
					}
				}
			}
		}
	}
}

// TestConstrainedNeverInvalid: Viterbi, n-best and posterior decoding
// under a scheme's constraints never give an invalid sequence, on 100,000
// random lattices (scores scaled up so that invalid paths would often win
// without the constraints).
func TestConstrainedNeverInvalid(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 5000
	}
	rng := rand.New(rand.NewPCG(2, 2))
	ws := inference.NewWorkspace(0, 0)
	all := []scheme.Scheme{scheme.IOB1, scheme.IOB2, scheme.IOBES, scheme.BILOU}
	ls := make([]*scheme.Labels, len(all))
	css := make([]*chain.Constraints, len(all))
	for k, s := range all {
		ls[k] = labelsOf(t, s)
		css[k] = chain.SchemeConstraints(ls[k])
	}
	var d chain.Decoding
	invalid := 0
	for trial := range n {
		k := trial % len(all)
		l := ls[k]
		lat := inferencetest.RandomLattice(rng, 1+rng.IntN(12), l.Len(), 4, false, false)
		opt := chain.DecodeOptions{Constraints: css[k]}
		switch trial % 3 {
		case 1:
			opt.MaxMarginal = true
		case 2:
			opt.N = 3
		}
		require.NoError(t, chain.DecodeLattice(ws, lat, &d, &opt))
		for _, p := range d.Paths {
			if !l.Valid(p) {
				invalid++
			}
		}
	}
	assert.Zero(t, invalid)
}
