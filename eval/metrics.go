package eval

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Evaluation accumulates token accuracy, per-label counts and chunk-level
// precision, recall and F1 in the convention of the CoNLL shared tasks'
// conlleval script (IOB1, IOB2/BIO, IOE and IOBES tags: "B-NP", "I-NP",
// "E-NP", "S-NP", "O"; see the package documentation). Add sequences with
// Add, then read the results. An Evaluation is not safe for concurrent use.
type Evaluation struct {
	Tokens, Correct int
	// Sequences counts the sequences added; SequencesCorrect those whose
	// every label is right (word accuracy for OCR).
	Sequences, SequencesCorrect int

	// chunk counts per type
	found, guessed, correct map[string]int
	// per-label token counts: gold, predicted, both
	labelGold, labelPred, labelOK map[string]int
	chunkTags                     bool // every label seen so far is a chunk tag
	confusion                     map[[2]string]int
}

// NewEvaluation returns an empty Evaluation.
func NewEvaluation() *Evaluation {
	return &Evaluation{
		found: map[string]int{}, guessed: map[string]int{}, correct: map[string]int{},
		labelGold: map[string]int{}, labelPred: map[string]int{}, labelOK: map[string]int{},
		chunkTags: true, confusion: map[[2]string]int{},
	}
}

// IsChunkTag reports whether label looks like a chunk tag: "O", or one of
// B, I, E, S followed by '-' and a type.
func IsChunkTag(label string) bool {
	if label == "O" {
		return true
	}
	return len(label) > 2 && label[1] == '-' && strings.IndexByte("BIESLU", label[0]) >= 0
}

// splitTag returns the prefix (BILOU's L and U read as IOBES's E and S)
// and the type of a chunk tag, "O" and "" for other labels.
func splitTag(label string) (tag, typ string) {
	if label == "O" || !IsChunkTag(label) {
		return "O", ""
	}
	switch label[0] {
	case 'L':
		return "E", label[2:]
	case 'U':
		return "S", label[2:]
	}
	return label[:1], label[2:]
}

// chunkEnd reports whether a chunk ended between the previous and the current
// token (conlleval's endOfChunk, with S as a single-token chunk).
func chunkEnd(prevTag, tag, prevType, typ string) bool {
	switch {
	case prevTag == "O":
		return false
	case prevTag == "E" || prevTag == "S":
		return true
	case tag == "B" || tag == "S" || tag == "O":
		return true
	case prevType != typ:
		return true
	}
	return false
}

// chunkStart reports whether a chunk starts at the current token
// (conlleval's startOfChunk).
func chunkStart(prevTag, tag, prevType, typ string) bool {
	switch {
	case tag == "O":
		return false
	case tag == "B" || tag == "S":
		return true
	case prevTag == "O" || prevTag == "E" || prevTag == "S":
		return true
	case prevType != typ:
		return true
	}
	return false
}

// Add adds one sequence of gold and predicted labels (same length).
func (e *Evaluation) Add(gold, pred []string) error {
	if len(gold) != len(pred) {
		return fmt.Errorf("eval: %d gold labels but %d predicted", len(gold), len(pred))
	}
	e.Sequences++
	allOK := true
	for t := range gold {
		if gold[t] != pred[t] {
			allOK = false
			break
		}
	}
	if allOK {
		e.SequencesCorrect++
	}
	inCorrect := false
	lastCorrect, lastCorrectType := "O", ""
	lastGuess, lastGuessType := "O", ""
	for t := 0; t <= len(gold); t++ {
		g, p := "O", "O"
		if t < len(gold) {
			g, p = gold[t], pred[t]
			e.Tokens++
			if g == p {
				e.Correct++
				e.labelOK[g]++
			}
			e.labelGold[g]++
			e.labelPred[p]++
			e.confusion[[2]string{g, p}]++
			if !IsChunkTag(g) || !IsChunkTag(p) {
				e.chunkTags = false
			}
		}
		ct, cty := splitTag(g)
		gt, gty := splitTag(p)
		ce := chunkEnd(lastCorrect, ct, lastCorrectType, cty)
		ge := chunkEnd(lastGuess, gt, lastGuessType, gty)
		cs := chunkStart(lastCorrect, ct, lastCorrectType, cty)
		gs := chunkStart(lastGuess, gt, lastGuessType, gty)
		if inCorrect {
			if ce && ge && lastGuessType == lastCorrectType {
				inCorrect = false
				e.correct[lastCorrectType]++
			} else if ce != ge || gty != cty {
				inCorrect = false
			}
		}
		if cs && gs && gty == cty {
			inCorrect = true
		}
		if cs {
			e.found[cty]++
		}
		if gs {
			e.guessed[gty]++
		}
		lastCorrect, lastCorrectType = ct, cty
		lastGuess, lastGuessType = gt, gty
	}
	return nil
}

// Accuracy returns the token accuracy.
func (e *Evaluation) Accuracy() float64 {
	if e.Tokens == 0 {
		return 0
	}
	return float64(e.Correct) / float64(e.Tokens)
}

// SequenceAccuracy returns the fraction of sequences labeled entirely
// correctly.
func (e *Evaluation) SequenceAccuracy() float64 {
	if e.Sequences == 0 {
		return 0
	}
	return float64(e.SequencesCorrect) / float64(e.Sequences)
}

// ChunkTags reports whether every label seen is a chunk tag, so that the
// chunk scores are meaningful.
func (e *Evaluation) ChunkTags() bool { return e.chunkTags && e.Tokens > 0 }

// PRF holds precision, recall and F1 with the counts behind them.
type PRF struct {
	Name                   string
	Gold, Predicted, Match int
	Precision, Recall, F1  float64
}

func prf(name string, gold, pred, match int) PRF {
	r := PRF{Name: name, Gold: gold, Predicted: pred, Match: match}
	if pred > 0 {
		r.Precision = float64(match) / float64(pred)
	}
	if gold > 0 {
		r.Recall = float64(match) / float64(gold)
	}
	if r.Precision+r.Recall > 0 {
		r.F1 = 2 * r.Precision * r.Recall / (r.Precision + r.Recall)
	}
	return r
}

// Chunks returns the overall chunk scores and the scores per chunk type,
// sorted by type.
func (e *Evaluation) Chunks() (overall PRF, types []PRF) {
	var g, p, c int
	names := map[string]bool{}
	for k, v := range e.found {
		g += v
		names[k] = true
	}
	for k, v := range e.guessed {
		p += v
		names[k] = true
	}
	for _, v := range e.correct {
		c += v
	}
	for k := range names {
		types = append(types, prf(k, e.found[k], e.guessed[k], e.correct[k]))
	}
	sort.Slice(types, func(i, j int) bool { return types[i].Name < types[j].Name })
	return prf("overall", g, p, c), types
}

// Labels returns token-level scores per label, sorted by label.
func (e *Evaluation) Labels() []PRF {
	names := map[string]bool{}
	for k := range e.labelGold {
		names[k] = true
	}
	for k := range e.labelPred {
		names[k] = true
	}
	var out []PRF
	for k := range names {
		out = append(out, prf(k, e.labelGold[k], e.labelPred[k], e.labelOK[k]))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// F1 returns the chunk F1 when the labels are chunk tags, and the token
// accuracy otherwise (the number scripts read from the "f1:" line).
func (e *Evaluation) F1() float64 {
	if e.ChunkTags() {
		o, _ := e.Chunks()
		return o.F1
	}
	return e.Accuracy()
}

// Confusions returns the most frequent (gold, predicted) label errors, at
// most n, most frequent first.
func (e *Evaluation) Confusions(n int) []Confusion {
	var out []Confusion
	for k, v := range e.confusion {
		if k[0] != k[1] {
			out = append(out, Confusion{Gold: k[0], Predicted: k[1], Count: v})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		if out[i].Gold != out[j].Gold {
			return out[i].Gold < out[j].Gold
		}
		return out[i].Predicted < out[j].Predicted
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// Confusion is one kind of labeling error.
type Confusion struct {
	Gold, Predicted string
	Count           int
}

// WriteReport writes a conlleval-like report, ending with the two lines
// scripts read: "accuracy: 0.xxxx" and "f1: 0.xxxx".
func (e *Evaluation) WriteReport(w io.Writer) error {
	var b strings.Builder
	if e.ChunkTags() {
		o, types := e.Chunks()
		fmt.Fprintf(&b, "processed %d tokens with %d phrases; found: %d phrases; correct: %d.\n", e.Tokens, o.Gold, o.Predicted, o.Match)
		fmt.Fprintf(&b, "accuracy: %6.2f%%; precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f\n",
			100*e.Accuracy(), 100*o.Precision, 100*o.Recall, 100*o.F1)
		for _, t := range types {
			fmt.Fprintf(&b, "%17s: precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f  %d\n", t.Name, 100*t.Precision, 100*t.Recall, 100*t.F1, t.Predicted)
		}
	} else {
		fmt.Fprintf(&b, "processed %d tokens; correct: %d.\n", e.Tokens, e.Correct)
	}
	fmt.Fprintf(&b, "per label (token level):\n")
	for _, l := range e.Labels() {
		fmt.Fprintf(&b, "%17s: precision: %6.2f%%; recall: %6.2f%%; F1: %6.2f  gold %d predicted %d\n", l.Name, 100*l.Precision, 100*l.Recall, 100*l.F1, l.Gold, l.Predicted)
	}
	if c := e.Confusions(5); len(c) > 0 {
		fmt.Fprintf(&b, "most frequent confusions (gold -> predicted):\n")
		for _, x := range c {
			fmt.Fprintf(&b, "%17s -> %-10s %d\n", x.Gold, x.Predicted, x.Count)
		}
	}
	fmt.Fprintf(&b, "accuracy: %.4f\n", e.Accuracy())
	fmt.Fprintf(&b, "f1: %.4f\n", e.F1())
	_, err := io.WriteString(w, b.String())
	return err
}
