package eval

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestEvaluationChunkSchemes checks chunk counts on IOB1 and IOBES inputs,
// derived by hand from the chunk boundaries of doc.go (conlleval's, plus S).
func TestEvaluationChunkSchemes(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		gold, pred              []string
		found, guessed, correct int
	}{
		// IOBES: gold NP(0) VP(1-2); the prediction ends VP with I- before O,
		// which closes the same chunk.
		{"iobes", []string{"S-NP", "B-VP", "E-VP", "O"}, []string{"S-NP", "B-VP", "I-VP", "O"}, 2, 2, 2},
		// S is a chunk of one token whatever follows: gold NP(0) NP(1), and
		// the predicted NP(0) is correct.
		{"iobes-s-then-i", []string{"S-NP", "I-NP"}, []string{"S-NP", "O"}, 2, 1, 1},
		// S starts a chunk even right after B of its type: gold NP(0) NP(1),
		// predicted NP(0-1).
		{"iobes-b-then-s", []string{"B-NP", "S-NP"}, []string{"B-NP", "I-NP"}, 2, 1, 0},
		// IOB1: B- separates two adjacent NPs in gold; the prediction merges them.
		{"iob1", []string{"I-NP", "I-NP", "B-NP", "O"}, []string{"I-NP", "I-NP", "I-NP", "O"}, 2, 1, 0},
		// A type change inside I- tags starts a new chunk.
		{"type-change", []string{"B-NP", "I-NP", "I-VP"}, []string{"B-NP", "I-NP", "I-VP"}, 2, 2, 2},
		// BILOU reads as IOBES: U is S, L is E. Gold NP(0) VP(1-2) NP(3);
		// the prediction gets the VP and the last NP.
		{"bilou", []string{"U-NP", "B-VP", "L-VP", "U-NP"}, []string{"O", "B-VP", "L-VP", "U-NP"}, 3, 2, 2},
		{"bilou-unit-then-inside", []string{"U-NP", "I-NP"}, []string{"U-NP", "O"}, 2, 1, 1},
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

// TestReportMatchesConlleval checks the counts and the conlleval part of the
// report on a small hand-worked case. Derivation (conlleval's rules, see
// doc.go; conlleval.pl 2004-01-26 prints the same lines for this input):
//
//	sequence 1  gold B-NP I-NP B-VP O    B-NP  chunks NP[0,1] VP[2] NP[4]
//	            pred B-NP I-NP B-VP B-VP B-NP  chunks NP[0,1] VP[2] VP[3] NP[4]
//	sequence 2  gold I-NP I-NP O B-PP B-NP     chunks NP[0,1] PP[3] NP[4]
//	            pred B-NP I-NP O B-PP I-PP     chunks NP[0,1] PP[3,4]
//
// Gold has 6 chunks (NP 4, PP 1, VP 1), the prediction 6 (NP 3, PP 1, VP 2).
// Correct: NP[0,1], VP[2] (both end before token 3), NP[4] in sequence 1;
// NP[0,1] in sequence 2 (an I- after O starts a chunk, as in IOB1); PP[3]
// is wrong because the predicted PP goes on. So 4 correct: precision =
// recall = FB1 = 4/6. NP: 3/3, 3/4, FB1 2*1*0.75/1.75 = 85.71%; PP: 0/1;
// VP: 1/2, 1/1, FB1 66.67%. Tokens: 10, of which 3 wrong (1:3, 2:0, 2:4).
func TestReportMatchesConlleval(t *testing.T) {
	ev := NewEvaluation()
	for _, s := range [][2][]string{
		{{"B-NP", "I-NP", "B-VP", "O", "B-NP"}, {"B-NP", "I-NP", "B-VP", "B-VP", "B-NP"}},
		{{"I-NP", "I-NP", "O", "B-PP", "B-NP"}, {"B-NP", "I-NP", "O", "B-PP", "I-PP"}},
	} {
		if err := ev.Add(s[0], s[1]); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	if err := ev.WriteReport(&b); err != nil {
		t.Fatal(err)
	}
	want := `processed 10 tokens with 6 phrases; found: 6 phrases; correct: 4.
accuracy:  70.00%; precision:  66.67%; recall:  66.67%; FB1:  66.67
               NP: precision: 100.00%; recall:  75.00%; FB1:  85.71  3
               PP: precision:   0.00%; recall:   0.00%; FB1:   0.00  1
               VP: precision:  50.00%; recall: 100.00%; FB1:  66.67  2
`
	if got := b.String(); !strings.HasPrefix(got, want) {
		t.Fatalf("report starts\n%s\nwant\n%s", got[:min(len(got), len(want))], want)
	}
}

// TestIOEMatchesConlleval: in IOE1, E-NP marks the end of a chunk followed by
// another NP. Gold "I-NP E-NP I-NP O" has NP[0,1] and NP[2]; the prediction
// "I-NP I-NP I-NP O" has NP[0,2], which matches neither (conlleval.pl:
// "processed 4 tokens with 2 phrases; found: 1 phrases; correct: 0.").
func TestIOEMatchesConlleval(t *testing.T) {
	ev := NewEvaluation()
	if err := ev.Add([]string{"I-NP", "E-NP", "I-NP", "O"}, []string{"I-NP", "I-NP", "I-NP", "O"}); err != nil {
		t.Fatal(err)
	}
	if o, _ := ev.Chunks(); o.Gold != 2 || o.Predicted != 1 || o.Match != 0 {
		t.Fatalf("gold %d predicted %d correct %d, want 2 1 0", o.Gold, o.Predicted, o.Match)
	}
}

// TestIOBESEqualsIOB2 checks the claim of doc.go: on well-formed IOBES
// sequences the chunk scores equal those of the same sequences converted to
// IOB2 (S-X to B-X, E-X to I-X), which conlleval reads.
func TestIOBESEqualsIOB2(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	iobes, iob2 := NewEvaluation(), NewEvaluation()
	for range 500 {
		n := 1 + rng.IntN(12)
		gold, pred := randomIOBES(rng, n), randomIOBES(rng, n)
		if err := iobes.Add(gold, pred); err != nil {
			t.Fatal(err)
		}
		if err := iob2.Add(toIOB2(gold), toIOB2(pred)); err != nil {
			t.Fatal(err)
		}
	}
	o1, types1 := iobes.Chunks()
	o2, types2 := iob2.Chunks()
	if o1.Match == 0 || o1.Match == o1.Gold {
		t.Fatalf("degenerate test data: %d of %d chunks correct", o1.Match, o1.Gold)
	}
	if o1 != o2 || !slices.Equal(types1, types2) {
		t.Fatalf("IOBES scores %+v %+v differ from IOB2 scores %+v %+v", o1, types1, o2, types2)
	}
}

// randomIOBES returns n well-formed IOBES labels: O tokens and chunks of
// one to three tokens of type NP or VP.
func randomIOBES(rng *rand.Rand, n int) []string {
	out := make([]string, 0, n)
	for len(out) < n {
		if rng.IntN(3) == 0 {
			out = append(out, "O")
			continue
		}
		typ := []string{"NP", "VP"}[rng.IntN(2)]
		k := min(1+rng.IntN(3), n-len(out))
		if k == 1 {
			out = append(out, "S-"+typ)
			continue
		}
		out = append(out, "B-"+typ)
		for range k - 2 {
			out = append(out, "I-"+typ)
		}
		out = append(out, "E-"+typ)
	}
	return out
}

func toIOB2(labels []string) []string {
	out := make([]string, len(labels))
	for i, l := range labels {
		switch l[0] {
		case 'S':
			l = "B" + l[1:]
		case 'E':
			l = "I" + l[1:]
		}
		out[i] = l
	}
	return out
}
