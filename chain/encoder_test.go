package chain

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/internal/chaintest"
)

// toyModel is a model over the toy corpus (internal/chaintest) with its
// encoder and weights of every sign.
func toyModel(t testing.TB) *Model {
	t.Helper()
	enc, _, labels, err := chaintest.EncodeToy()
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
	if err != nil {
		t.Fatal(err)
	}
	// Weights of every sign and some exact zeros (package train trains
	// real models; here the file and tagging paths only need weights).
	rng := rand.New(rand.NewPCG(7, 7))
	for j := range m.W {
		if rng.IntN(4) != 0 {
			m.W[j] = rng.NormFloat64()
		}
	}
	return m
}

func TestModelWithEncoderRoundTrip(t *testing.T) {
	m := toyModel(t)
	data, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadModel(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if back.Encoder == nil || back.Encoder.Template().Source() != chaintest.ToyTemplate {
		t.Fatal("encoder or template lost in the round trip")
	}
	again, _ := back.MarshalBinary()
	if !bytes.Equal(again, data) {
		t.Fatal("re-encoding changed the bytes")
	}
	// Both models tag identically, including unseen words.
	sent := features.Columns{{"The", "DT"}, {"zebra", "NN"}, {"reckons", "VBZ"}}
	a, err := NewTagger(m).Tag(nil, sent)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewTagger(back).Tag(nil, sent)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("loaded model tags %v, original %v", b, a)
		}
	}
}

func TestTagAllocations(t *testing.T) {
	if decodeRace {
		t.Skip("the race detector makes sync.Pool drop entries: allocation counts are meaningless")
	}
	m := toyModel(t)
	tg := NewTagger(m)
	sent := features.Columns{{"The", "DT"}, {"cat", "NN"}, {"sees", "VBZ"}, {"a", "DT"}, {"dog", "NN"}}
	dst, err := tg.Tag(nil, sent)
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		dst, _ = tg.Tag(dst, sent)
	})
	if allocs != 0 {
		t.Fatalf("Tag allocates %v times per call with a reused result", allocs)
	}
}
