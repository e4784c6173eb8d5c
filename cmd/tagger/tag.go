package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/clifile"
	"runtime"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/flagcheck"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/memlimit"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/tagging"
)

// tagFlags are the options of tag.
type tagFlags struct {
	dataFlags
	models    modelList
	output    string
	nbest     int
	bio       bool
	marginals bool
	forced    bool
	threads   int
	memLimit  string
}

const tagUsage = `[flags] [FILE]

Labels every sequence of FILE (standard input when FILE is "-" or missing)
and writes it to standard output as soon as it is tagged, in input order:
memory is bounded by a batch of sequences, not by the input's size. Input
without any sequence (an empty file or standard input) gives empty output
and exit status 0, as for every peer tagger.

  --output conll  the input columns plus the predicted label, a blank line
                  after each sequence; for --format conllu, the input's
                  CoNLL-U lines (comments, multiword tokens, empty nodes,
                  all 10 columns) with the label column set to the
                  prediction: valid CoNLL-U
  --output slash  one line per sequence: word/TAG word/TAG ...
  --output json   one JSON object per line: tokens, labels, marginals (of
                  each chosen label), prob (of the sequence), score, and
                  nbest (with --nbest N > 1)

--nbest N lists the N best label sequences, each with its probability: in
conll output as N blocks per sequence, each after a line "# nbest K prob P";
in slash output as N lines per sequence, each ending with a tab and P, and a
blank line after each sequence.
--marginals adds the marginal probability of each token's label (a column in
conll output, Marginal=P in the MISC column of CoNLL-U, word/TAG/P in slash
output) and, in conll output, a line "# prob P" with the sequence
probability.
--bio forbids impossible BIO (IOB2) transitions: O -> I-X, a sequence
starting with I-X, and B-X or I-X -> I-Y.
--forced reads the input as labeled (column formats and crfsuite): where the
label column holds a label of the model, that label is fixed; "_" or "?"
leave the token free. The output shows the decoded labels.
With --bio or --forced, probabilities are conditional on the constraints.

--model may also name a model trained by CRFsuite, CRF++ (binary or text) or
Wapiti (text), gzipped or not; its format is detected and it tags exactly as
the toolkit's own tagger does. A CRFsuite model reads CRFsuite attribute
files (--format crfsuite is implied); CRF++ and Wapiti models read
CoNLL-style columns with every column passed to the model's own templates.
--nbest and --marginals work with peer models; --bio and --forced do not.
A CRFsuite attribute file means the same to every model: its first field is
the label field, as crfsuite tag reads it, ignored (it may be empty) except
by --forced; the attributes follow.

--format text reads one sentence per line and tokenizes it as the Penn
Treebank (CoNLL-2000, WSJ) is tokenized: 1.8, 9:30 and U.S. stay whole,
$5.50 is $ 5.50, don't is do n't, quotes become doubled backquotes and
apostrophes, the final period is split off. It gives the model only the
words: a model whose template reads other columns (POS tags) needs CoNLL
input with those columns, or models before it that predict them.

--model repeated runs the models as a pipeline, in order: each model but
the last tags the sequence, and its labels become one more token column,
appended after the existing ones, of the next model's input; the last
model's labels (and --nbest, --bio, --marginals) are the output, and conll
output shows every column. The English models built into the binary chunk
plain text this way (the POS tagger reads words, the chunker words and POS
tags):

  echo 'He reckons the current account deficit will narrow.' |
    tagger tag --format text --model embedded:models/en-pos.model --model embedded:models/en-chunk.model

--label-column N names the label column of conll input (1-based, negative
from the end; default -1, the last): with --forced it holds the labels to
fix; without, set explicitly, it is left out of the token columns (to tag a
labeled file, e.g. --label-column 2 for the POS tags of CoNLL-2000).`

func runTag(e *env, args []string) error {
	var tf tagFlags
	fs := newFlagSet(e, "tag", tagUsage,
		"tagger tag --format conll --model chunk.model --nbest 3 --bio --output json test.txt")
	fs.StringVar(&tf.format, "format", "conll", "input `format`: conll, crfsuite, conllu, ocr or text (raw text, one sentence per line)")
	fs.StringVar(&tf.folds, "folds", "", "OCR folds to use, e.g. `0` (default all)")
	fs.Var(&tf.models, "model", "model `file`: this toolkit's, embedded:models/en-pos.model or embedded:models/en-chunk.model, or CRFsuite, CRF++ or Wapiti; repeat for a pipeline (default tagger.model)")
	tf.labelColumnFlag(fs)
	fs.StringVar(&tf.output, "output", "conll", "output `format`: conll, slash or json")
	fs.IntVar(&tf.nbest, "nbest", 1, "list the `N` best label sequences with their probabilities")
	fs.BoolVar(&tf.bio, "bio", false, "forbid impossible BIO transitions (O -> I-X, start -> I-X, B-X/I-X -> I-Y)")
	fs.BoolVar(&tf.marginals, "marginals", false, "also print each token's label probability and the sequence probability")
	fs.BoolVar(&tf.forced, "forced", false, "fix the labels given in the label column (\"_\" or \"?\": free) and decode the rest")
	fs.IntVar(&tf.threads, "threads", runtime.GOMAXPROCS(0), "tag on `N` goroutines (output order is input order)")
	fs.StringVar(&tf.memLimit, "memory-limit", "auto", "refuse an --nbest whose decoder needs more than `size` for sequences of 1000 tokens, and longer sequences beyond it (e.g. 800M, 4G; 0: no limit; auto: half of the machine's RAM)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	input, err := inputArg(pos)
	if err != nil {
		return err
	}
	switch tf.output {
	case "conll", "slash", "json":
	default:
		return usagef("unknown --output %q (want conll, slash or json)", tf.output)
	}
	if tf.nbest < 1 {
		return usagef("--nbest must be at least 1, got %d", tf.nbest)
	}
	if err := flagcheck.First(tf.dataFlags.check(dataset.Formats), flagcheck.Threads(tf.threads)); err != nil {
		return usageError{err}
	}
	// auto: half of the RAM, tagging.DefaultMemoryLimit when it cannot be
	// read.
	limit, err := memlimit.ParseDefault(tf.memLimit, tagging.DefaultMemoryLimit)
	if err != nil {
		return usagef("--memory-limit: %v", err)
	}
	if tf.forced && (tf.format == "ocr" || tf.format == "text") {
		return usagef("--forced needs a label column: use it with conll, conllu or crfsuite input, not %s", tf.format)
	}
	labelSet, err := tf.checkLabelColumn(fs)
	if err != nil {
		return err
	}
	m, err := loadPipeline(fs, tf.models, tf.format)
	if err != nil {
		return err
	}
	if e.tuneGC {
		memlimit.BoundHeap()
	}
	var opt chain.DecodeOptions
	opt.N = tf.nbest
	maxBytes, maxLen, err := tagging.NBestBound(tf.nbest, len(m.Labels()), tf.threads, limit)
	if err != nil {
		return usagef("--nbest %d: %v (--memory-limit)", tf.nbest, err)
	}
	opt.MaxBytes = maxBytes
	opt.Posterior = tf.marginals || tf.output == "json"
	if (tf.bio && !m.Supports(tagging.Constrained)) || (tf.forced && !m.Supports(tagging.Forced)) {
		return usagef("--bio and --forced need a model of this toolkit, not a %s model", m.Format())
	}
	if tf.format, err = modelInput(fs, m, tf.format, true); err != nil {
		return err
	}
	if tf.bio {
		if !chain.HasChunkLabels(m.Labels()) {
			return fmt.Errorf("--bio: the labels of %s are not BIO chunk tags (B-X, I-X, O): %s",
				tf.models.last(), strings.Join(m.Labels(), " "))
		}
		opt.Constraints = chain.BIOConstraints(m.Labels())
	}
	// OCR input always carries its letters; other formats are read as
	// labeled only for --forced, and conll input with --label-column (its
	// label column is then not a token column).
	labeled := tf.format == "ocr" || tf.forced || labelSet
	r, in, err := openExamples(e, input, tf.dataFlags, labeled)
	if err != nil {
		return dataset.TagInputError(err, dataset.Format(tf.format)) // OCR input is read here, whole
	}
	defer in.Close()
	so := tagging.StreamOptions{Output: tf.output, Decode: opt, Marginals: tf.marginals, Threads: tf.threads}
	if tf.forced {
		so.Fixer = dataset.NewLabelFixer(m.Labels(), clifile.Name(input))
	}
	return nbestError(dataset.TagInputError(tagging.Stream(e.stdout, m, r, so), dataset.Format(tf.format)), tf.nbest, maxLen)
}

// nbestError explains the error of a sequence too long for --nbest n
// under the memory limit, which serves sequences of up to maxLen
// positions (tagging.NBestBound).
func nbestError(err error, n, maxLen int) error {
	var me *chain.MemoryError
	if errors.As(err, &me) {
		return fmt.Errorf("--nbest %d: %w (--memory-limit serves sequences of up to %d tokens at --nbest %d: lower --nbest or raise --memory-limit)", n, err, maxLen, n)
	}
	return err
}

// inputArg returns the input named by the positional arguments: "-"
// (standard input) when there are none.
func inputArg(pos []string) (string, error) {
	switch len(pos) {
	case 0:
		return "-", nil
	case 1:
		return pos[0], nil
	}
	return "", usagef("want at most one input file (none or - for stdin), got %d", len(pos))
}

// modelInput returns the input format to read for m: format, or the one
// format m reads when --format was not set (tagging.CheckInput). A format
// m cannot read is a usage error; with columns, so is one with fewer token
// columns than m's template reads.
func modelInput(fs *flag.FlagSet, m tagging.Tagger, format string, columns bool) (string, error) {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "format" })
	f, err := tagging.CheckInput(m, dataset.Format(format), set, columns)
	var fe *tagging.FormatError
	if errors.As(err, &fe) {
		return "", usageError{err}
	}
	return string(f), err
}

// modelList is the value of a --model flag that may be repeated (a
// pipeline).
type modelList []string

func (l *modelList) String() string { return strings.Join(*l, " ") }

func (l *modelList) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// paths returns the models given, tagger.model when none.
func (l modelList) paths() []string {
	if len(l) == 0 {
		return []string{"tagger.model"}
	}
	return l
}

// last returns the last model given.
func (l modelList) last() string { p := l.paths(); return p[len(p)-1] }

// loadPipeline loads the models of paths, in order, as one Tagger (a
// tagging.Pipeline; for one model, one that checks the columns of its
// input), after checking that input of format (when --format is set)
// gives every model its token columns.
func loadPipeline(fs *flag.FlagSet, paths modelList, format string) (tagging.Tagger, error) {
	var models []tagging.Tagger
	for _, p := range paths.paths() {
		m, err := clifile.LoadTagger(p)
		if err != nil {
			return nil, err
		}
		models = append(models, m)
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "format" })
	if set {
		if err := tagging.CheckPipelineColumns(models, paths.paths(), dataset.Format(format)); err != nil {
			return nil, usage(err)
		}
	}
	return tagging.NewPipeline(models, paths.paths())
}
