package eval_test

import (
	"fmt"

	"github.com/sparsetag/sparsetag/eval"
)

// Evaluate predicted chunk tags against gold ones, as the CoNLL conlleval
// script does: a chunk counts only if its type and both ends are right.
func ExampleEvaluation() {
	ev := eval.NewEvaluation()
	// [NP the dog] [VP runs]: all correct.
	_ = ev.Add([]string{"B-NP", "I-NP", "B-VP"}, []string{"B-NP", "I-NP", "B-VP"})
	// [NP a cat] [VP sleeps], predicted [NP a] [NP cat] [VP sleeps]:
	// one token wrong, and the predicted NP chunks are both wrong.
	_ = ev.Add([]string{"B-NP", "I-NP", "B-VP"}, []string{"B-NP", "B-NP", "B-VP"})

	// Derivation: 6 tokens, 5 right; gold chunks NP VP NP VP, predicted
	// NP VP NP NP VP, of which NP(the dog), VP(runs) and VP(sleeps) match:
	// precision 3/5, recall 3/4, F1 = 2PR/(P+R) = 2/3.
	overall, types := ev.Chunks()
	fmt.Printf("tokens %d, correct %d, accuracy %.4f\n", ev.Tokens, ev.Correct, ev.Accuracy())
	fmt.Printf("chunks: gold %d, predicted %d, correct %d\n", overall.Gold, overall.Predicted, overall.Match)
	fmt.Printf("precision %.4f, recall %.4f, F1 %.4f\n", overall.Precision, overall.Recall, overall.F1)
	for _, c := range types {
		fmt.Printf("  %s: precision %.4f, recall %.4f, F1 %.4f\n", c.Name, c.Precision, c.Recall, c.F1)
	}
	fmt.Printf("sentences entirely right: %d of %d\n", ev.SequencesCorrect, ev.Sequences)
	// ev.WriteReport(os.Stdout) prints the conlleval-style report.

	// Output:
	// tokens 6, correct 5, accuracy 0.8333
	// chunks: gold 4, predicted 5, correct 3
	// precision 0.6000, recall 0.7500, F1 0.6667
	//   NP: precision 0.3333, recall 0.5000, F1 0.4000
	//   VP: precision 1.0000, recall 1.0000, F1 1.0000
	// sentences entirely right: 1 of 2
}
