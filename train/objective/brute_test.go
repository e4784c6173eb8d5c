package objective

import (
	"context"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
)

// The brute-force harness of the objective's tests: an evaluation checked
// against a loss by enumeration (traintest.NLL, partialNLL) and its
// central differences.

// evalAt evaluates o at x, the weights of its active set act, and returns
// the loss, m over act, and the full-size point w0 + x (w0 nil: zero; w0
// is not modified).
func evalAt(t *testing.T, o *Objective, act []int32, x, w0 []float64) (f float64, mv, w []float64) {
	t.Helper()
	mv = make([]float64, len(act))
	f, err := o.evalM(context.Background(), x, mv)
	if err != nil {
		t.Fatal(err)
	}
	w = make([]float64, len(o.m.W))
	copy(w, w0)
	for k, j := range act {
		w[j] += x[k]
	}
	return f, mv, w
}

// centralM returns m_j = -dL/dw_j at w for every j of js by central
// differences of the brute-force loss nll (step 1e-5); w is restored.
func centralM(nll func(w []float64) float64, w []float64, js []int32) []float64 {
	const h = 1e-5
	m := make([]float64, len(js))
	for k, j := range js {
		orig := w[j]
		w[j] = orig + h
		fp := nll(w)
		w[j] = orig - h
		fm := nll(w)
		w[j] = orig
		m[k] = -(fp - fm) / (2 * h)
	}
	return m
}

// requireBrute checks an evaluation at w against brute force: the loss f
// against nll(w), m over the features act (mv) against central differences
// of nll, and, when o is not nil, o.Residuals over every feature against
// the same differences.
func requireBrute(t *testing.T, name string, nll func(w []float64) float64, w []float64, act []int32, f float64, mv []float64, o *Objective) {
	t.Helper()
	approxScalar(t, name+" loss", nll(w), f, 1e-10, 1e-10)
	if o == nil {
		approxEqual(t, name+" m", centralM(nll, w, act), mv, 1e-7, 1e-6)
		return
	}
	all := everyFeature(len(w))
	want := centralM(nll, w, all)
	approxEqual(t, name+" m", sparse.Gather(make([]float64, len(act)), want, act), mv, 1e-7, 1e-6)
	approxEqual(t, name+" residuals", want, o.Residuals(nil, all), 1e-7, 1e-6)
}
