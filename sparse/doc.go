// Package sparse holds the compact, allocation-free data layouts shared by the
// rest of the toolkit: CSR matrices of (attribute id, value) per position, a
// corpus of sequences laid out as one such matrix, the layout of a CRF's flat
// weight vector, bit sets, and the index maps used to shrink a problem when
// screening removes features.
//
// sparse knows nothing of templates, label lattices, inference, screening
// rules or training; it imports no other package of this module.
//
// # Layout
//
// A Matrix with R rows stores row r in Col[RowPtr[r]:RowPtr[r+1]] (attribute
// ids) and, when Val is not nil, Val[RowPtr[r]:RowPtr[r+1]] (values). A nil
// Val means every stored entry has value 1 (binary attributes), the common case
// for text.
//
// A Corpus concatenates the positions of all its sequences: sequence i covers
// rows SeqPtr[i]..SeqPtr[i+1]-1 of its matrices and of Labels.
// A corpus may also hold dense blocks ([Dense], word vectors): per
// position one row of a shared table for D attributes of fixed ids, in
// addition to the row of Unary; [Corpus.ExpandRow] merges them into one
// sparse row.
//
// # Weight layout
//
// [Layout] is the one definition of how the weights (or features) of a
// linear-chain CRF with U unary attributes, L labels and P pair attributes are
// laid out in one flat vector; the model in package chain, the screening
// constants of package screen and the observed-feature sets of package
// features all index through it:
//
//	state  [0, U*L)            a*L + y                         unary attribute a, label y
//	trans  [U*L, U*L+L*L)      U*L + prev*L + cur              label bigram
//	pair   [U*L+L*L, Dim())    U*L + L*L + a*L*L + prev*L + cur pair attribute a, bigram
//
// The transition block is always L*L long; without transition features
// (Transitions false) it stays zero. [Layout.Decode] maps an index back to
// its block and coordinates.
package sparse
