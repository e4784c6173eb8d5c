package online

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
)

// The slow reference: CRFsuite's train_*.c transcribed over a full-size
// weight vector, with a feature mask computed from the definitions, every
// path enumerated for Viterbi and the marginals (traintest.Score), and
// CRFsuite's function names. It shares nothing with the package but the
// order of the sequences (the same generators, seeded alike: CRFsuite's
// dataset_shuffle over glibcRand for seed 0, PCG's otherwise).

type ref struct {
	m      *chain.Model
	c      *sparse.Corpus
	wts    []float64
	exists []bool
	rng    *rand.Rand // seed > 0
	glibc  *glibcRand // seed 0
	order  []int
	p      *Params
}

func newRef(m *chain.Model, c *sparse.Corpus, wts []float64, p *Params, seed uint64) *ref {
	n := c.Len()
	r := &ref{m: m, c: c, wts: wts, p: p, order: make([]int, n)}
	if seed == 0 {
		r.glibc = newGlibcRand()
	} else {
		r.rng = rand.New(rand.NewPCG(seed, uint64(n)))
	}
	for i := range r.order {
		r.order[i] = i
	}
	r.exists = refExists(m, c, wts, p.Features)
	return r
}

// refExists is the feature set by its definition: a feature exists when
// it fires on the gold path of some training sequence with a total value
// of at least minfreq (or the possible_* options add it).
func refExists(m *chain.Model, c *sparse.Corpus, wts []float64, fs FeatureSet) []bool {
	ex := make([]bool, len(m.W))
	if fs.Dense {
		for j := range ex {
			ex[j] = true
		}
		return ex
	}
	freq := make([]float64, len(m.W))
	hit := make([]bool, len(m.W))
	seenU := make([]bool, m.Layout.NumUnary)
	seenP := make([]bool, m.Layout.NumPair)
	for i := 0; i < c.Len(); i++ {
		gold := refGold(c, i)
		s := 1.0
		if wts != nil {
			s = wts[i]
		}
		refOnPathAll(m, c, i, gold, func(j int, v float64) {
			freq[j] += s * v
			hit[j] = true
		})
		start, T := c.Span(i)
		for t := 0; t < T; t++ {
			cols, _ := c.Unary.Row(start + t)
			for _, a := range cols {
				seenU[a] = true
			}
			if t > 0 && m.Layout.NumPair > 0 {
				pc, _ := c.Pair.Row(start + t)
				for _, a := range pc {
					seenP[a] = true
				}
			}
		}
	}
	L := m.NumLabels()
	for j := range ex {
		cand := hit[j]
		if j < m.Layout.StateLen() && fs.PossibleStates && seenU[j/L] {
			cand = true
		}
		if j >= m.Layout.TransOffset() && fs.PossibleTransitions {
			if j < m.Layout.PairOffset() || seenP[(j-m.Layout.PairOffset())/(L*L)] {
				cand = true
			}
		}
		ex[j] = cand && freq[j] >= fs.MinFreq // crf1df_generate: minfreq <= freq
	}
	if !m.Layout.Transitions {
		for j := m.Layout.TransOffset(); j < m.Layout.PairOffset(); j++ {
			ex[j] = false
		}
	}
	return ex
}

func refGold(c *sparse.Corpus, i int) []int {
	start, T := c.Span(i)
	y := make([]int, T)
	for t := range y {
		y[t] = int(c.Labels[start+t])
	}
	return y
}

// refOnPathAll calls fn for every feature on path y (crf1de_features_on_path
// without the mask).
func refOnPathAll(m *chain.Model, c *sparse.Corpus, i int, y []int, fn func(j int, v float64)) {
	L := m.NumLabels()
	start, T := c.Span(i)
	for t := 0; t < T; t++ {
		cols, vals := c.Unary.Row(start + t)
		for k, a := range cols {
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			fn(int(a)*L+y[t], v)
		}
		if t == 0 {
			continue
		}
		if m.Layout.Transitions {
			fn(m.Layout.TransOffset()+y[t-1]*L+y[t], 1)
		}
		if m.Layout.NumPair > 0 && c.Pair.Rows() > 0 {
			pc, pv := c.Pair.Row(start + t)
			for k, a := range pc {
				v := 1.0
				if pv != nil {
					v = pv[k]
				}
				fn(m.Layout.PairOffset()+int(a)*L*L+y[t-1]*L+y[t], v)
			}
		}
	}
}

func (r *ref) featuresOnPath(i int, y []int, fn func(j int, v float64)) {
	refOnPathAll(r.m, r.c, i, y, func(j int, v float64) {
		if r.exists[j] {
			fn(j, v)
		}
	})
}

// viterbi enumerates every path; ties go to the path smallest from the
// last position backwards (inference.Viterbi's rule, CRFsuite's).
func (r *ref) viterbi(w []float64, i int) ([]int, float64) {
	_, T := r.c.Span(i)
	y := make([]int, T)
	var best []int
	bs := math.Inf(-1)
	for {
		s := traintest.Score(r.m, w, r.c, i, y)
		if best == nil || s > bs || (s == bs && revLess(y, best)) {
			best, bs = append([]int(nil), y...), s
		}
		if !chaintest.NextPath(y, r.m.NumLabels()) {
			return best, bs
		}
	}
}

func revLess(a, b []int) bool {
	for t := len(a) - 1; t >= 0; t-- {
		if a[t] != b[t] {
			return a[t] < b[t]
		}
	}
	return false
}

func (r *ref) weight(i int) float64 {
	if r.wts == nil {
		return 1
	}
	return r.wts[i]
}

func (r *ref) shuffle() {
	if r.glibc != nil { // CRFsuite's dataset_shuffle (dataset.c)
		for i := range r.order {
			j := int(r.glibc.next()) % len(r.order)
			r.order[j], r.order[i] = r.order[i], r.order[j]
		}
		return
	}
	r.rng.Shuffle(len(r.order), func(i, j int) { r.order[i], r.order[j] = r.order[j], r.order[i] })
}

func refDiff(x, y []int) int {
	d := 0
	for t := range x {
		if x[t] != y[t] {
			d++
		}
	}
	return d
}

// ap is crfsuite_train_averaged_perceptron.
func (r *ref) ap() []float64 {
	K := len(r.m.W)
	w, ws, wa := make([]float64, K), make([]float64, K), make([]float64, K)
	c := 1
	for it := 0; it < r.p.MaxIterations; it++ {
		loss := 0.0
		r.shuffle()
		for _, i := range r.order {
			gold := refGold(r.c, i)
			vit, _ := r.viterbi(w, i)
			if d := refDiff(gold, vit); d > 0 {
				udc, udcs := r.weight(i), float64(c)*r.weight(i)
				r.featuresOnPath(i, gold, func(j int, v float64) { w[j] += udc * v; ws[j] += udcs * v })
				udc, udcs = -r.weight(i), -float64(c)*r.weight(i)
				r.featuresOnPath(i, vit, func(j int, v float64) { w[j] += udc * v; ws[j] += udcs * v })
				loss += float64(d) / float64(len(gold)) * r.weight(i)
			}
			c++
		}
		copy(wa, w)
		floats.AddScaled(wa, -1./float64(c), ws)
		if loss/float64(len(r.order)) < r.p.Epsilon {
			break
		}
	}
	return wa
}

// refDelta is delta_t: a map from feature to difference.
type refDelta map[int]float64

func (r *ref) delta(i int, gold, vit []int, c float64) refDelta {
	dc := refDelta{}
	r.featuresOnPath(i, gold, func(j int, v float64) { dc[j] += c * v })
	r.featuresOnPath(i, vit, func(j int, v float64) { dc[j] += -c * v })
	return dc
}

// pa is crfsuite_train_passive_aggressive.
func (r *ref) pa() []float64 {
	K := len(r.m.W)
	w, ws, wa := make([]float64, K), make([]float64, K), make([]float64, K)
	u := 1
	for it := 0; it < r.p.MaxIterations; it++ {
		sumLoss := 0.0
		r.shuffle()
		for _, i := range r.order {
			gold := refGold(r.c, i)
			vit, sv := r.viterbi(w, i)
			if d := refDiff(gold, vit); d > 0 {
				sc := traintest.Score(r.m, w, r.c, i, gold)
				cost := sv - sc + 1
				if r.p.ErrorSensitive {
					cost = sv - sc + math.Sqrt(float64(d))
				}
				dc := r.delta(i, gold, vit, 1)
				norm := 0.0
				for _, x := range dc {
					norm += x * x
				}
				if norm > 0 { // CRFsuite divides by zero here
					var tau float64
					switch r.p.Type {
					case 0:
						tau = cost / norm
					case 1:
						tau = math.Min(r.p.C, cost/norm)
					case 2:
						tau = cost / (norm + 0.5/r.p.C)
					}
					tau *= r.weight(i)
					for j, x := range dc {
						w[j] += tau * x
						ws[j] += tau * float64(u) * x
					}
					sumLoss += cost * r.weight(i)
				}
			}
			u++
		}
		copy(wa, w)
		if r.p.Averaging {
			floats.AddScaled(wa, -1./float64(u), ws)
		}
		if sumLoss/float64(len(r.order)) < r.p.Epsilon {
			break
		}
	}
	return wa
}

// arow is crfsuite_train_arow.
func (r *ref) arow() []float64 {
	K := len(r.m.W)
	mean, cov := make([]float64, K), make([]float64, K)
	for j := range cov {
		cov[j] = r.p.Variance
	}
	for it := 0; it < r.p.MaxIterations; it++ {
		sumLoss := 0.0
		r.shuffle()
		for _, i := range r.order {
			gold := refGold(r.c, i)
			vit, sv := r.viterbi(mean, i)
			d := refDiff(gold, vit)
			if d == 0 {
				continue
			}
			sc := traintest.Score(r.m, mean, r.c, i, gold)
			cost := sv - sc + float64(d)
			dc := r.delta(i, gold, vit, r.weight(i))
			frac := r.p.Gamma
			for j, x := range dc {
				frac += x * x * cov[j]
			}
			alpha := cost / frac
			for j, x := range dc {
				mean[j] += alpha * cov[j] * x
				cov[j] = 1 / (1/cov[j] + x*x/r.p.Gamma)
			}
			sumLoss += cost * r.weight(i)
		}
		if sumLoss/float64(len(r.order)) <= r.p.Epsilon {
			break
		}
	}
	return mean
}

// objectiveAndGradients is encoder_objective_and_gradients at weights
// scale*w: it adds gain*weight (observed - expected) into g and returns
// the weighted NLL, by enumerating every path.
func (r *ref) objectiveAndGradients(w []float64, scale float64, i int, g []float64, gain, weight float64) float64 {
	sw := make([]float64, len(w))
	floats.ScaleTo(sw, scale, w)
	gold := refGold(r.c, i)
	scores := traintest.Scores(r.m, sw, r.c, i)
	logZ := floats.LogSumExp(scores)
	gain *= weight
	r.featuresOnPath(i, gold, func(j int, v float64) { g[j] += v * gain })
	_, T := r.c.Span(i)
	y := make([]int, T)
	for k := 0; ; k++ {
		p := math.Exp(scores[k] - logZ)
		r.featuresOnPath(i, y, func(j int, v float64) { g[j] += -gain * p * v })
		if !chaintest.NextPath(y, r.m.NumLabels()) {
			break
		}
	}
	return (logZ - traintest.Score(r.m, sw, r.c, i, gold)) * weight
}

// l2sgdEpochs is l2sgd(): w from zero, epochs over the first N sequences
// of the order (calibration: no shuffle, no best, no stopping rule).
func (r *ref) l2sgdEpochs(w []float64, N int, t0, lambda float64, epochs int, calibration bool) float64 {
	for j := range w {
		w[j] = 0
	}
	t := 0.0
	decay := 1.0
	sumLoss, loss := 0.0, 0.0
	best := math.MaxFloat64
	var bestW []float64
	var pf []float64
	if !calibration {
		pf = make([]float64, r.p.Period)
		bestW = make([]float64, len(w))
	}
	for epoch := 1; epoch <= epochs; epoch++ {
		if !calibration {
			r.shuffle()
		}
		sumLoss = 0
		for q := 0; q < N; q++ {
			i := r.order[q]
			eta := 1 / (lambda * (t0 + t))
			decay *= 1 - eta*lambda
			gain := eta / decay
			loss = r.objectiveAndGradients(w, decay, i, w, gain, r.weight(i))
			sumLoss += loss
			t++
		}
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return loss
		}
		floats.Scale(decay, w)
		decay = 1
		sumLoss += 0.5 * lambda * floats.Dot(w, w) * float64(N)
		if !calibration {
			if sumLoss < best {
				best = sumLoss
				copy(bestW, w)
			}
			improvement := r.p.Delta
			if r.p.Period < epoch {
				improvement = (pf[(epoch-1)%r.p.Period] - sumLoss) / sumLoss
			}
			pf[(epoch-1)%r.p.Period] = sumLoss
			if improvement < r.p.Delta {
				break
			}
		}
	}
	if bestW != nil {
		copy(w, bestW)
		sumLoss = best
	}
	return sumLoss
}

// l2sgd is crfsuite_train_l2sgd with l2sgd_calibration.
func (r *ref) l2sgd() []float64 {
	p := r.p
	N := len(r.order)
	lambda := 2 * p.C2 / float64(N)
	w := make([]float64, len(r.m.W))
	// l2sgd_calibration
	S := min(N, p.CalibrationSamples)
	r.shuffle()
	initLoss := 0.0
	for q := 0; q < S; q++ {
		i := r.order[q]
		scores := traintest.Scores(r.m, w, r.c, i)
		initLoss += floats.LogSumExp(scores) - traintest.Score(r.m, w, r.c, i, refGold(r.c, i))
	}
	num, dec, trials := p.CalibrationCandidates, false, 1
	eta, bestEta, bestLoss := p.CalibrationEta, p.CalibrationEta, math.MaxFloat64
	for num > 0 || !dec {
		loss := r.l2sgdEpochs(w, S, 1/(lambda*eta), lambda, 1, true)
		ok := !math.IsNaN(loss) && !math.IsInf(loss, 0) && loss < initLoss
		if ok {
			num--
		}
		if !math.IsNaN(loss) && !math.IsInf(loss, 0) && loss < bestLoss {
			bestLoss, bestEta = loss, eta
		}
		if !dec {
			if ok && 0 < num {
				eta *= p.CalibrationRate
			} else {
				dec, num, eta = true, p.CalibrationCandidates, p.CalibrationEta/p.CalibrationRate
			}
		} else {
			eta /= p.CalibrationRate
		}
		trials++
		if p.CalibrationMaxTrials <= trials {
			break
		}
	}
	t0 := 1 / (lambda * bestEta)
	r.l2sgdEpochs(w, N, t0, lambda, p.MaxIterations, false)
	return w
}
