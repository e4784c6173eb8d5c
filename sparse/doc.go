// Package sparse holds the compact, allocation-free data layouts shared by the
// rest of the toolkit: CSR matrices of (attribute id, value) per position, a
// corpus of sequences laid out as one such matrix, bit sets, and the index
// maps used to shrink a problem when screening removes features.
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
package sparse
