package dataset

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/features"
)

// partsExamples returns n random labeled sentences of two columns over a
// small vocabulary, so that attributes recur across parts and new ones
// appear in every part.
func partsExamples(n int, seed uint64) []Example {
	rng := rand.New(rand.NewPCG(seed, 1))
	exs := make([]Example, n)
	for i := range exs {
		T := 1 + rng.IntN(9)
		cols := make([][]string, T)
		labels := make([]string, T)
		for t := range cols {
			w := fmt.Sprintf("w%d", int(rng.ExpFloat64()*40))
			cols[t] = []string{w, strings.ToUpper(w[:2])}
			labels[t] = fmt.Sprintf("L%d", rng.IntN(4))
		}
		exs[i] = Example{Tokens: cols, Labels: labels}
	}
	return exs
}

// TestEncodeTrainingThreads checks that the parallel encoding gives the
// serial one's corpus, label names, dictionaries (ids and counts) for
// several thread counts, with and without pair templates.
func TestEncodeTrainingThreads(t *testing.T) {
	tmpls := map[string]string{
		"unary":    "U00:%x[-1,0]\nU01:%x[0,0]\nU02:%x[0,1]/%x[1,0]\nB\n",
		"pair":     "U00:%x[0,0]\nB01:%x[0,1]\n",
		"unary-nb": "U00:%x[0,0]\nU01:%x[1,1]\n",
	}
	exs := partsExamples(3*minPartSeqs+17, 7)
	for name, src := range tmpls {
		tm := features.MustCompile(src)
		ref := features.NewTemplateEncoder(tm)
		c0, l0, err := EncodeTraining(ref, exs, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range []int{2, 3, 4, 8} {
			enc := features.NewTemplateEncoder(tm)
			c, l, err := EncodeTrainingThreads(enc, exs, 1, th)
			if err != nil {
				t.Fatalf("%s, %d threads: %v", name, th, err)
			}
			if !reflect.DeepEqual(c, c0) || !reflect.DeepEqual(l, l0) {
				t.Errorf("%s, %d threads: corpus or labels differ from the serial encoding", name, th)
			}
			for _, d := range [][2]*features.Dictionary{{enc.Unary(), ref.Unary()}, {enc.Pair(), ref.Pair()}} {
				if !reflect.DeepEqual(d[0].Names(), d[1].Names()) {
					t.Fatalf("%s, %d threads: dictionary names differ", name, th)
				}
				if !d[0].Frozen() {
					t.Errorf("%s, %d threads: dictionary not frozen", name, th)
				}
				for id := range d[0].Len() {
					if d[0].Count(int32(id)) != d[1].Count(int32(id)) {
						t.Fatalf("%s, %d threads: count of %q %d, serial %d", name, th, d[0].Name(int32(id)), d[0].Count(int32(id)), d[1].Count(int32(id)))
					}
				}
			}
		}
	}
}

// TestEncodeTrainingThreadsError checks that a parallel encoding reports
// the first sequence that fails, as the serial one does.
func TestEncodeTrainingThreadsError(t *testing.T) {
	tm := features.MustCompile("U00:%x[0,1]\n")
	exs := partsExamples(4*minPartSeqs, 3)
	for _, bad := range []int{2*minPartSeqs + 5, 3*minPartSeqs + 1} {
		exs[bad].Tokens[0] = exs[bad].Tokens[0][:1] // column 1 missing
	}
	_, _, serr := EncodeTraining(features.NewTemplateEncoder(tm), exs, 1)
	if serr == nil {
		t.Fatal("serial encoding: no error")
	}
	for _, th := range []int{2, 4} {
		_, _, err := EncodeTrainingThreads(features.NewTemplateEncoder(tm), exs, 1, th)
		if err == nil || err.Error() != serr.Error() {
			t.Errorf("%d threads: error %v, serial %v", th, err, serr)
		}
	}
}
