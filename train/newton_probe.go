package train

import (
	"context"
	"fmt"
	"math"
	"os"

	"github.com/sparsetag/sparsetag/screen"
)

var screenGapTerm = screen.GapTerm

// newtonProbe (an experiment, SPARSETAG_NEWTON_PROBE=K): at every full pass
// from iteration 30 on, the certificates of the candidates of several
// settings from one Lanczos run of K products, written to stderr; it raises
// no bound and moves nothing, so the solve is the one without candidates
// (but for the objective's evaluation count).
func (r *run) newtonProbe(ctx context.Context, gap float64) error {
	var K int
	fmt.Sscanf(os.Getenv("SPARSETAG_NEWTON_PROBE"), "%d", &K)
	if K == 0 || r.iter < 30 || r.policy != SolverWorkingSet {
		return nil
	}
	tr, ns := r.tr, &r.nw
	x := r.opt.X()
	f0 := r.opt.F()
	ns.freeSet(x, r.opt.Grad(), tr.pen)
	ns.xe = resizeFloats(ns.xe, len(x))
	ns.grad = resizeFloats(ns.grad, len(x))
	nt := newtonTuning{k: K, eps: 1e-4}
	if _, err := r.newtonKrylov(ctx, nt); err != nil {
		return err
	}
	allV, allH := ns.v, ns.hv
	mem := r.opt.Snapshot()
	for _, k := range []int{1, 3, 5, 10, 20} {
		for _, withMem := range []bool{false, true} {
			if k > len(allV) || (k == 1 && !withMem) {
				continue
			}
			ns.v, ns.hv = allV[:k:k], allH[:k:k]
			if withMem {
				for i := range mem.S {
					s, y := make([]float64, len(ns.free)), make([]float64, len(mem.Y[i]))
					for q, j := range ns.free {
						s[q] = mem.S[i][j]
					}
					for j, yj := range mem.Y[i] {
						y[j] = yj - tr.pen.l2*mem.S[i][j]
					}
					ns.addBasis(s, y)
				}
			}
			cm := certModel{V: ns.v, W: ns.hv, free: ns.free, r: ns.r, m: ns.mA, l1: tr.pen.l1, l2: tr.pen.l2}
			c, val := cm.minimize()
			d := make([]float64, len(ns.free))
			for i, b := range ns.v {
				axpy(d, b, c[i])
			}
			copy(ns.xe, x)
			for i, k := range ns.free {
				ns.xe[k] += d[i]
			}
			w := ns.xe
			f1, m1, err := tr.evaluate(ctx, w, ns.grad)
			if err != nil {
				return err
			}
			ns.mU = tr.obj.Residuals(ns.mU, r.u)
			cert := r.candidateGap(x, w, f0, f1, m1, ns.mU)
			parts := r.certParts(x, w, f0, f1, m1, ns.mU)
			fmt.Fprintf(os.Stderr, "probe iter %d parts %.3e %.3e %.3e %.3e own %.4e certified %.4e k %d mem %v newton %.4e model %.4e |d| %.3g P %.9f P' %.9f\n",
				r.iter, parts[0], parts[1], parts[2], parts[3], gap, r.certified(gap), k, withMem, cert, val, math.Sqrt(dot(c, c)), r.opt.Objective(), f1+tr.pen.l1*norm1(w))
		}
	}
	return nil
}

// certParts splits G(X, p_{w'}) (candidateGap) into the KL part and the
// coordinate terms over F, the rest of the active set and the rest of u.
func (r *run) certParts(x, w []float64, f, f1 float64, m1, mU []float64) [4]float64 {
	var out [4]float64
	l2 := r.tr.pen.l2
	sq, sq1, d := 0.0, 0.0, 0.0
	for k, v := range x {
		sq += v * v
		sq1 += w[k] * w[k]
		d += m1[k] * (v - w[k])
	}
	out[0] = f - 0.5*l2*sq - (f1 - 0.5*l2*sq1) + d
	act := r.tr.fs.Active()
	free := make(map[int32]bool, len(r.nw.free))
	for _, k := range r.nw.free {
		free[act[k]] = true
	}
	alpha := l2 / r.tr.pen.l1
	s, a := 0, 0
	for q, m := range mU {
		wq := 0.0
		if s < len(r.supp) && int(r.supp[s]) == q {
			wq = r.suppW[s]
			s++
		}
		j := r.u[q]
		for a < len(act) && act[a] < j {
			a++
		}
		g := 0
		switch {
		case free[j]:
			g = 1
		case a < len(act) && act[a] == j:
			g = 2
		default:
			g = 3
		}
		out[g] += screenGapTerm(wq, m, alpha, r.tr.pen.l1)
	}
	return out
}
