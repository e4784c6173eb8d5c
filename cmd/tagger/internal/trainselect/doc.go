// Package trainselect is the glue of tagger train --select and
// --select-folds: it runs model selection along a regularization path
// (train.Path scored on a development set, or selection.CrossValidate over
// folds of the training set, then a refit), scores each model by chunk F1
// or token accuracy (F1Scorer, MetricName), and builds the JSON report and
// the printed table of the path (SelectReport).
//
// It is internal to cmd/tagger: the flags, output lines and report fields
// of train --select are the contract. The selection itself (paths, folds,
// early stopping) is the train package's; this package only wires it to
// the command's data and output.
package trainselect
