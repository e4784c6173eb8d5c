package online

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/sparse"
)

// problem returns a small random problem: n sequences of length <= 4 over
// L labels, real-valued attributes, pair attributes when pairs.
func problem(t testing.TB, seed uint64, n, L int, pairs, weights bool) (*chain.Model, *sparse.Corpus, []float64) {
	return problemValued(t, seed, n, L, pairs, weights, true)
}

// problemValued is problem with binary attributes unless real.
func problemValued(t testing.TB, seed uint64, n, L int, pairs, weights, real bool) (*chain.Model, *sparse.Corpus, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	np := 0
	if pairs {
		np = 2
	}
	c := chaintest.RandomCorpus(rng, n, 4, 5, np, L, real)
	m, err := chain.NewModel(chaintest.LabelNames(L), c.NumUnary, c.NumPair, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	var w []float64
	if weights {
		w = make([]float64, n)
		for i := range w {
			w[i] = 0.25 + 2*rng.Float64()
		}
	}
	return m, c, w
}

// configs are the parameter sets the reference test runs.
func configs() []map[string]string {
	return []map[string]string{
		{"algorithm": "ap"},
		{"algorithm": "ap", "feature.possible_states": "1", "feature.possible_transitions": "1"},
		{"algorithm": "ap", "feature.possible_states": "1", "feature.minfreq": "0.2"},
		{"algorithm": "pa", "type": "0"},
		{"algorithm": "pa", "type": "1", "c": "0.3"},
		{"algorithm": "pa", "type": "2", "error_sensitive": "0", "averaging": "0"},
		{"algorithm": "arow"},
		{"algorithm": "arow", "variance": "0.5", "gamma": "2"},
		{"algorithm": "l2sgd"},
		{"algorithm": "l2sgd", "c2": "0.1", "calibration.samples": "5", "feature.minfreq": "0.5"},
	}
}

// TestAgainstReference checks every algorithm against the slow reference
// transcribed from CRFsuite: the same weights after one epoch (and after
// three) to 1e-12, with and without sequence weights, pair features and
// the dense feature set, in CRFsuite's order (seed 0, the default) and in
// a seeded one.
func TestAgainstReference(t *testing.T) {
	for k, cfg := range configs() {
		for _, epochs := range []int{1, 3} {
			for _, seed := range []uint64{0, 99} {
				for _, variant := range []struct {
					pairs, weights, dense, binary bool
				}{{false, false, false, false}, {true, true, false, false}, {false, true, true, false}, {true, true, false, true}} {
					name := fmt.Sprintf("%d-%s-e%d-s%d-p%v-w%v-d%v-b%v", k, cfg["algorithm"], epochs, seed, variant.pairs, variant.weights, variant.dense, variant.binary)
					t.Run(name, func(t *testing.T) {
						m, c, wts := problemValued(t, uint64(k*10+epochs), 12, 3, variant.pairs, variant.weights, !variant.binary)
						p, err := NewParams(Algorithm(cfg["algorithm"]))
						if err != nil {
							t.Fatal(err)
						}
						for name, v := range cfg {
							if name != "algorithm" {
								if err := p.Set(name, v); err != nil {
									t.Fatal(err)
								}
							}
						}
						p.MaxIterations = epochs
						p.Features.Dense = variant.dense
						res, err := Train(context.Background(), Problem{Model: m, Corpus: c, Weights: wts}, p, Settings{Seed: seed})
						if err != nil {
							t.Fatal(err)
						}
						r := newRef(m, c, wts, p, seed)
						var want []float64
						switch p.Algorithm {
						case AP:
							want = r.ap()
						case PA:
							want = r.pa()
						case AROW:
							want = r.arow()
						case L2SGD:
							want = r.l2sgd()
						}
						nz := 0
						for j := range want {
							if want[j] != 0 {
								nz++
							}
							if d := math.Abs(want[j] - m.W[j]); d > 1e-12*math.Max(1, math.Abs(want[j])) || math.IsNaN(m.W[j]) {
								t.Fatalf("feature %d (%v): got %.17g, reference %.17g (epochs run %d)", j, m.Layout.Decode(j), m.W[j], want[j], res.Epochs)
							}
						}
						if nz == 0 {
							t.Fatalf("the reference is all zero: the test checks nothing")
						}
					})
				}
			}
		}
	}
}

// TestDeterministic: the same seed gives the same model bit for bit, another
// seed another order.
func TestDeterministic(t *testing.T) {
	for _, a := range Algorithms {
		m, c, _ := problem(t, 5, 30, 4, true, false)
		p, _ := NewParams(a)
		p.MaxIterations = 3
		if _, err := Train(context.Background(), Problem{Model: m, Corpus: c}, p, Settings{Seed: 3}); err != nil {
			t.Fatal(err)
		}
		first := append([]float64(nil), m.W...)
		if _, err := Train(context.Background(), Problem{Model: m, Corpus: c}, p, Settings{Seed: 3}); err != nil {
			t.Fatal(err)
		}
		for j := range first {
			if math.Float64bits(first[j]) != math.Float64bits(m.W[j]) {
				t.Fatalf("%s: feature %d differs between two runs with the same seed", a, j)
			}
		}
	}
}

// TestInterrupt: an interrupt keeps the model of the last finished epoch,
// and one before the first epoch leaves every weight zero.
func TestInterrupt(t *testing.T) {
	for _, a := range Algorithms {
		m, c, _ := problem(t, 6, 40, 3, false, false)
		p, _ := NewParams(a)
		p.MaxIterations = 2
		p.Delta = 0 // l2sgd: run both epochs
		p.Epsilon = 0
		if _, err := Train(context.Background(), Problem{Model: m, Corpus: c}, p, Settings{Seed: 1}); err != nil {
			t.Fatal(err)
		}
		want := append([]float64(nil), m.W...)
		intr := make(chan struct{})
		p.MaxIterations = 5
		res, err := Train(context.Background(), Problem{Model: m, Corpus: c}, p, Settings{Seed: 1, Interrupt: intr,
			Progress: func(e Epoch) {
				if e.Epoch == 2 {
					close(intr)
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Interrupted || res.Epochs != 2 {
			t.Fatalf("%s: interrupted %v after %d epochs, want true after 2", a, res.Interrupted, res.Epochs)
		}
		for j := range want {
			if want[j] != m.W[j] {
				t.Fatalf("%s: feature %d: %g after the interrupt, %g after 2 epochs", a, j, m.W[j], want[j])
			}
		}
		closed := make(chan struct{})
		close(closed)
		res, err = Train(context.Background(), Problem{Model: m, Corpus: c}, p, Settings{Interrupt: closed})
		if err != nil {
			t.Fatal(err)
		}
		if res.Epochs != 0 || m.NonZero() != 0 {
			t.Fatalf("%s: interrupted at once: %d epochs, %d non-zero weights", a, res.Epochs, m.NonZero())
		}
	}
}

// TestParams checks CRFsuite's defaults and the validation of names and
// values.
func TestParams(t *testing.T) {
	p, err := NewParams(PA)
	if err != nil {
		t.Fatal(err)
	}
	if p.Type != 1 || p.C != 1 || !p.ErrorSensitive || !p.Averaging || p.MaxIterations != 100 || p.Epsilon != 0 {
		t.Fatalf("pa defaults: %+v", p)
	}
	q, _ := NewParams(L2SGD)
	if q.C2 != 1 || q.MaxIterations != 1000 || q.Period != 10 || q.Delta != 1e-6 || q.CalibrationEta != 0.1 ||
		q.CalibrationRate != 2 || q.CalibrationSamples != 1000 || q.CalibrationCandidates != 10 || q.CalibrationMaxTrials != 20 {
		t.Fatalf("l2sgd defaults: %+v", q)
	}
	for _, bad := range []struct {
		alg         Algorithm
		name, value string
	}{
		{PA, "type", "3"}, {PA, "c", "0"}, {PA, "c", "nan"}, {PA, "averaging", "yes"}, {PA, "variance", "1"},
		{AP, "c2", "1"}, {AROW, "gamma", "-1"}, {L2SGD, "calibration.rate", "1"}, {L2SGD, "period", "0"},
		{L2SGD, "epsilon", "0.1"}, {AP, "max_iterations", "0"}, {AP, "feature.minfreq", "-1"}, {AP, "bogus", "1"},
	} {
		p, _ := NewParams(bad.alg)
		if err := p.Set(bad.name, bad.value); err == nil {
			t.Errorf("%s: %s=%s accepted", bad.alg, bad.name, bad.value)
		}
	}
	if _, err := NewParams("lbfgs"); err == nil {
		t.Error("NewParams(lbfgs) accepted")
	}
}

// TestBadWeights: zero, negative, NaN, infinite and absurd weights are
// refused.
func TestBadWeights(t *testing.T) {
	m, c, _ := problem(t, 1, 3, 2, false, false)
	p, _ := NewParams(AP)
	for _, v := range []float64{0, -1, math.NaN(), math.Inf(1), 1e300} {
		if _, err := Train(context.Background(), Problem{Model: m, Corpus: c, Weights: []float64{1, v, 1}}, p, Settings{}); err == nil {
			t.Errorf("weight %v accepted", v)
		}
	}
	if _, err := Train(context.Background(), Problem{Model: m, Corpus: c, Weights: []float64{1}}, p, Settings{}); err == nil {
		t.Error("1 weight for 3 sequences accepted")
	}
}

// TestLayoutOnly: every algorithm returns the non-zero weights of Model.W
// in Result.Idx and Result.Val, and a model without weights (a layout)
// gets the same result bits, with nothing written into it.
func TestLayoutOnly(t *testing.T) {
	for _, a := range Algorithms {
		m, c, w := problem(t, 36, 30, 4, true, true)
		p, _ := NewParams(a)
		p.MaxIterations = 3
		full, err := Train(context.Background(), Problem{Model: m, Corpus: c, Weights: w}, p, Settings{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		var idx []int32
		for j, v := range m.W {
			if v != 0 {
				idx = append(idx, int32(j))
			}
		}
		if len(idx) == 0 || len(idx) != len(full.Idx) || full.NonZero != len(idx) {
			t.Fatalf("%s: %d non-zero weights, Result has %d (NonZero %d)", a, len(idx), len(full.Idx), full.NonZero)
		}
		for k, j := range idx {
			if full.Idx[k] != j || math.Float64bits(full.Val[k]) != math.Float64bits(m.W[j]) {
				t.Fatalf("%s: Result entry %d is (%d, %v), the model's (%d, %v)", a, k, full.Idx[k], full.Val[k], j, m.W[j])
			}
		}
		lay := &chain.Model{Labels: m.Labels, Layout: m.Layout}
		res, err := Train(context.Background(), Problem{Model: lay, Corpus: c, Weights: w}, p, Settings{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if lay.W != nil || fmt.Sprint(res.Idx) != fmt.Sprint(full.Idx) || fmt.Sprint(res.Val) != fmt.Sprint(full.Val) {
			t.Fatalf("%s: the layout-only run differs (or wrote weights)", a)
		}
	}
}

// TestGlibcRand: the generator of the default order (Settings.Seed 0) gives the first
// values of the GNU C library's rand() without srand (printed by a C
// program calling rand() five times, glibc 2.x on amd64), and the order
// it drives is a permutation that changes from epoch to epoch.
func TestGlibcRand(t *testing.T) {
	g := newGlibcRand()
	for k, want := range []uint32{1804289383, 846930886, 1681692777, 1714636915, 1957747793} {
		if got := g.next(); got != want {
			t.Fatalf("rand() number %d = %d, glibc's %d", k+1, got, want)
		}
	}
	r := &run{order: []int32{0, 1, 2, 3, 4, 5, 6}, crs: newGlibcRand()}
	prev := slices.Clone(r.order)
	for e := 0; e < 5; e++ {
		r.shuffle()
		if got := slices.Sorted(slices.Values(r.order)); !slices.Equal(got, []int32{0, 1, 2, 3, 4, 5, 6}) {
			t.Fatalf("epoch %d: %v is not a permutation", e, r.order)
		}
		if slices.Equal(prev, r.order) {
			t.Fatalf("epoch %d: the order did not change", e)
		}
		prev = slices.Clone(r.order)
	}
}

// TestGoldPath: goldPath, which reads the precomputed gold slots, gives
// onPath's slots and values on the gold path in onPath's order, with real
// and binary values, pair features and feature sets where some gold
// features do not exist (minfreq) or every one does (dense).
func TestGoldPath(t *testing.T) {
	for k, fs := range []FeatureSet{{}, {MinFreq: 2}, {MinFreq: 1.5, PossibleStates: true}, {Dense: true}} {
		for _, real := range []bool{false, true} {
			m, c, wts := problemValued(t, uint64(40+k), 6, 4, true, false, real)
			f := newFeatures(m.Layout, c, wts, fs)
			sc := newScorer(f, c)
			w := make([]float64, f.size())
			missing := 0
			for i := 0; i < c.Len(); i++ {
				sc.score(w, 1, i)
				js, vs := sc.onPath(i, sc.gold)
				wantJ, wantV := slices.Clone(js), slices.Clone(vs)
				gotJ, gotV := sc.goldPath(i)
				if !slices.Equal(gotJ, wantJ) || !slices.Equal(gotV, wantV) {
					t.Fatalf("set %d, real %v, sequence %d: goldPath %v %v, onPath %v %v", k, real, i, gotJ, gotV, wantJ, wantV)
				}
			}
			for _, r := range sc.goldSlot {
				if r < 0 {
					missing++
				}
			}
			if fs.MinFreq > 0 && missing == 0 {
				t.Errorf("set %d, real %v: every gold feature exists; the test does not check the missing ones", k, real)
			}
		}
	}
}

// TestLabelBytes: the state scores and expectations read through the byte
// labels (lab8; on binary rows, two positions at a time: addStatesPair)
// are the bits of those read through the int32 labels (the store of L >
// 256, one position at a time), on binary and real-valued rows and the
// dense set.
func TestLabelBytes(t *testing.T) {
	for k, fs := range []FeatureSet{{}, {PossibleStates: true}, {Dense: true}} {
		for _, real := range []bool{false, true} {
			m, c, wts := problemValued(t, uint64(60+k), 20, 5, false, false, real)
			rng := rand.New(rand.NewPCG(uint64(k), 3))
			run := func(bytes bool) ([]float64, []float64) {
				f := newFeatures(m.Layout, c, wts, fs)
				if f.lab8 == nil {
					t.Fatal("no byte labels for L = 5")
				}
				if !bytes {
					f.lab8 = nil
				}
				sc := newScorer(f, c)
				w, g := make([]float64, f.size()), make([]float64, f.size())
				for j := range w {
					w[j] = rng.NormFloat64()
				}
				var unary []float64
				for i := 0; i < c.Len(); i++ {
					lat := sc.score(w, 0.7, i)
					unary = append(unary, lat.Unary...)
					inference.ForwardBackward(sc.ws, lat)
					sc.expect(g, -0.3, i, lat)
				}
				return unary, g
			}
			u8, g8 := run(true)
			rng = rand.New(rand.NewPCG(uint64(k), 3))
			u32, g32 := run(false)
			if !slices.Equal(u8, u32) || !slices.Equal(g8, g32) {
				t.Errorf("set %d, real %v: byte and int32 labels give other scores or expectations", k, real)
			}
		}
	}
}
