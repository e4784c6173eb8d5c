// Package corpora reads labeled and unlabeled data into plain structs: CoNLL
// column files, CRFsuite attribute files, Universal Dependencies .conllu, the
// OCR letter.data format and raw text, and generates the paper's synthetic
// data sets. It also embeds the default corpora (OCR letters, CoNLL-2000).
//
// corpora knows nothing of feature templates, inference, screening or
// training, and imports no other package of this module: chain or cmd/tagger
// join its output to package features.
package corpora
