// Package beamtag runs the toolkit on Apache Beam: batch tagging of sharded
// corpora too large for one machine (Tag) and grids of trainings for model
// selection (Grid). The same Go pipeline runs on the local prism runner and
// on Flink, Spark or Dataflow; see cmd/beamtag and docs/beam.md of the
// repository.
//
// # Tagging
//
// Tag matches a glob of input files (local paths or any filesystem Beam
// has registered: gs://, s3://, ...), reads the model once per worker from a
// side input (models of this toolkit, CRFsuite, CRF++ or Wapiti, as
// tagger tag reads them), and writes one output file per input file, in the
// input's order and in the formats of tagger tag (conll, slash, json): the
// output of a file is byte for byte what tagger tag writes for it. Records
// (sentences: blocks between blank lines, or lines of raw text) that cannot
// be read or tagged go to the dead-letter output as "file:line: reason" and
// the rest of the file is tagged. Tokens, sequences and bad records are Beam
// metrics; label frequencies an output. Memory per worker is bounded by the
// model and the longest record (inputs are streamed).
//
// # Training grids
//
// Grid trains one model per (c1, c2, fold) element, independently (each
// worker reads the training data once from a side input), scores it on the
// held-out fold or a dev file (chunk F1 for chunk labels, token accuracy
// otherwise), reports score, non-zeros, iterations and seconds per element,
// and writes the best model at the end (with folds: refit on all the
// training data at the best mean score).
//
// This is a separate Go module, so that the library's go.mod does not carry
// Beam's dependencies.
package beamtag
