package owlqn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSnapshotRestoreContinuesExactly interrupts a run, restores the
// snapshot into a fresh optimizer and checks that both continue to
// bit-identical points.
func TestSnapshotRestoreContinuesExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	p := newLSQ(rng, 40, 30, 0.1)
	s := Settings{M: 5, L1: 0.05}
	a, err := drive(make([]float64, 30), p.eval, s)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 12; i++ {
		if err := a.Iterate(); err != nil {
			t.Fatal(err)
		}
	}
	st := a.Snapshot()
	b, err := resume(st, p.eval, s)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		errA, errB := a.Iterate(), b.Iterate()
		if (errA == nil) != (errB == nil) {
			t.Fatalf("iteration %d: errors differ: %v vs %v", i, errA, errB)
		}
		for j := range a.X() {
			if math.Float64bits(a.X()[j]) != math.Float64bits(b.X()[j]) {
				t.Fatalf("iteration %d: x[%d] = %v after restore, %v uninterrupted", i, j, b.X()[j], a.X()[j])
			}
		}
	}
	if a.Iterations() != b.Iterations() {
		t.Fatalf("iteration counts %d vs %d", a.Iterations(), b.Iterations())
	}
	st.X = st.X[:3]
	if _, err := resume(st, p.eval, s); err == nil {
		t.Fatal("resuming a snapshot whose memory has another dimension succeeded")
	}
}
