package train

import (
	"bytes"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/train/certificate"
)

// TestMixtureF32ScreeningSafe: on small chains solved to 1e-13, the
// features the Pinsker rule drops with the mixture's screening point and
// certificate (float32 history of points near the optimum) are zero at
// the optimum, and the rule drops some.
func TestMixtureF32ScreeningSafe(t *testing.T) {
	rng := rand.New(rand.NewPCG(95, 96))
	sp := newSolvedProblem(t, rng, 60, 30)
	tr, wStar := sp.tr, sp.wStar
	rn, err := featureRnorm(sp.m, sp.c)
	require.NoError(t, err)
	tr.rnorm = newRnormTable(rn, sp.m.NumLabels(), sp.m.Layout.NumUnary)
	tr.rnormMin = math.Inf(1)
	for j := range rn {
		tr.rnormMin = math.Min(tr.rnormMin, tr.rnorm.at(int32(j)))
	}
	dropped, used := 0, 0
	for trial := range 12 {
		scale := math.Pow(10, -1-float64(trial%4))
		var pts []pricedPoint
		for k := range 1 + certificate.Passes {
			s := scale
			if k == 0 {
				s = 10 * scale // a current point farther than the history
			}
			w := make([]float64, len(wStar))
			for j, v := range wStar {
				if v != 0 {
					w[j] = v + s*rng.NormFloat64()
				}
			}
			pts = append(pts, pricePoint(t, tr, w))
		}
		cur := pts[0]
		r := supportRun(tr, cur.w)
		for k := len(pts) - 1; k >= 1; k-- {
			mw := 0.0
			for _, j := range r.u {
				mw += pts[k].m[j] * pts[k].w[j]
			}
			r.dual.Push(pts[k].m, pts[k].loss, mw)
		}
		r.mU = cur.m
		own := fyGap(cur.w, cur.m, sp.lam1, sp.lam2)
		phi := mixGap(tr, r, own, cur.loss)
		if !r.mix.Won() {
			continue
		}
		used++
		drop, count := tr.screenMixture(&tr.scratch, r, phi)
		dropped += count
		// The same decisions as screen.Pinsker on the worst-case |M|.
		worst, rnu := make([]float64, len(r.u)), make([]float64, len(r.u))
		for q, j := range r.u {
			worst[q], rnu[q] = r.mix.WorstAbsM(&r.dual, r.mU, q), tr.rnorm.at(j)
		}
		ref := make([]bool, len(r.u))
		assert.Equal(t, count, screen.Pinsker(ref, worst, rnu, phi, sp.c.Len(), sp.lam1, tr.op.Tau))
		assert.Equal(t, ref, drop)
		for q, d := range drop {
			if d {
				assert.Zero(t, wStar[r.u[q]], "trial %d: feature %d screened but non-zero at the optimum", trial, r.u[q])
			}
		}
	}
	assert.Positive(t, used, "the mixture never certified")
	assert.Positive(t, dropped, "nothing screened")
	t.Logf("the mixture certified %d of 12 points; %d features screened in all", used, dropped)
}

// TestCheckpointDualHistoryRoundTrip: the float32 history survives
// WriteTo/ReadCheckpoint bit for bit (signed zeros and subnormals too),
// and a history written exact in float64 (an earlier build's checkpoint)
// reads back within f32Err of every value.
func TestCheckpointDualHistoryRoundTrip(t *testing.T) {
	var h certificate.History
	h.Push([]float64{0, math.Copysign(0, -1), 0x1p-149, -3e-42, 1.5, -2.75e30}, 1.25, -0.5)
	h.Push([]float64{0.1, -0.2, 1e-40, 7, 0, 3.4e38}, 2.5, 0.75)
	ck := &Checkpoint{dual: h.Clone()}
	var b bytes.Buffer
	_, err := ck.WriteTo(&b)
	require.NoError(t, err)
	got, err := ReadCheckpoint(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	hm, hloss, hmw := h.Parts()
	gm, gloss, gmw := got.dual.Parts()
	require.Len(t, gm, 2)
	for k := range hm {
		require.Len(t, gm[k], len(hm[k]))
		for j, v := range hm[k] {
			assert.Equal(t, math.Float32bits(v), math.Float32bits(gm[k][j]), "pass %d value %d", k, j)
		}
	}
	assert.Equal(t, hloss, gloss)
	assert.Equal(t, hmw, gmw)

	// An exact float64 history, as an earlier build wrote it.
	exact := []float64{0.1, -1.0 / 3, 1e-41, math.Pi * 1e20}
	old := &Checkpoint{}
	var ob bytes.Buffer
	_, err = old.WriteTo(&ob)
	require.NoError(t, err)
	raw := withExactHistory(t, ob.Bytes(), exact)
	got, err = ReadCheckpoint(bytes.NewReader(raw))
	require.NoError(t, err)
	gm, _, _ = got.dual.Parts()
	require.Len(t, gm, 1)
	for j, m := range exact {
		s := float64(gm[0][j])
		assert.LessOrEqual(t, math.Abs(m-s), certificate.ErrorBound(s), "value %d", j)
	}

	// Beyond the float32 range: the checkpoint is refused.
	raw = withExactHistory(t, ob.Bytes(), []float64{1e300})
	_, err = ReadCheckpoint(bytes.NewReader(raw))
	assert.ErrorContains(t, err, "float32 range")
}

// withExactHistory rewrites an empty checkpoint (no history) to hold one
// pass of history with the float64 values m, as an earlier build's
// WriteTo wrote it, and fixes the checksum.
func withExactHistory(t *testing.T, empty []byte, m []float64) []byte {
	t.Helper()
	// The empty checkpoint's tail: history count (8 bytes), opt.L1 (8),
	// len(X) = 0 (8), len(S) = 0 (8), Iter (8), CRC (4).
	body := empty[:len(empty)-4]
	tail := 8 * 5
	head, rest := body[:len(body)-tail], body[len(body)-tail+8:]
	le := func(b []byte, v uint64) []byte {
		for i := range 8 {
			b = append(b, byte(v>>(8*i)))
		}
		return b
	}
	out := append([]byte(nil), head...)
	out = le(out, 1)
	out = le(out, uint64(len(m)))
	for _, v := range m {
		out = le(out, math.Float64bits(v))
	}
	out = le(out, math.Float64bits(1)) // loss
	out = le(out, math.Float64bits(0)) // mw
	out = append(out, rest...)
	sum := crc32.ChecksumIEEE(out)
	return append(out, byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24))
}
