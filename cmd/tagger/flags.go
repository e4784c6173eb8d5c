package main

import (
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/sparsetag/sparsetag/dataset"
)

// Flag values are checked before any data is read: a value that makes no
// sense or cannot be served is a usage error (exit 2) that names the flag.

// maxThreads bounds --threads: 4 goroutines per CPU (more only add
// memory and scheduling), at least 16 so that a script runs on small
// machines too.
func maxThreads() int { return max(4*runtime.NumCPU(), 16) }

// checkThreads refuses a thread count outside [1, maxThreads()].
func checkThreads(n int) error {
	if n < 1 {
		return usagef("--threads must be at least 1, got %d", n)
	}
	if hi := maxThreads(); n > hi {
		return usagef("--threads %d: want at most %d (4 per CPU, at least 16)", n, hi)
	}
	return nil
}

// maxBetas bounds the number of penalties of a regularization path
// (--betas): each is a full solve, so a longer path never ends, and the
// path's arrays are sized by it.
const maxBetas = 10000

// maxLBFGSMemory bounds the L-BFGS memory (--memory): every pair costs two
// vectors over the features, and beyond a few dozen pairs the direction
// no longer improves (Nocedal and Wright suggest 3 to 20).
const maxLBFGSMemory = 1000

// checkRange refuses an integer flag outside [lo, hi].
func checkRange(flag string, n, lo, hi int) error {
	if n < lo || n > hi {
		return usagef("--%s %d: want %d to %d", flag, n, lo, hi)
	}
	return nil
}

// checkAtLeast refuses an integer flag below lo.
func checkAtLeast(flag string, n, lo int) error {
	if n < lo {
		return usagef("--%s %d: want at least %d", flag, n, lo)
	}
	return nil
}

// checkPositive refuses a float flag that is not finite and > 0.
func checkPositive(flag string, x float64) error {
	if !(x > 0) || math.IsInf(x, 1) {
		return usagef("--%s %v: want a finite number > 0", flag, x)
	}
	return nil
}

// checkNonNegative refuses a float flag that is not finite and >= 0.
func checkNonNegative(flag string, x float64) error {
	if !(x >= 0) || math.IsInf(x, 1) {
		return usagef("--%s %v: want a finite number >= 0", flag, x)
	}
	return nil
}

// checkFraction refuses a float flag outside (0, 1].
func checkFraction(flag string, x float64) error {
	if !(x > 0 && x <= 1) {
		return usagef("--%s %v: want 0 < value <= 1", flag, x)
	}
	return nil
}

// The input formats of the commands that read labels (train, eval, path)
// and of those that tag (tag, explain), which also read raw text.
var (
	labeledFormats = []dataset.Format{dataset.CoNLL, dataset.CRFsuite, dataset.CoNLLU, dataset.OCR}
	taggedFormats  = dataset.Formats
)

// check refuses a --format outside formats and a --folds that does not
// parse.
func (df dataFlags) check(formats []dataset.Format) error {
	if !slices.Contains(formats, dataset.Format(df.format)) {
		names := make([]string, len(formats))
		for i, f := range formats {
			names[i] = string(f)
		}
		return usagef("unknown --format %q (want %s)", df.format, strings.Join(names, ", "))
	}
	return checkFolds("folds", df.folds)
}

// checkFolds refuses a fold list that does not parse.
func checkFolds(flag, s string) error {
	if _, err := dataset.ParseFolds(s); err != nil {
		return usagef("--%s: %v", flag, err)
	}
	return nil
}

// firstError returns the first non-nil error.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
