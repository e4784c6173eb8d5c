package inference_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/inference/inferencetest"
	"github.com/sparsetag/sparsetag/internal/numtest"
)

func checkFinite(t *testing.T, name string, x []float64) {
	t.Helper()
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%s[%d] = %v", name, i, v)
		}
	}
}

// checkAgainst compares every quantity of inference on lat with the oracle.
func checkAgainst(t *testing.T, ws *inference.Workspace, lat *inference.Lattice, want inferencetest.Result, tol float64) {
	t.Helper()
	logZ := inference.ForwardBackward(ws, lat)
	numtest.RequireClose(t, want.LogZ, logZ, tol, tol, "logZ")
	numtest.RequireSlices(t, want.Node, ws.Node(), tol, tol, "Node")
	numtest.RequireSlices(t, want.EdgeSum, ws.EdgeSum(), tol, tol, "EdgeSum")
	var buf []float64
	for tt := 1; tt < lat.T; tt++ {
		buf = ws.EdgeAt(buf, lat, tt)
		numtest.RequireSlices(t, want.EdgeAt[tt], buf, tol, tol, "EdgeAt(%d)", tt)
	}
	numtest.RequireClose(t, want.ExpectedScore, inference.ExpectedScore(ws, lat), tol, tol, "ExpectedScore")
	numtest.RequireClose(t, want.Entropy, inference.Entropy(ws, lat), tol, tol, "Entropy")

	path := make([]int, lat.T)
	best := inference.Viterbi(ws, lat, path)
	numtest.RequireClose(t, want.BestScore, best, tol, tol, "Viterbi score")
	require.Equal(t, want.Best, path, "Viterbi path")
	if s := inference.Score(lat, path); !math.IsInf(best, -1) && s != best {
		t.Fatalf("Score(Viterbi path) = %v, Viterbi returned %v: the summation orders differ", s, best)
	}
	hi, lo := inference.MaxMin(ws, lat)
	numtest.RequireClose(t, want.Max, hi, tol, tol, "Max")
	numtest.RequireClose(t, want.Min, lo, tol, tol, "Min")

	// Viterbi and MaxMin must not disturb the ForwardBackward results.
	numtest.RequireSlices(t, want.Node, ws.Node(), tol, tol, "Node after Viterbi")
	if lat.T > 1 {
		buf = ws.EdgeAt(buf, lat, lat.T-1)
		numtest.RequireSlices(t, want.EdgeAt[lat.T-1], buf, tol, tol, "EdgeAt after Viterbi")
	}
}

type variant struct {
	transAt, startEnd, transNil bool
}

func variants() []variant {
	var vs []variant
	for _, a := range []bool{false, true} {
		for _, b := range []bool{false, true} {
			for _, c := range []bool{false, true} {
				vs = append(vs, variant{a, b, c})
			}
		}
	}
	return vs
}

func (v variant) String() string {
	return fmt.Sprintf("transAt=%v/startEnd=%v/transNil=%v", v.transAt, v.startEnd, v.transNil)
}

func randomLattice(rng *rand.Rand, T, L int, scale float64, v variant) *inference.Lattice {
	lat := inferencetest.RandomLattice(rng, T, L, scale, v.transAt, v.startEnd)
	if v.transNil {
		lat.Trans = nil
	}
	return lat
}

// TestTinyAgainstEnumerate: on seeded random lattices with T ≤ 6, L ≤ 4,
// both paths (exp-space and forced log-space) agree with brute force to
// 1e-10 on every quantity.
func TestTinyAgainstEnumerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, v := range variants() {
		for T := 0; T <= 6; T++ {
			for L := 1; L <= 4; L++ {
				lat := randomLattice(rng, T, L, 2, v)
				want := inferencetest.Enumerate(lat)
				for _, forceLog := range []bool{false, true} {
					name := fmt.Sprintf("%v/T=%d/L=%d/log=%v", v, T, L, forceLog)
					t.Run(name, func(t *testing.T) {
						ws := inference.NewWorkspace(1, 1) // too small: must grow
						inference.SetForceLogSpace(ws, forceLog)
						checkAgainst(t, ws, lat, want, 1e-10)
						if T > 0 {
							assert.Equal(t, forceLog, inference.UsedLogSpace(ws), "UsedLogSpace")
						}
					})
				}
			}
		}
	}
}

// TestWideRangeAgainstEnumerate: scores of ±400 exceed the exp-space guard
// at some positions; whatever path ForwardBackward takes, it must agree with
// brute force.
func TestWideRangeAgainstEnumerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, v := range variants() {
		for _, scale := range []float64{40, 150, 400} {
			T, L := 5, 3
			lat := randomLattice(rng, T, L, scale, v)
			want := inferencetest.Enumerate(lat)
			t.Run(fmt.Sprintf("%v/scale=%v", v, scale), func(t *testing.T) {
				checkAgainst(t, inference.NewWorkspace(T, L), lat, want, 1e-10)
			})
		}
	}
}

// forbid sets about a fraction frac of the entries of x to -Inf.
func forbid(rng *rand.Rand, x []float64, frac float64) {
	for i := range x {
		if rng.Float64() < frac {
			x[i] = math.Inf(-1)
		}
	}
}

// TestConstrainedAgainstEnumerate: -Inf scores (forbidden labels and
// transitions) give no NaN and agree with brute force, including lattices
// where no sequence is finite.
func TestConstrainedAgainstEnumerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	noPath := 0
	for _, v := range variants() {
		for i := 0; i < 12; i++ {
			T, L := 1+rng.IntN(6), 1+rng.IntN(4)
			scale := []float64{1, 3, 200}[i%3]
			lat := randomLattice(rng, T, L, scale, v)
			forbid(rng, lat.Unary, 0.3)
			forbid(rng, lat.Trans, 0.3)
			forbid(rng, lat.TransAt, 0.2)
			forbid(rng, lat.Start, 0.3)
			forbid(rng, lat.End, 0.3)
			want := inferencetest.Enumerate(lat)
			if math.IsInf(want.LogZ, -1) {
				noPath++
			}
			for _, forceLog := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/%d/log=%v", v, i, forceLog), func(t *testing.T) {
					ws := inference.NewWorkspace(T, L)
					inference.SetForceLogSpace(ws, forceLog)
					checkAgainst(t, ws, lat, want, 1e-10)
				})
			}
		}
	}
	if noPath == 0 {
		t.Log("no lattice without a finite path was drawn")
	}
}

// TestNoFinitePath: every sequence is forbidden.
func TestNoFinitePath(t *testing.T) {
	inf := math.Inf(-1)
	lat := &inference.Lattice{T: 3, L: 2,
		Unary: []float64{0, 0, 1, 2, 0, 0},
		Trans: []float64{inf, inf, inf, inf}}
	for _, forceLog := range []bool{false, true} {
		ws := inference.NewWorkspace(3, 2)
		inference.SetForceLogSpace(ws, forceLog)
		require.Equal(t, inf, inference.ForwardBackward(ws, lat), "logZ")
		numtest.RequireSlices(t, make([]float64, 6), ws.Node(), 0, 0, "Node")
		numtest.RequireSlices(t, make([]float64, 4), ws.EdgeSum(), 0, 0, "EdgeSum")
		numtest.RequireSlices(t, make([]float64, 4), ws.EdgeAt(nil, lat, 1), 0, 0, "EdgeAt")
		assert.Equal(t, inf, inference.ExpectedScore(ws, lat), "ExpectedScore")
		assert.Equal(t, 0.0, inference.Entropy(ws, lat), "Entropy")
		path := []int{9, 9, 9}
		assert.Equal(t, inf, inference.Viterbi(ws, lat, path), "Viterbi score")
		assert.Equal(t, []int{0, 0, 0}, path, "Viterbi path")
	}
}

// TestTransAtBlockZeroIgnored: block t = 0 of TransAt must never be read.
func TestTransAtBlockZeroIgnored(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	lat := inferencetest.RandomLattice(rng, 4, 3, 1, true, true)
	clear(lat.TransAt[:9])
	want := inferencetest.Enumerate(lat)
	for i := range 9 {
		lat.TransAt[i] = math.NaN()
	}
	for _, forceLog := range []bool{false, true} {
		ws := inference.NewWorkspace(4, 3)
		inference.SetForceLogSpace(ws, forceLog)
		checkAgainst(t, ws, lat, want, 1e-10)
	}
}

// TestViterbiTies: on lattices of small integer scores (exact sums, many
// exact ties) Viterbi returns the path the oracle picks with the documented
// rule.
func TestViterbiTies(t *testing.T) {
	// Hand-derived case: unary all 0, Trans[0→1] = Trans[1→0] = 1. The
	// optimal paths are [0 1] and [1 0] (score 1). Comparing from the last
	// position, [1 0] < [0 1], so Viterbi returns [1 0].
	lat := &inference.Lattice{T: 2, L: 2, Unary: make([]float64, 4), Trans: []float64{0, 1, 1, 0}}
	ws := inference.NewWorkspace(2, 2)
	path := make([]int, 2)
	assert.Equal(t, 1.0, inference.Viterbi(ws, lat, path))
	assert.Equal(t, []int{1, 0}, path)
	// All zero: every path ties; the lowest label wins everywhere.
	zero := &inference.Lattice{T: 5, L: 3, Unary: make([]float64, 15)}
	path = make([]int, 5)
	assert.Equal(t, 0.0, inference.Viterbi(ws, zero, path))
	assert.Equal(t, []int{0, 0, 0, 0, 0}, path)
	rng := rand.New(rand.NewPCG(5, 5))
	for i := 0; i < 300; i++ {
		T, L := 1+rng.IntN(6), 1+rng.IntN(4)
		lat := inferencetest.RandomLattice(rng, T, L, 1, i%2 == 0, i%3 == 0)
		for _, x := range [][]float64{lat.Unary, lat.Trans, lat.TransAt, lat.Start, lat.End} {
			for k := range x {
				x[k] = float64(rng.IntN(3)) // 0, 1 or 2
			}
		}
		want := inferencetest.Enumerate(lat)
		path := make([]int, T)
		require.Equal(t, want.BestScore, inference.Viterbi(ws, lat, path), "case %d: Viterbi score", i)
		require.Equal(t, want.Best, path, "case %d: Viterbi path", i)
	}
}

// TestZeroScoresClosedForm: with all scores zero every sequence has
// probability L^-T, so log Z = T log L, P(y_t = y) = 1/L, each pairwise
// marginal is 1/L², EdgeSum = (T-1)/L², H = T log L and E[score] = 0.
func TestZeroScoresClosedForm(t *testing.T) {
	T, L := 1000, 5
	if testing.Short() {
		T = 200
	}
	lats := map[string]*inference.Lattice{
		"nil":    {T: T, L: L, Unary: make([]float64, T*L)},
		"zeros":  {T: T, L: L, Unary: make([]float64, T*L), Trans: make([]float64, L*L), TransAt: make([]float64, T*L*L), Start: make([]float64, L), End: make([]float64, L)},
		"shifts": shifted(T, L),
	}
	for name, lat := range lats {
		for _, forceLog := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/log=%v", name, forceLog), func(t *testing.T) {
				ws := inference.NewWorkspace(T, L)
				inference.SetForceLogSpace(ws, forceLog)
				logZ := inference.ForwardBackward(ws, lat)
				shift := 0.0
				if name == "shifts" {
					shift = shiftTotal(T)
				}
				numtest.RequireClose(t, float64(T)*math.Log(float64(L))+shift, logZ, 1e-12, 1e-12, "logZ")
				numtest.RequireSlices(t, fillF(T*L, 1/float64(L)), ws.Node(), 1e-12, 1e-12, "Node")
				numtest.RequireSlices(t, fillF(L*L, float64(T-1)/float64(L*L)), ws.EdgeSum(), 1e-12, 1e-12, "EdgeSum")
				numtest.RequireSlices(t, fillF(L*L, 1/float64(L*L)), ws.EdgeAt(nil, lat, T/2), 1e-12, 1e-12, "EdgeAt")
				numtest.RequireClose(t, float64(T)*math.Log(float64(L)), inference.Entropy(ws, lat), 1e-9, 1e-9, "Entropy")
				numtest.RequireClose(t, shift, inference.ExpectedScore(ws, lat), 1e-9, 1e-9, "ExpectedScore")
			})
		}
	}
}

// shifted returns a lattice where each unary row t is the constant 1000·(-1)^t:
// a constant per position does not change the distribution, it only adds
// shiftTotal(T) to every score. The rows are constant, so their range is 0
// and the exp-space path must still be taken and be exact.
func shifted(T, L int) *inference.Lattice {
	lat := &inference.Lattice{T: T, L: L, Unary: make([]float64, T*L)}
	for t := 0; t < T; t++ {
		for y := 0; y < L; y++ {
			lat.Unary[t*L+y] = 1000 * float64(1-2*(t%2))
		}
	}
	return lat
}

func shiftTotal(T int) float64 {
	if T%2 == 0 {
		return 0
	}
	return 1000
}

func fillF(n int, v float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = v
	}
	return x
}

// TestIndependentPositionsClosedForm: with no transitions the positions are
// independent, so log Z = Σ_t logsumexp(u_t) and P(y_t = y) =
// softmax(u_t)(y), computed here directly. Scores of ±1e3 at T = 1000.
func TestIndependentPositionsClosedForm(t *testing.T) {
	T, L := 1000, 5
	rng := rand.New(rand.NewPCG(6, 6))
	lat := inferencetest.RandomLattice(rng, T, L, 1e3, false, false)
	lat.Trans = nil
	wantZ := 0.0
	wantNode := make([]float64, T*L)
	for tt := 0; tt < T; tt++ {
		u := lat.Unary[tt*L : tt*L+L]
		m := math.Inf(-1)
		for _, v := range u {
			m = math.Max(m, v)
		}
		s := 0.0
		for _, v := range u {
			s += math.Exp(v - m)
		}
		wantZ += m + math.Log(s)
		for y, v := range u {
			wantNode[tt*L+y] = math.Exp(v-m) / s
		}
	}
	for _, forceLog := range []bool{false, true} {
		ws := inference.NewWorkspace(T, L)
		inference.SetForceLogSpace(ws, forceLog)
		logZ := inference.ForwardBackward(ws, lat)
		if !inference.UsedLogSpace(ws) {
			t.Fatalf("ranges of 2e3 must select the log-space path")
		}
		numtest.RequireClose(t, wantZ, logZ, 1e-12, 1e-12, "logZ")
		numtest.RequireSlices(t, wantNode, ws.Node(), 1e-10, 1e-10, "Node")
	}
}

// TestLargeChain: T = 1000, L = 5, scores ±1e3 with TransAt, Start and End.
func TestLargeChain(t *testing.T) {
	T, L := 1000, 5
	rng := rand.New(rand.NewPCG(7, 7))
	lat := inferencetest.RandomLattice(rng, T, L, 1e3, true, true)
	ws := inference.NewWorkspace(T, L)
	logZ := inference.ForwardBackward(ws, lat)
	if math.IsNaN(logZ) || math.IsInf(logZ, 0) {
		t.Fatalf("logZ = %v", logZ)
	}
	if !inference.UsedLogSpace(ws) {
		t.Fatalf("scores of ±1e3 must select the log-space path")
	}
	// Log values of ±1e3 carry absolute rounding errors of ~1e-13 each, so
	// the marginals are good to ~1e-11, not to 1e-15.
	checkMarginals(t, ws, lat, 1e-10)
	path := make([]int, T)
	best := inference.Viterbi(ws, lat, path)
	hi, lo := inference.MaxMin(ws, lat)
	// max ≤ log Z ≤ max + T log L, since Z is a sum of L^T terms ≤ e^max.
	if best > logZ || logZ > best+float64(T)*math.Log(float64(L)) {
		t.Fatalf("Viterbi score %v, log Z %v: want best ≤ log Z ≤ best + T log L", best, logZ)
	}
	if best != hi || lo >= hi {
		t.Fatalf("MaxMin = (%v, %v), Viterbi = %v", hi, lo, best)
	}
	if s := inference.Score(lat, path); s != best {
		t.Fatalf("Score(path) = %v, Viterbi = %v", s, best)
	}
	h := inference.Entropy(ws, lat)
	if h < 0 || h > float64(T)*math.Log(float64(L)) {
		t.Fatalf("Entropy = %v out of [0, T log L]", h)
	}
}

// checkMarginals: node rows sum to 1; each EdgeAt sums to 1 and its row and
// column sums are the node marginals of t-1 and t; EdgeSum is the sum of the
// EdgeAt.
func checkMarginals(t *testing.T, ws *inference.Workspace, lat *inference.Lattice, tol float64) {
	t.Helper()
	T, L := lat.T, lat.L
	node := ws.Node()
	checkFinite(t, "Node", node)
	sum := make([]float64, L*L)
	var e []float64
	for tt := 0; tt < T; tt++ {
		s := 0.0
		for _, v := range node[tt*L : tt*L+L] {
			s += v
		}
		numtest.RequireClose(t, 1, s, tol, tol, "Σ Node[%d]", tt)
		if tt == 0 {
			continue
		}
		e = ws.EdgeAt(e, lat, tt)
		checkFinite(t, "EdgeAt", e)
		for p := 0; p < L; p++ {
			rs, cs := 0.0, 0.0
			for c := 0; c < L; c++ {
				rs += e[p*L+c]
				cs += e[c*L+p]
			}
			numtest.RequireClose(t, node[(tt-1)*L+p], rs, tol, tol, "EdgeAt row sum")
			numtest.RequireClose(t, node[tt*L+p], cs, tol, tol, "EdgeAt col sum")
		}
		for k, v := range e {
			sum[k] += v
		}
	}
	numtest.RequireSlices(t, sum, ws.EdgeSum(), 1e-9, 1e-9, "EdgeSum")
}

// TestLargeExpMatchesLog: where both paths are valid (T = 1000, moderate
// scores), the exp-space and log-space paths agree.
func TestLargeExpMatchesLog(t *testing.T) {
	T, L := 1000, 5
	rng := rand.New(rand.NewPCG(8, 8))
	for _, v := range variants() {
		lat := randomLattice(rng, T, L, 20, v)
		we := inference.NewWorkspace(T, L)
		wl := inference.NewWorkspace(T, L)
		inference.SetForceLogSpace(wl, true)
		ze := inference.ForwardBackward(we, lat)
		zl := inference.ForwardBackward(wl, lat)
		if inference.UsedLogSpace(we) {
			t.Fatalf("%v: scores of ±20 must take the exp-space path", v)
		}
		checkMarginals(t, we, lat, 1e-12)
		numtest.RequireClose(t, zl, ze, 1e-12, 1e-12, "logZ")
		numtest.RequireSlices(t, wl.Node(), we.Node(), 1e-10, 1e-10, "Node")
		numtest.RequireSlices(t, wl.EdgeSum(), we.EdgeSum(), 1e-9, 1e-9, "EdgeSum")
		numtest.RequireClose(t, inference.ExpectedScore(wl, lat), inference.ExpectedScore(we, lat), 1e-10, 1e-10, "ExpectedScore")
		numtest.RequireClose(t, inference.Entropy(wl, lat), inference.Entropy(we, lat), 1e-8, 1e-8, "Entropy")
	}
}

// TestSeparatedTracksFallBack: two label tracks that cannot cross (the
// transitions between them are -Inf). Track 1 costs 250 per position, within
// the per-step range guard, so its normalised forward value shrinks as
// e^{-250 t} and would underflow; End forbids track 0, so track 1 is the
// only finite sequence and log Z = -250·T exactly, with all mass on label 1.
func TestSeparatedTracksFallBack(t *testing.T) {
	T, L := 12, 2
	inf := math.Inf(-1)
	lat := &inference.Lattice{T: T, L: L, Unary: make([]float64, T*L),
		Trans: []float64{0, inf, inf, 0}, End: []float64{inf, 0}}
	for tt := 0; tt < T; tt++ {
		lat.Unary[tt*L+1] = -250
	}
	want := make([]float64, T*L)
	for tt := 0; tt < T; tt++ {
		want[tt*L+1] = 1
	}
	ws := inference.NewWorkspace(T, L)
	logZ := inference.ForwardBackward(ws, lat)
	if !inference.UsedLogSpace(ws) {
		t.Fatalf("the forward floor guard must select the log-space path")
	}
	numtest.RequireClose(t, -250*float64(T), logZ, 1e-12, 1e-12, "logZ")
	numtest.RequireSlices(t, want, ws.Node(), 1e-12, 1e-12, "Node")
	numtest.RequireClose(t, 0, inference.Entropy(ws, lat), 1e-9, 1e-9, "Entropy")
	// The same lattice with a mild cost stays on the exp-space path.
	for tt := 0; tt < T; tt++ {
		lat.Unary[tt*L+1] = -2
	}
	numtest.RequireClose(t, -2*float64(T), inference.ForwardBackward(ws, lat), 1e-12, 1e-12, "logZ")
	numtest.RequireSlices(t, want, ws.Node(), 1e-12, 1e-12, "Node")
	if inference.UsedLogSpace(ws) {
		t.Fatalf("a mild lattice must take the exp-space path")
	}
}

// TestTransCache: ForwardBackward caches exp(Trans); changing Trans in
// place (as a trainer does with its weight vector) must be seen.
func TestTransCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	lat := inferencetest.RandomLattice(rng, 5, 3, 1, false, false)
	ws := inference.NewWorkspace(5, 3)
	inference.ForwardBackward(ws, lat)
	for k := range lat.Trans {
		lat.Trans[k] += 0.5 * float64(k%3)
		checkAgainst(t, ws, lat, inferencetest.Enumerate(lat), 1e-10)
	}
	// Switching between Trans == nil, a different L and back.
	lat2 := inferencetest.RandomLattice(rng, 4, 2, 1, false, false)
	checkAgainst(t, ws, lat2, inferencetest.Enumerate(lat2), 1e-10)
	lat2.Trans = nil
	checkAgainst(t, ws, lat2, inferencetest.Enumerate(lat2), 1e-10)
	checkAgainst(t, ws, lat, inferencetest.Enumerate(lat), 1e-10)
}

// TestWorkspaceReuse: a workspace used on lattices of changing sizes gives
// bit-identical results to a fresh one.
func TestWorkspaceReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	ws := new(inference.Workspace) // the zero value is usable
	for i := 0; i < 30; i++ {
		T, L := rng.IntN(12), 1+rng.IntN(8)
		lat := inferencetest.RandomLattice(rng, T, L, 3, i%2 == 0, i%3 == 0)
		fresh := inference.NewWorkspace(T, L)
		if a, b := inference.ForwardBackward(ws, lat), inference.ForwardBackward(fresh, lat); a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
			t.Fatalf("case %d: logZ %v vs fresh %v", i, a, b)
		}
		numtest.RequireSlices(t, fresh.Node(), ws.Node(), 0, 0, "Node")
		numtest.RequireSlices(t, fresh.EdgeSum(), ws.EdgeSum(), 0, 0, "EdgeSum")
	}
}

// TestForwardBackwardTo: the marginals written into the caller's buffer
// are the bits ForwardBackward gives (both paths, every lattice variant),
// and so are everything read after it; the entries of the buffer past T*L
// are left alone, and the next ForwardBackward writes its own buffer again,
// not the caller's.
func TestForwardBackwardTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	for i := 0; i < 60; i++ {
		v := variants()[i%8]
		T, L := rng.IntN(9), 1+rng.IntN(6)
		lat := randomLattice(rng, T, L, 3, v)
		for _, log := range []bool{false, true} {
			ref, ws := new(inference.Workspace), new(inference.Workspace)
			inference.SetForceLogSpace(ref, log)
			inference.SetForceLogSpace(ws, log)
			want := inference.ForwardBackward(ref, lat)
			buf := fillF(T*L+3, 7)
			got := inference.ForwardBackwardTo(ws, lat, buf)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%v log=%v: logZ %v, want %v", v, log, got, want)
			}
			numtest.RequireSlices(t, ref.Node(), buf[:T*L], 0, 0, "buffer")
			numtest.RequireSlices(t, ref.Node(), ws.Node(), 0, 0, "Node")
			numtest.RequireSlices(t, ref.EdgeSum(), ws.EdgeSum(), 0, 0, "EdgeSum")
			numtest.RequireSlices(t, fillF(3, 7), buf[T*L:], 0, 0, "past T*L")
			if a, b := inference.Entropy(ref, lat), inference.Entropy(ws, lat); math.Float64bits(a) != math.Float64bits(b) {
				t.Fatalf("%v log=%v: Entropy %v, want %v", v, log, b, a)
			}
			if a, b := inference.ExpectedScore(ref, lat), inference.ExpectedScore(ws, lat); math.Float64bits(a) != math.Float64bits(b) {
				t.Fatalf("%v log=%v: ExpectedScore %v, want %v", v, log, b, a)
			}
			keep := append([]float64(nil), buf...)
			inference.ForwardBackward(ws, lat)
			numtest.RequireSlices(t, keep, buf, 0, 0, "the caller's buffer after ForwardBackward")
			numtest.RequireSlices(t, ref.Node(), ws.Node(), 0, 0, "Node after ForwardBackward")
		}
	}
	mustPanic(t, "short buffer", func() {
		lat := inferencetest.RandomLattice(rng, 3, 2, 1, false, false)
		inference.ForwardBackwardTo(new(inference.Workspace), lat, make([]float64, 5))
	})
}

// TestEmpty: T = 0 is a lattice with one empty sequence of score 0.
func TestEmpty(t *testing.T) {
	lat := &inference.Lattice{T: 0, L: 3, Unary: []float64{}}
	ws := inference.NewWorkspace(0, 0)
	checkAgainst(t, ws, lat, inferencetest.Enumerate(lat), 0)
	assert.Empty(t, ws.Node())
	assert.Equal(t, 0.0, inference.Viterbi(ws, lat, nil), "Viterbi")
	assert.Equal(t, 0.0, inference.Score(lat, nil), "Score")
}

// TestScore checks Score on a hand-computed example.
func TestScore(t *testing.T) {
	lat := &inference.Lattice{T: 3, L: 2,
		Unary:   []float64{1, 2, 3, 4, 5, 6},
		Trans:   []float64{10, 20, 30, 40},
		TransAt: []float64{0, 0, 0, 0, 100, 200, 300, 400, 500, 600, 700, 800},
		Start:   []float64{1000, 2000},
		End:     []float64{10000, 20000}}
	// y = [1 0 1]: Unary 2+3+6, Trans[1→0]+Trans[0→1] = 30+20,
	// TransAt[1,1→0]+TransAt[2,0→1] = 300+600, Start[1] = 2000, End[1] = 20000.
	want := 2.0 + 3 + 6 + 30 + 20 + 300 + 600 + 2000 + 20000
	assert.Equal(t, want, inference.Score(lat, []int{1, 0, 1}))
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Fatalf("%s: no panic", name)
		}
		if s, ok := r.(string); !ok || !strings.HasPrefix(s, "inference: ") {
			t.Fatalf("%s: panic %v, want an \"inference: \" message", name, r)
		}
	}()
	f()
}

func TestPanics(t *testing.T) {
	ws := inference.NewWorkspace(2, 2)
	good := &inference.Lattice{T: 2, L: 2, Unary: make([]float64, 4)}
	mustPanic(t, "Node before ForwardBackward", func() { new(inference.Workspace).Node() })
	mustPanic(t, "EdgeSum before ForwardBackward", func() { new(inference.Workspace).EdgeSum() })
	mustPanic(t, "ExpectedScore before ForwardBackward", func() { inference.ExpectedScore(new(inference.Workspace), good) })
	for name, lat := range map[string]*inference.Lattice{
		"Unary":    {T: 2, L: 2, Unary: make([]float64, 3)},
		"Trans":    {T: 2, L: 2, Unary: make([]float64, 4), Trans: make([]float64, 3)},
		"TransAt":  {T: 2, L: 2, Unary: make([]float64, 4), TransAt: make([]float64, 4)},
		"Start":    {T: 2, L: 2, Unary: make([]float64, 4), Start: make([]float64, 1)},
		"End":      {T: 2, L: 2, Unary: make([]float64, 4), End: make([]float64, 3)},
		"negative": {T: -1, L: 2},
		"no label": {T: 2, L: 0},
		"nil":      nil,
	} {
		mustPanic(t, "ForwardBackward "+name, func() { inference.ForwardBackward(ws, lat) })
		mustPanic(t, "Viterbi "+name, func() { inference.Viterbi(ws, lat, make([]int, 2)) })
		mustPanic(t, "MaxMin "+name, func() { inference.MaxMin(ws, lat) })
		mustPanic(t, "Score "+name, func() { inference.Score(lat, make([]int, 2)) })
	}
	mustPanic(t, "nil workspace", func() { inference.ForwardBackward(nil, good) })
	mustPanic(t, "short path", func() { inference.Viterbi(ws, good, make([]int, 1)) })
	mustPanic(t, "label range", func() { inference.Score(good, []int{0, 2}) })
	inference.ForwardBackward(ws, good)
	mustPanic(t, "EdgeAt t=0", func() { ws.EdgeAt(nil, good, 0) })
	mustPanic(t, "EdgeAt t=T", func() { ws.EdgeAt(nil, good, 2) })
	other := &inference.Lattice{T: 3, L: 2, Unary: make([]float64, 6)}
	mustPanic(t, "EdgeAt other lattice", func() { ws.EdgeAt(nil, other, 1) })
	mustPanic(t, "Entropy other lattice", func() { inference.Entropy(ws, other) })
	mustPanic(t, "Reserve", func() { ws.Reserve(-1, 2) })
}

// TestZeroAllocs: with a warm workspace nothing allocates.
func TestZeroAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	T, L := 30, 8
	cases := map[string]*inference.Lattice{
		"plain":   inferencetest.RandomLattice(rng, T, L, 2, false, true),
		"transAt": inferencetest.RandomLattice(rng, T, L, 2, true, true),
		"wide":    inferencetest.RandomLattice(rng, T, L, 1e3, true, true),
	}
	for name, lat := range cases {
		for _, forceLog := range []bool{false, true} {
			ws := inference.NewWorkspace(T, L)
			inference.SetForceLogSpace(ws, forceLog)
			path := make([]int, T)
			buf := make([]float64, L*L)
			inference.ForwardBackward(ws, lat) // warm up (grows the TransAt buffer)
			for fname, f := range map[string]func(){
				"ForwardBackward": func() { inference.ForwardBackward(ws, lat) },
				"EdgeAt":          func() { buf = ws.EdgeAt(buf, lat, T/2) },
				"ExpectedScore":   func() { inference.ExpectedScore(ws, lat) },
				"Entropy":         func() { inference.Entropy(ws, lat) },
				"Viterbi":         func() { inference.Viterbi(ws, lat, path) },
				"MaxMin":          func() { inference.MaxMin(ws, lat) },
				"Score":           func() { inference.Score(lat, path) },
			} {
				assert.Zero(t, testing.AllocsPerRun(50, f), "%s/log=%v: %s allocations per call", name, forceLog, fname)
			}
		}
	}
}
