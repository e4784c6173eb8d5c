package train

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
)

func TestDualAscentCoNLL(t *testing.T) {
	iters, _ := strconv.Atoi(os.Getenv("ASCENT_CONLL"))
	if iters == 0 {
		t.Skip("ASCENT_CONLL=<iterations>")
	}
	seqs, err := corpora.EmbeddedCoNLL2000("train")
	require.NoError(t, err)
	exs := make([]dataset.Example, len(seqs))
	for i, s := range seqs {
		exs[i] = dataset.FromSequence("conll2000/train", s)
	}
	enc, err := dataset.NewEncoder(dataset.CoNLL, "embedded:conll2000/chunking.template")
	require.NoError(t, err)
	c, labels, err := dataset.EncodeTraining(enc, exs, 1)
	require.NoError(t, err)
	m, err := chain.NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
	require.NoError(t, err)
	res, err := Train(context.Background(), m, c, Options{SumForm: true, C1: 1, C2: 1, Threads: 2, MaxIter: iters})
	require.NoError(t, err)
	P := res.Primal
	t.Logf("after %d iterations: P %.8g, gap %.4g (rel %.3g)", iters, P, res.Gap, res.Gap/P)
	t0 := time.Now()
	da := newDualAscent(m, c, m.W, res.Lambda1, res.Lambda2)
	t.Logf("init %.2fs: certificate %.4g (rel %.3g)", time.Since(t0).Seconds(), P+da.value(), (P+da.value())/P)
	order := make([]int, c.Len())
	for i := range order {
		order[i] = (i * 7919) % c.Len()
	}
	for e := 1; e <= 12; e++ {
		t0 = time.Now()
		fb := da.epoch(order)
		g := P + da.value()
		t.Logf("epoch %d %.2fs fb %d: certificate %.4g (rel %.3g)", e, time.Since(t0).Seconds(), fb, g, g/P)
	}
}
