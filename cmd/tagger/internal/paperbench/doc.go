// Package paperbench reproduces the experiments of the paper "Safe Screening
// for Sparse Conditional Random Fields" (Zhang and Qiu, arXiv:2111.13958)
// with this toolkit: the built-in data sets (the paper's synthetic sets
// syn1-3 and the OCR words, at any scale), the timing table of
// regularization paths with and without screening next to the paper's own
// figures (Paper), single solves at fixed beta (Screen), the solver
// comparison of tagger bench train (Train), one regularization path with its
// table (Path), the OCR demo (Demo), the JSON reports (TrainReport, of a
// training and of a path, and WriteJSON), and the figures of rejection and
// reservation ratios over the iterations (WriteRatioFigures).
//
// Each configuration keeps the flags of its command beside its fields:
// Flags registers them with their defaults and help on a flag set and
// returns the check to run once the command line is parsed (MaxBetas bounds
// every --betas), so that cmd/tagger only creates the flag set and calls
// them.
//
// It is internal to cmd/tagger: the demo, path and bench commands and the
// reports of train are its interface, and their flags, output lines and
// report fields are the contract. Model selection (train --select) is in
// package trainselect. Reports and figures are written atomically by
// internal/atomicfile. docs/paper-table.md shows what the table measures.
package paperbench
