package topk

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSmallest: the bounded heap keeps exactly the k smallest (priority,
// position) entries for every capacity k, with ties and infinities.
func TestSmallest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 5, 17, 100, 1000} {
		all := make([]entry, n)
		for i := range all {
			all[i] = entry{float64(rng.IntN(n/2 + 1)), int32(i)} // many ties
			if rng.IntN(20) == 0 {
				all[i].p = math.Inf(1)
			}
		}
		sorted := slices.Clone(all)
		slices.SortFunc(sorted, entryOrder)
		var s Smallest
		for _, k := range []int{1, 2, 3, n / 2, n - 1, n, n + 4} {
			if k < 1 {
				continue
			}
			s.reset(k)
			for _, e := range all {
				s.add(e.p, int(e.q))
			}
			got := slices.Clone(s.h)
			slices.SortFunc(got, entryOrder)
			require.Equal(t, sorted[:min(k, n)], got, "n %d k %d", n, k)
		}
	}
}

// TestPick: the working set's selection holds every must feature (-Inf),
// has exactly its size, and its finite priorities are no larger than any
// left out, with many ties at the threshold and must features late in
// the order (a tie once crowded out the last support feature: the inner
// solve then started from a point whose value it was not told).
func TestPick(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var s Smallest
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.IntN(60)
		p := make([]float64, n)
		must := 0
		for q := range p {
			p[q] = float64(rng.IntN(4)) // many ties
			if rng.IntN(4) == 0 || (q == n-1 && trial%2 == 0) {
				p[q] = math.Inf(-1)
				must++
			}
		}
		size := rng.IntN(n + 3)
		strong := trial%3 == 1 // the strong rule's size: the must features
		for q := range p {
			if rng.IntN(15) == 0 && !math.IsInf(p[q], -1) {
				p[q] = math.Inf(1)
			}
		}
		calls := 0
		prio := func(q int) float64 {
			require.Equal(t, calls, q, "prio once per q, in order")
			calls++
			return p[q]
		}
		var got []int
		want := size
		s.Pick(n, size, prio, func(m int) int {
			require.Equal(t, must, m)
			if strong {
				want = max(m, 1)
			}
			return want
		}, func(q int) { got = append(got, q) })
		require.Equal(t, n, calls)
		require.True(t, slices.IsSorted(got))
		require.Len(t, got, min(n, max(want, must)), "trial %d", trial)
		in := make([]bool, n)
		for _, q := range got {
			in[q] = true
		}
		maxIn, minOut := math.Inf(-1), math.Inf(1)
		for q, v := range p {
			switch {
			case math.IsInf(v, -1):
				require.True(t, in[q], "trial %d: must feature %d left out", trial, q)
			case in[q]:
				maxIn = max(maxIn, v)
			default:
				minOut = min(minOut, v)
			}
		}
		require.LessOrEqual(t, maxIn, minOut, "trial %d", trial)
		// Ties at the largest priority taken go to the lowest positions.
		lastTie := -1
		for q, v := range p {
			if in[q] && v == maxIn {
				lastTie = q
			}
		}
		for q, v := range p {
			if !in[q] && v == maxIn {
				require.Greater(t, q, lastTie, "trial %d: a tie at %v went to a later position", trial, v)
			}
		}
	}
}

// entryOrder is the (priority, position) order of entries, which the heap's
// comparison (entry.above) writes out.
func entryOrder(a, b entry) int { return cmp.Or(cmp.Compare(a.p, b.p), cmp.Compare(a.q, b.q)) }
