package selection_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/train"
	"github.com/sparsetag/sparsetag/train/selection"
)

// onlyChunk returns the first n sentences of an embedded CoNLL-2000 split
// with every chunk tag but those of type keep mapped to O.
func onlyChunk(split string, n int, keep string) ([]dataset.Example, error) {
	seqs, err := corpora.EmbeddedCoNLL2000(split)
	if err != nil {
		return nil, err
	}
	exs := make([]dataset.Example, n)
	for i, s := range seqs[:n] {
		for j, l := range s.Labels {
			if !strings.HasSuffix(l, "-"+keep) {
				s.Labels[j] = "O"
			}
		}
		exs[i] = dataset.FromSequence(split, s)
	}
	return exs, nil
}

// Select the penalty on a development set where one label dominates:
// CoNLL-2000 with only its PP chunks (every other token O). The models at
// the top of the path tag everything O (F1 0) for more betas than the
// patience; the path goes on until the F1 rises (here it still rises at
// the last beta), and leaves the best model in m.
func ExampleTaggerScorer() {
	trainSet, err := onlyChunk("train", 200, "PP")
	if err != nil {
		log.Fatal(err)
	}
	dev, err := onlyChunk("test", 100, "PP")
	if err != nil {
		log.Fatal(err)
	}
	enc, err := dataset.NewEncoder(dataset.CoNLL, nil) // words in a +-2 window
	if err != nil {
		log.Fatal(err)
	}
	m, c, err := dataset.NewTrainingModel(enc, trainSet, 1)
	if err != nil {
		log.Fatal(err)
	}
	score, err := selection.TaggerScorer(m, func(tg *chain.Tagger) (float64, error) {
		ev, err := dataset.EvaluateAll(tg, dev, 0)
		if err != nil {
			return 0, err
		}
		return ev.F1(), nil // chunk F1
	})
	if err != nil {
		log.Fatal(err)
	}
	po := train.PathOptions{K: 10, MinRatio: 1e-3, Score: score, Patience: 2}
	res, err := train.Path(context.Background(), m, c, train.Options{Problem: train.Problem{SumForm: true, C1: 1, C2: 1}}, po, nil)
	if err != nil {
		log.Fatal(err)
	}
	var scores []string
	for _, r := range res {
		scores = append(scores, fmt.Sprintf("%.2f", *r.Score))
	}
	fmt.Println("dev F1 along the path:", strings.Join(scores, " "))
	best := train.Selected(res)
	fmt.Printf("chose beta %d of %d (beta/beta_max %.4f): dev F1 %.2f\n", best+1, len(res), res[best].Beta/res[best].BetaMax, *res[best].Score)
	// Output:
	// dev F1 along the path: 0.00 0.00 0.00 0.00 0.00 0.00 0.00 0.27 0.66 0.75
	// chose beta 10 of 10 (beta/beta_max 0.0010): dev F1 0.75
}

// Fold splits a data set for K-fold cross-validation: element i is held
// out in fold i mod K.
func ExampleFold() {
	all := []string{"s0", "s1", "s2", "s3", "s4", "s5", "s6"}
	for f := range 3 {
		trainPart, held := selection.Fold(all, 3, f)
		fmt.Println(f, trainPart, held)
	}
	// Output:
	// 0 [s1 s2 s4 s5] [s0 s3 s6]
	// 1 [s0 s2 s3 s5 s6] [s1 s4]
	// 2 [s0 s1 s3 s4 s6] [s2 s5]
}
