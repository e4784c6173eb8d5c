package dataset_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
)

// Word vectors of the current word beside the usual template lines: the
// vectors are read once (gzip allowed) and the template reaches them with
// %v[row,col]; the model trained on this encoder stores them.
func ExampleNewValuedEncoder() {
	dir, err := os.MkdirTemp("", "vectors")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "vectors.txt")
	if err := os.WriteFile(path, []byte("2 3\nthe 0.5 -1 0\ndog 2 0 1\n"), 0o666); err != nil {
		fmt.Println(err)
		return
	}
	vecs, err := dataset.ReadEmbeddingsFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	tmpl := features.MustCompile("U00:%x[0,0]\nUV:%v[0,0]\nB\n")
	enc, err := dataset.NewValuedEncoder(dataset.CoNLL, tmpl, features.Valued{Embeddings: vecs})
	if err != nil {
		fmt.Println(err)
		return
	}
	exs, err := dataset.Read("train.txt", strings.NewReader("The DT B-NP\ndog NN I-NP\n"), dataset.Options{Format: dataset.CoNLL, Labeled: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, c, err := dataset.NewTrainingModel(enc, exs, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Encoder.Unary().Names(), c.Unary.Val)
	// Output:
	// [U00:The UV:0 UV:1 U00:dog UV:2] [1 0.25 -0.5 1 1 0.5]
}
