// Package corpora reads labeled and unlabeled data into plain structs: CoNLL
// column files, CRFsuite attribute files, Universal Dependencies .conllu, the
// OCR letter.data format and raw text, and generates the paper's synthetic
// data sets. It also embeds the default corpora (OCR letters, CoNLL-2000).
//
// corpora knows nothing of feature templates, inference, screening or
// training, and imports no other package of this module: chain or cmd/tagger
// join its output to package features.
//
// # Readers
//
// Every text reader follows bufio.Scanner's contract:
//
//	r := corpora.NewCoNLLReader(name, f, corpora.CoNLLOptions{})
//	for r.Next() {
//		s := r.Sequence()
//	}
//	err := r.Err()
//
// and shares these rules:
//   - gzip input is detected by its magic bytes (1f 8b) and decompressed;
//   - the input is streamed line by line; a line longer than MaxLineBytes
//     (default [DefaultMaxLineBytes], 1 MiB) is an [ErrLineTooLong] error and
//     is never held in memory whole;
//   - LF and CRLF line ends are accepted, a carriage return inside a line is
//     an [ErrSyntax] error; a UTF-8 BOM at the start is skipped;
//   - text must be valid UTF-8: invalid bytes are an [ErrInvalidUTF8] error
//     with their column (a Latin-1 file is refused rather than silently
//     producing tokens that features and the model file cannot round-trip);
//   - an input with no sequence at all is an [ErrEmpty] error;
//   - every error about the input is a [*ParseError] "file:line:col: what was
//     expected", wrapping one of the sentinel errors; readers never panic on
//     input.
//
// [CRFsuiteReader.Raw] also gives each sequence as bytes in the reader's
// buffers ([RawSequence]), for a consumer that looks names up without
// making strings (streamed training reads attribute files so).
//
// [ReadOCR] returns []Word in one call (the words can only be assembled once
// every letter is read) but streams the lines too.
//
// # Raw text
//
// [Tokenize] and [NewTextReader] split raw text into tokens as the Penn
// Treebank does (the conventions of the CoNLL-2000 and WSJ corpora: 1.8,
// 9:30 and U.S. whole, $ 5.50, do n't, ca n't, John 's, quotes as doubled
// backquotes and apostrophes, the final period split off), with byte offsets into the text. The
// tokenizer is hand-written (tokenize.go): the rules of the Treebank's
// tokenizer.sed, refined where the Treebank's own text is finer.
//
// # Synthetic data
//
// [GenerateSynthetic] builds syn1, syn2 and syn3 of the paper's experiments
// as CSR slices, reproducibly from a seed.
//
// # Embedded data
//
// data/ holds ocr/letter.data.gz and conll2000/{train,test}.txt.gz with their
// provenance in data/README.md; see [OpenEmbedded], [EmbeddedOCR] and
// [EmbeddedCoNLL2000]. Nothing is downloaded at run time.
package corpora
