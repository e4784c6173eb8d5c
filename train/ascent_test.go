package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
)

// bruteDual returns D(q) of the ascent's state by enumerating every label
// sequence of every q_i (given by its natural parameters).
func bruteDual(sp *solvedProblem, da *dualAscent) float64 {
	m, c := sp.m, sp.c
	L := m.NumLabels()
	M := make([]float64, len(m.W))
	ent := 0.0
	for i := 0; i < c.Len(); i++ {
		start, T := c.Span(i)
		eta, tr := da.eta[start*L:(start+T)*L], da.tr[i*L*L:(i+1)*L*L]
		var scores []float64
		var paths [][]int
		y := make([]int, T)
		for {
			s := 0.0
			for t := range y {
				s += eta[t*L+y[t]]
				if t > 0 {
					s += tr[y[t-1]*L+y[t]]
				}
			}
			scores, paths = append(scores, s), append(paths, append([]int(nil), y...))
			if !nextPath(y, L) {
				break
			}
		}
		z := floats.LogSumExp(scores)
		for k, s := range scores {
			p := math.Exp(s - z)
			if p > 0 {
				ent -= p * (s - z)
			}
			for t, yt := range paths[k] {
				gold := int(c.Labels[start+t])
				cols, _ := c.Unary.Row(start + t)
				for _, a := range cols {
					M[int(a)*L+yt] -= p
					if k == 0 {
						M[int(a)*L+gold]++
					}
				}
				if t > 0 {
					M[m.TransOffset()+paths[k][t-1]*L+yt] -= p
					if k == 0 {
						M[m.TransOffset()+int(c.Labels[start+t-1])*L+gold]++
					}
				}
			}
		}
	}
	d := -ent / float64(c.Len())
	for _, v := range M {
		d += da.h(v / float64(c.Len()))
	}
	return d
}

// TestDualAscentBruteForce: the per-sequence dual state keeps D(q) as
// enumeration computes it; at q = p_w the certificate P(w) + D(q) is w's
// own gap; no block step raises D; the certificate never falls below the
// true suboptimality; and 40 epochs bring it within 1.5 times the
// suboptimality.
func TestDualAscentBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	sp := newSolvedProblem(t, rng, 30, 12)
	for _, scale := range []float64{0, 0.5, 1} {
		// 0 and 0.5 scale the optimum; 1 perturbs it (where the own gap
		// overstates the suboptimality most).
		w := make([]float64, len(sp.wStar))
		for j, v := range sp.wStar {
			w[j] = scale * v
			if scale == 1 && v != 0 {
				w[j] += 1e-2 * rng.NormFloat64()
			}
		}
		cur := pricePoint(t, sp.tr, w)
		pw := sp.primal(cur)
		own := fyGap(w, cur.m, sp.lam1, sp.lam2)
		da := newDualAscent(sp.m, sp.c, w, sp.lam1, sp.lam2)
		require.InDelta(t, bruteDual(sp, da), da.value(), 1e-10, "scale %v", scale)
		assert.InDelta(t, own, pw+da.value(), 1e-9*max(own, 1e-3), "scale %v: the first certificate is not w's own gap", scale)
		order := rng.Perm(sp.c.Len())
		first := pw + da.value()
		for epoch := range 40 {
			for _, i := range order {
				before := da.value()
				da.step(i)
				require.LessOrEqual(t, da.value(), before+1e-13, "scale %v epoch %d: a step raised D", scale, epoch)
			}
			cert := pw + da.value()
			require.GreaterOrEqual(t, cert, pw-sp.pStar-1e-12, "scale %v epoch %d: below the suboptimality", scale, epoch)
		}
		assert.InDelta(t, bruteDual(sp, da), da.value(), 1e-9, "scale %v: the incremental D drifted", scale)
		last := pw + da.value()
		t.Logf("scale %v: own gap %.4g, after 40 epochs %.4g, suboptimality %.4g", scale, first, last, pw-sp.pStar)
		// The dual converges: the certificate approaches the suboptimality.
		assert.Less(t, last, 1.5*(pw-sp.pStar)+1e-12, "scale %v: the ascent did not close the gap", scale)
	}
}
