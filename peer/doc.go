// Package peer reads linear-chain CRF models trained by other toolkits —
// CRFsuite, CRF++ and Wapiti — and tags with them exactly as the toolkits'
// own taggers do: the same labels, and the same probabilities, marginals
// and n-best lists to the precision the tools print.
//
// peer knows nothing of training, feature templates of this module or
// cmd/tagger. It imports corpora (input sequences) and inference (lattice
// decoding) only.
//
// # Formats
//
//   - CRFsuite 0.12 (crfsuite learn, python-crfsuite, sklearn-crfsuite):
//     the crf1d model file ("lCRF" magic, type FOMC) with its CQDB string
//     databases. Input: attribute sequences (corpora.Sequence.Attrs, as read
//     by corpora.NewCRFsuiteReader); attributes unknown to the model are
//     ignored and a value scales its weights, as in crfsuite tag.
//   - CRF++ 0.5x (crf_learn): the binary model (version 1xx, Darts double
//     array, float32 weights, little-endian) and the text model written by
//     crf_learn -t. Input: column sequences (corpora.Sequence.Tokens) with
//     at least XSize columns; the model's own %x[row,col] templates are
//     applied.
//   - Wapiti 1.x (wapiti train): the text model ("#mdl#"), CRF and maxent
//     types, with its patterns (%x, %t and %m commands, upper-case variants,
//     relative, @absolute and *indirect offsets, Wapiti's regexp dialect) or
//     without patterns (raw u/b/* features). Input: column sequences.
//
// [Read] and [Open] detect the format from the first bytes and decompress
// gzip transparently; [Parse] takes the bytes of an uncompressed file.
//
// # Exactness
//
// Each tagger reproduces the peer's arithmetic where it decides the output:
//
//   - CRFsuite: state scores are summed per attribute in model order
//     (crf1dt_state_score), transitions are assigned per label; Viterbi,
//     forward-backward and log Z are those of package inference, whose
//     Viterbi performs the same additions and comparisons as crf1dc_viterbi.
//   - CRF++: node and edge costs are float32 sums of the float32 weights in
//     template order, times the cost factor (crf_test -c, default 1 — not
//     the value stored in the model; see CRFPPModel.WithCostFactor). A text
//     model's weights are rounded to float32 as crf_learn -C does, so it
//     tags like its binary twin. Viterbi ties go to the lowest label index,
//     as in TaggerImpl::viterbi and package inference.
//   - Wapiti: scores, Viterbi (wapiti label), the n-best decoder (-n) with
//     its replacement rule, and posterior decoding (-p, the product of node
//     marginals) are reimplemented operation for operation from decoder.c.
//
// Marginals and log Z come from inference.ForwardBackward for all three;
// they differ from the peers' own recursions only by rounding error
// (CRF++'s logsumexp also drops terms below e^-50), far below the six
// decimals the tools print. CRF++'s n-best list (an A* search over a
// std::priority_queue) and this package's (inference.NBest) order paths
// by score identically; only paths with bit-identical scores could come out
// in a different order. CRFsuite has no n-best decoder; NBest uses
// inference.NBest.
//
// The tests compare with the tools' own outputs on 200 CoNLL-2000 test
// sentences (testdata/README.peer-models.md): every label of crfsuite tag,
// crf_test and wapiti label, CRFsuite's @score, @probability and marginals,
// crf_test -v1, -v2 and -n 3, wapiti label -s -n 3 and -p, all identical as
// printed.
//
// # Weights and explanations
//
// Model.Weights lists every weight a model file stores (CRFsuite state
// features and transitions, CRF++ U and B feature blocks, Wapiti
// observations' unigram and bigram blocks) as a [Weight]: its kind (state,
// trans for bigram templates that read no input, pair for those that do),
// the tool's name for the feature, the labels and the value. Model.Explain
// splits the score of a label path into the same weights per position
// (chain.TokenExplanation, the explanation type of every model of the
// toolkit, with Attr -1 for the tools' features); they add up to the tool's
// path score.
//
// # Not supported
//
// Wapiti MEMM models (type 1) and binary (non-text) Wapiti models; CRFsuite
// model types other than crf1d; CRF++ templates other than %x (CRF++ 0.5x
// has no others) and big-endian binary models. A Wapiti model without
// patterns in autouni mode treats each input line as its own sequence in
// wapiti label; pass one-position sequences to reproduce that.
//
// # Security
//
// Model files may be hostile. Loaders check every declared count and offset
// against the bytes that remain before allocating, return a *[FormatError]
// naming the section and offset (or line) of the problem, and never panic;
// label sets are limited to [MaxLabels]. Fuzz targets cover each reader.
//
// # Wiring into a command
//
// A "tag --model FILE" command needs: m, err := peer.Open(file); a reader
// that matches the model (corpora.NewCRFsuiteReader for FormatCRFsuite,
// corpora.NewCoNLLReader with Unlabeled for the column formats, so that all
// input columns reach the templates); then m.Tag per sequence, and
// m.Marginals / m.NBest for probability output (probability of a path =
// exp(Score - logZ)).
//
// # Beyond the tools
//
// Decode runs this toolkit's decoding (chain.DecodeLattice) on a model's
// score lattice: label-scheme and other constraints, fixed labels,
// posterior (max-marginal) decoding and span confidences, which the tools'
// own taggers lack. Tag, NBest and Marginals stay the tools' exact
// behaviour.
package peer
