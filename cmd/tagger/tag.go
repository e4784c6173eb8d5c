package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/clifile"
	"os"
	"runtime"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/flagcheck"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/memlimit"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/scheme"
	"github.com/sparsetag/sparsetag/tagging"
)

// tagFlags are the options of tag.
type tagFlags struct {
	dataFlags
	models    modelList
	output    string
	nbest     int
	bio       bool
	scheme    string
	trans     string
	posterior bool
	perFile   bool
	tokenizer string
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
                  nbest (with --nbest N > 1); for --format text also
                  offsets (each token's start and end in code points and
                  start_byte and end_byte in bytes, in its line); for
                  --format document line (the document's), sentence and
                  offsets (in the document)
  --output spans  --format document only: one JSON object per document:
                  line, text, sentences (start, end, start_byte,
                  end_byte) and spans (start, end, start_byte, end_byte,
                  label, text, confidence): the chunks of the label
                  scheme (--scheme, else detected from the labels), decoded
                  under its constraints, each with its marginal
                  probability. start and end count code points, start_byte
                  and end_byte UTF-8 bytes.

--nbest N lists the N best label sequences, each with its probability: in
conll output as N blocks per sequence, each after a line "# nbest K prob P";
in slash output as N lines per sequence, each ending with a tab and P, and a
blank line after each sequence.
--marginals adds the marginal probability of each token's label (a column in
conll output, Marginal=P in the MISC column of CoNLL-U, word/TAG/P in slash
output) and, in conll output, a line "# prob P" with the sequence
probability.
--bio forbids impossible BIO (IOB2) transitions: O -> I-X, a sequence
starting with I-X, and B-X or I-X -> I-Y. It is --scheme iob2.
--scheme iob1|iob2|iobes|bilou decodes only label sequences valid in the
scheme (transitions, first and last labels); the model's labels must all
be O or chunk labels of the scheme.
--constraints FILE adds the transitions, first and last labels a file
forbids or allows, one rule a line (# comments):
  forbid PREV CUR | allow PREV CUR | forbid start|end LABEL | allow start|end LABEL
with * in a label standing for any characters (I-*); when there are allow
rules of a kind, only what they allow is allowed. It combines with
--scheme (both must hold).
--posterior chooses the valid sequence of highest summed log marginals
(posterior, max-marginal decoding, Wapiti's -p) instead of the Viterbi
path.
--forced reads the input as labeled (column formats and crfsuite): where the
label column holds a label of the model, that label is fixed; "_" or "?"
leave the token free. The output shows the decoded labels.
With --bio, --scheme or --forced, probabilities are conditional on the
constraints.

--model may also name a model trained by CRFsuite, CRF++ (binary or text) or
Wapiti (text), gzipped or not; its format is detected and it tags exactly as
the toolkit's own tagger does. A CRFsuite model reads CRFsuite attribute
files (--format crfsuite is implied); CRF++ and Wapiti models read
CoNLL-style columns with every column passed to the model's own templates.
--nbest, --marginals, --scheme, --posterior and --forced work with peer
models too (constraints on their score lattices).
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
labeled file, e.g. --label-column 2 for the POS tags of CoNLL-2000).

--format document reads running text, one document per line (or the whole
input as one document with --document-per-file), splits it into sentences
(abbreviations, initials, numbers, quotes and brackets handled: see
docs/raw-text.md) and tokenizes each as --format text does, or with
--tokenizer FILE as the normalizer and pre-tokenizer of a HuggingFace
tokenizer.json say (BERT-style files; others are refused, naming what is
not supported). Every token keeps its place in the document (--output
json, spans).`

func runTag(e *env, args []string) error {
	var tf tagFlags
	fs := tf.flagSet(e)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	input, err := inputArg(pos)
	if err != nil {
		return err
	}
	sch, err := tf.checkDecoding()
	if err != nil {
		return err
	}
	document := tf.format == "document"
	formatFlags := tf.dataFlags
	if document {
		formatFlags.format = string(dataset.Text) // checked as text: the same words
	}
	if err := flagcheck.First(formatFlags.check(dataset.Formats), flagcheck.Threads(tf.threads)); err != nil {
		return usageError{err}
	}
	// auto: half of the RAM, tagging.DefaultMemoryLimit when it cannot be
	// read.
	limit, err := memlimit.ParseDefault(tf.memLimit, tagging.DefaultMemoryLimit)
	if err != nil {
		return usagef("--memory-limit: %v", err)
	}
	if tf.forced && (tf.format == "ocr" || tf.format == "text" || document) {
		return usagef("--forced needs a label column: use it with conll, conllu or crfsuite input, not %s", tf.format)
	}
	labelSet, err := tf.checkLabelColumn(fs)
	if err != nil {
		return err
	}
	m, err := loadPipeline(fs, tf.models, formatFlags.format)
	if err != nil {
		return err
	}
	if e.tuneGC {
		memlimit.BoundHeap()
	}
	opt, maxLen, err := tf.decodeOptions(fs, m, sch, limit)
	if err != nil {
		return err
	}
	if document {
		return tagDocuments(e, input, m, tf, opt)
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

// flagSet returns the flags of tagger tag, bound to tf.
func (tf *tagFlags) flagSet(e *env) *flag.FlagSet {
	fs := newFlagSet(e, "tag", tagUsage,
		"tagger tag --format conll --model chunk.model --nbest 3 --bio --output json test.txt")
	fs.StringVar(&tf.format, "format", "conll", "input `format`: conll, crfsuite, conllu, ocr, text (raw text, one sentence per line) or document (running text, one document per line)")
	fs.StringVar(&tf.folds, "folds", "", "OCR folds to use, e.g. `0` (default all)")
	fs.Var(&tf.models, "model", "model `file`: this toolkit's, embedded:models/en-pos.model or embedded:models/en-chunk.model, or CRFsuite, CRF++ or Wapiti; repeat for a pipeline (default tagger.model)")
	tf.labelColumnFlag(fs)
	fs.StringVar(&tf.output, "output", "conll", "output `format`: conll, slash, json or spans (--format document)")
	fs.IntVar(&tf.nbest, "nbest", 1, "list the `N` best label sequences with their probabilities")
	fs.BoolVar(&tf.bio, "bio", false, "forbid impossible BIO transitions (O -> I-X, start -> I-X, B-X/I-X -> I-Y)")
	fs.StringVar(&tf.scheme, "scheme", "", "decode only sequences valid in the label `scheme`: iob1, iob2, iobes or bilou")
	fs.StringVar(&tf.trans, "constraints", "", "decode only sequences the transitions `file` allows (forbid|allow PREV CUR, forbid|allow start|end LABEL; see docs/raw-text.md)")
	fs.BoolVar(&tf.posterior, "posterior", false, "posterior decoding: the valid sequence of highest summed log marginals, not the Viterbi path")
	fs.BoolVar(&tf.perFile, "document-per-file", false, "--format document: the whole input is one document (default: one per line)")
	fs.StringVar(&tf.tokenizer, "tokenizer", "ptb", "--format document: the `tokenizer`: ptb (Penn Treebank) or a HuggingFace tokenizer.json file (its normalizer and pre-tokenizer make the words)")
	fs.BoolVar(&tf.marginals, "marginals", false, "also print each token's label probability and the sequence probability")
	fs.BoolVar(&tf.forced, "forced", false, "fix the labels given in the label column (\"_\" or \"?\": free) and decode the rest")
	fs.IntVar(&tf.threads, "threads", runtime.GOMAXPROCS(0), "tag on `N` goroutines (output order is input order)")
	fs.StringVar(&tf.memLimit, "memory-limit", "auto", "refuse an --nbest whose decoder needs more than `size` for sequences of 1000 tokens, and longer sequences beyond it (e.g. 800M, 4G; 0: no limit; auto: half of the machine's RAM)")
	return fs
}

// checkDecoding checks the output and decoding flags that need no model
// and returns the label scheme to decode in (0: none; --bio is iob2).
func (tf *tagFlags) checkDecoding() (scheme.Scheme, error) {
	document := tf.format == "document"
	switch tf.output {
	case "conll", "slash", "json":
	case "spans":
		if !document {
			return 0, usagef("--output spans needs --format document (running text)")
		}
	default:
		return 0, usagef("unknown --output %q (want conll, slash, json or spans)", tf.output)
	}
	if !document && (tf.perFile || tf.tokenizer != "ptb") {
		return 0, usagef("--document-per-file and --tokenizer go with --format document")
	}
	if tf.bio {
		if tf.scheme != "" && tf.scheme != "iob2" && tf.scheme != "bio" {
			return 0, usagef("--bio is --scheme iob2, not --scheme %s", tf.scheme)
		}
		tf.scheme = "iob2"
	}
	var sch scheme.Scheme
	if tf.scheme != "" {
		var err error
		if sch, err = scheme.Parse(tf.scheme); err != nil {
			return 0, usageError{err}
		}
	}
	if tf.posterior && tf.nbest > 1 {
		return 0, usagef("--posterior finds one label sequence: it does not go with --nbest %d", tf.nbest)
	}
	if tf.nbest < 1 {
		return 0, usagef("--nbest must be at least 1, got %d", tf.nbest)
	}
	return sch, nil
}

// decodeOptions returns the decoding options of the flags for model m
// (the n-best memory bound under limit, constraints of the scheme sch and
// the --constraints file) and the longest sequence --nbest serves under
// limit; it checks that m supports them and reads the input format (into
// tf.format) that m takes.
func (tf *tagFlags) decodeOptions(fs *flag.FlagSet, m tagging.Tagger, sch scheme.Scheme, limit int64) (chain.DecodeOptions, int, error) {
	var opt chain.DecodeOptions
	opt.N = tf.nbest
	maxBytes, maxLen, err := tagging.NBestBound(tf.nbest, len(m.Labels()), tf.threads, limit)
	if err != nil {
		return opt, 0, usagef("--nbest %d: %v (--memory-limit)", tf.nbest, err)
	}
	opt.MaxBytes = maxBytes
	opt.Posterior = tf.marginals || tf.output == "json"
	opt.MaxMarginal = tf.posterior
	if ((sch != 0 || tf.trans != "") && !m.Supports(tagging.Constrained)) || (tf.forced && !m.Supports(tagging.Forced)) {
		return opt, 0, usagef("--bio, --scheme and --forced need constrained decoding, which a %s model does not support", m.Format())
	}
	if tf.format == "document" {
		if err := tagging.Require(m, 0); err != nil {
			return opt, 0, err
		}
		if _, err := modelInput(fs, m, string(dataset.Text), true); err != nil {
			return opt, 0, err
		}
	} else if tf.format, err = modelInput(fs, m, tf.format, true); err != nil {
		return opt, 0, err
	}
	if sch == 0 && tf.output == "spans" {
		sch = scheme.Detect(m.Labels())
	}
	if sch != 0 {
		l, err := scheme.NewLabels(sch, m.Labels())
		if err != nil {
			return opt, 0, fmt.Errorf("--scheme %s: the labels of %s do not fit: %w", sch, tf.models.last(), err)
		}
		opt.Constraints = chain.SchemeConstraints(l)
		if tf.output == "spans" {
			opt.Spans = l
		}
	}
	if opt.Constraints, err = addConstraintsFile(opt.Constraints, tf.trans, m.Labels()); err != nil {
		return opt, 0, err
	}
	return opt, maxLen, nil
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

// addConstraintsFile returns c with the constraints of the transitions
// file path (--constraints; "" adds nothing) over labels.
func addConstraintsFile(c *chain.Constraints, path string, labels []string) (*chain.Constraints, error) {
	if path == "" {
		return c, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--constraints: %w", err)
	}
	defer f.Close()
	fc, err := chain.ReadConstraints(path, f, labels)
	if err != nil {
		return nil, fmt.Errorf("--constraints: %w", err)
	}
	return chain.Merge(c, fc), nil
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
