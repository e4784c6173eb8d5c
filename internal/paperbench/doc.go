// Package paperbench reproduces the experiments of the paper "Safe Screening
// for Sparse Conditional Random Fields" with this toolkit: the built-in data
// sets (the paper's synthetic sets syn1-3 and the OCR words, at any scale),
// the timing table of regularization paths with and without screening next
// to the paper's own figures (Paper), single solves at fixed beta (Screen),
// one regularization path with its table (Path), the OCR demo (Demo), the
// JSON reports (of training, of a path, and of model selection with its
// printed table, SelectReport), and the figures of rejection and
// reservation ratios over the iterations (WriteRatioFigures).
//
// It also runs model selection for tagger train --select and
// --select-folds (SelectOnDev, SelectByFolds, scored by F1Scorer), and each
// configuration keeps the flags of its command beside its fields: Flags
// registers them with their defaults and help on a flag set and returns the
// check to run once the command line is parsed (MaxBetas bounds every
// --betas), so that cmd/tagger only creates the flag set and calls them.
//
// It is internal: cmd/tagger's demo, path and bench commands and the
// reports of train are its interface, and their flags, output lines and
// report fields are the contract. Reports and figures are written
// atomically by internal/atomicfile.
package paperbench
