package chain

import "testing"

// TestEvaluationChunkSchemes checks chunk counts on IOB1 and IOBES inputs
// derived by hand from conlleval's chunk boundaries.
func TestEvaluationChunkSchemes(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		gold, pred              []string
		found, guessed, correct int
	}{
		// IOBES: gold NP(0) VP(1-2); the prediction ends VP with I- before O,
		// which closes the same chunk.
		{"iobes", []string{"S-NP", "B-VP", "E-VP", "O"}, []string{"S-NP", "B-VP", "I-VP", "O"}, 2, 2, 2},
		// IOB1: B- separates two adjacent NPs in gold; the prediction merges them.
		{"iob1", []string{"I-NP", "I-NP", "B-NP", "O"}, []string{"I-NP", "I-NP", "I-NP", "O"}, 2, 1, 0},
		// A type change inside I- tags starts a new chunk.
		{"type-change", []string{"B-NP", "I-NP", "I-VP"}, []string{"B-NP", "I-NP", "I-VP"}, 2, 2, 2},
		// A chunk open at the end of the sequence is closed there.
		{"end-of-sequence", []string{"O", "B-PP"}, []string{"O", "B-NP"}, 1, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := NewEvaluation()
			if err := ev.Add(tc.gold, tc.pred); err != nil {
				t.Fatal(err)
			}
			o, _ := ev.Chunks()
			if o.Gold != tc.found || o.Predicted != tc.guessed || o.Match != tc.correct {
				t.Fatalf("gold %d predicted %d correct %d, want %d %d %d", o.Gold, o.Predicted, o.Match, tc.found, tc.guessed, tc.correct)
			}
		})
	}
	ev := NewEvaluation()
	if err := ev.Add([]string{"NN", "VB"}, []string{"NN", "NN"}); err != nil {
		t.Fatal(err)
	}
	if ev.ChunkTags() || ev.F1() != 0.5 {
		t.Fatalf("POS labels: chunk tags %v, f1 %v (want token accuracy 0.5)", ev.ChunkTags(), ev.F1())
	}
	if err := ev.Add([]string{"A"}, nil); err == nil {
		t.Fatal("length mismatch accepted")
	}
}
