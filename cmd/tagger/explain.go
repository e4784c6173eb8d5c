package main

import (
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/clifile"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/internal/ctxio"
	"github.com/sparsetag/sparsetag/tagging"
)

const explainUsage = `[flags] [FILE]

Tags every sequence of FILE (standard input when it is "-" or missing, as
for tag and eval) and shows why: for each
token, the predicted label with its marginal probability, its state score
(the sum of the weights of the token's attributes for that label) and the
runner-up label's, then the attributes that weigh most for the predicted
label (value x weight, largest absolute contribution first) and the
transition weight from the previous label (plus any observation-conditioned
pair features).

  # sequence 1: B-NP I-NP B-VP
  1    the DT   B-NP   p 0.9837   state 3.9268   (runner-up B-VP 0.0000)
       +1.8815  U00:_B-2
       ...
  2    cat NN   I-NP   p 0.9616   state 1.7670   (runner-up B-VP 0.0000)
       trans B-NP -> I-NP   +1.2818
       +0.8907  U01:the
       ... 2 more

Fields are separated by tabs.

--model may also name a CRFsuite, CRF++ or Wapiti model (see tagger tag -h):
its input is read as tagger tag reads it, and the attributes are the
model's own features (CRFsuite attributes, CRF++ feature strings such as
U02:the, Wapiti observations), the transition weight that of the bigram
features that read no input (B, b).`

func runExplain(e *env, args []string) error {
	var df dataFlags
	var modelPath string
	var top int
	fs := newFlagSet(e, "explain", explainUsage,
		"tagger explain --model chunk.model --format conll --top 5 sentences.txt")
	fs.StringVar(&df.format, "format", "conll", "input `format`: conll, crfsuite, conllu, ocr or text")
	fs.StringVar(&df.folds, "folds", "", "OCR folds to use, e.g. `0` (default all)")
	fs.StringVar(&modelPath, "model", "tagger.model", "model `file`: this toolkit's, or CRFsuite, CRF++ or Wapiti")
	fs.IntVar(&top, "top", 5, "show the `N` attributes that weigh most for each token's label (0: all)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	input, err := inputArg(pos)
	if err != nil {
		return err
	}
	if top < 0 {
		return usagef("--top must be >= 0, got %d", top)
	}
	if err := df.check(dataset.Formats); err != nil {
		return usageError{err}
	}
	m, err := clifile.LoadTagger(modelPath)
	if err != nil {
		return err
	}
	if df.format, err = modelInput(fs, m, df.format, false); err != nil {
		return err
	}
	exs, err := readExamples(input, df, df.format == "ocr", e.stdin)
	if err != nil {
		return err
	}
	// An interrupt fails the next write: what was written stays.
	return dataset.TagInputError(tagging.Explain(ctxio.Writer{Ctx: e.ctx, W: e.stdout}, m, exs, top), dataset.Format(df.format))
}
