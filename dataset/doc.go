// Package dataset turns files into what the trainer and the tagger consume:
// it reads labeled or unlabeled sequences in every format of package corpora
// (CoNLL columns, CRFsuite attributes, CoNLL-U, the OCR letters, raw text)
// into [Example] values (read with Options.Labeled for training and
// evaluation), interns label names ([Labels]), encodes examples
// with a features.Encoder into a sparse.Corpus (growing the dictionaries for
// training, frozen for tagging), and tags or evaluates a whole set in memory
// with a chain.Tagger on a bounded number of goroutines, results in input
// order (for training and model selection; streamed tagging and evaluation
// of any model, ours or a peer's, are package tagging's).
// [Example.Input] is the one value both the encoder and the tagger take.
//
// # Streaming
//
// A [Reader] reads one sequence at a time: package tagging streams a
// Reader's examples through any model in bounded batches, in input order.
//
// Readers take an io.Reader ([Read], [NewReader]) or a path ([ReadFile]);
// the command line's names ("-" for standard input, "embedded:NAME") are
// the command's: the embedded corpora are corpora.OpenEmbedded's. For the
// commands that feed input to a model, [Format.CheckKind]
// and [Format.CheckColumns] refuse, before any input is read, a format the
// model cannot read, and [TagInputError] and [EvalInputError] explain the
// errors met while tagging or evaluating (empty input, too few columns).
//
// It sits above corpora, features, sparse and chain; chain never imports it
// (chain/layering_test.go). Programs (cmd/tagger, examples/) use it instead
// of each keeping a copy of the same glue.
//
// # Errors
//
// Malformed input is reported by the corpora readers as *corpora.ParseError
// with file and line ("train.txt:1042:3: ..."), which is passed through
// unchanged, so errors.As finds it. Errors about a whole sequence name its
// file and first line, e.g. "train.txt:17: sequence of 100001 positions ...".
//
// # Concurrency
//
// [TagAll] and [EvaluateAll] share one chain.Tagger (safe for concurrent use) between at most the given number of goroutines; every
// result is stored at its input index, so the output order is the input
// order and does not depend on scheduling. Everything else runs on the
// caller's goroutine.
package dataset
