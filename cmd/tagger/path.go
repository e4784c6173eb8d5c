package main

import (
	"runtime"
	"slices"
	"strings"

	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/internal/paperbench"
	"github.com/sparsetag/sparsetag/train"
)

// pathFlags are the options of path.
type pathFlags struct {
	dataFlags
	paperbench.PathConfig
	template string
	data     string
	scale    float64
	seed     uint64
	minFreq  int
	cpuprof  string
}

func runPath(e *env, args []string) error {
	var pf pathFlags
	fs := newFlagSet(e, "path", "[flags] [TRAIN-FILE]",
		"tagger path --data syn1 --scale 0.1 --betas 20 --report syn1-path.json --out figures")
	fs.StringVar(&pf.format, "format", "conll", "input `format` of TRAIN-FILE: conll, crfsuite, conllu or ocr")
	fs.StringVar(&pf.folds, "folds", "", "OCR folds to use, e.g. `1-9` or 0,3 (default all)")
	fs.StringVar(&pf.template, "template", "", "CRF++ feature template `file` for column formats")
	fs.IntVar(&pf.minFreq, "min-freq", 1, "drop attributes seen fewer than this many times")
	fs.StringVar(&pf.data, "data", "", "built-in data set instead of TRAIN-FILE: "+strings.Join(paperbench.Builtin, ", ")+" (ocr = chain over words, ocr-letters = letter by letter, T = 1)")
	fs.Float64Var(&pf.scale, "scale", 1, "with --data: multiply n and d of syn1-3 by `S` (0 < S <= 1); keep the fraction S of the OCR words")
	fs.Uint64Var(&pf.seed, "seed", 1, "seed of the synthetic data sets")
	fs.Float64Var(&pf.Alpha, "alpha", 1, "L2/L1 mix of the paper's objective beta*(alpha/2 ||w||^2 + ||w||_1)")
	fs.IntVar(&pf.Betas, "betas", 100, "number `K` of beta values, log-spaced from beta_max down to min-ratio*beta_max")
	fs.Float64Var(&pf.MinRatio, "min-ratio", 0.1, "smallest beta as a fraction of beta_max")
	fs.Float64Var(&pf.Epsilon, "epsilon", 1e-6, "target duality gap at every beta")
	fs.StringVar(&pf.Screen, "screen", "pinsker", "safe screening rule: none, pinsker, paper or both (paper and both need T = 1)")
	fs.StringVar(&pf.Solver, "solver", "working-set", "`solver` at each beta: working-set (warm-started from the strong rule's set and the previous beta's curvature; needs --screen pinsker, else full) or full (the paper's Algorithm 1)")
	fs.Float64Var(&pf.Gamma, "gamma", 0, "screen only when the gap has fallen by this factor since the last check (paper: 0.5; 0: at every iteration)")
	fs.IntVar(&pf.Threads, "threads", runtime.NumCPU(), "worker goroutines (the solutions do not depend on it)")
	fs.IntVar(&pf.MaxIter, "max-iter", 1000, "maximum number of iterations per beta")
	fs.StringVar(&pf.Report, "report", "", "write the training report of every beta as JSON to `file`")
	fs.StringVar(&pf.Out, "out", "", "write the paper's figures (rejection and reservation ratios over iterations) as PNG into `dir`")
	fs.StringVar(&pf.cpuprof, "cpuprofile", "", "write a CPU profile of the path to `file`")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := pf.validate(); err != nil {
		return err
	}
	if err := checkOutputs(output{flag: "--report", path: pf.Report}, output{flag: "--out", path: pf.Out, dir: true},
		output{flag: "--cpuprofile", path: pf.cpuprof}); err != nil {
		return err
	}
	stop, err := startCPUProfile(pf.cpuprof)
	if err != nil {
		return err
	}
	defer stop()
	var ds *paperbench.Data
	switch {
	case pf.data != "" && len(pos) != 0:
		return usagef("give either --data or a training file, not both")
	case pf.data != "":
		if ds, err = paperbench.LoadBuiltin(pf.data, pf.scale, pf.seed); err != nil {
			return usageError{err}
		}
	case len(pos) != 1:
		return usagef("want exactly one training file or --data, got %d files (see tagger path -h)", len(pos))
	default:
		folds, err := dataset.ParseFolds(pf.folds)
		if err != nil {
			return err
		}
		opts := dataset.Options{Format: dataset.Format(pf.format), Folds: folds}
		if ds, err = paperbench.FromFile(pos[0], e.stdin, opts, pf.template, pf.minFreq); err != nil {
			return err
		}
	}
	return paperbench.Path(e.ctx, ds, pf.PathConfig, e.stdout)
}

// validate checks the flags of path before any data is read or made.
func (pf *pathFlags) validate() error {
	if pf.data != "" && !slices.Contains(paperbench.Builtin, pf.data) {
		return usagef("unknown --data %q (want %s)", pf.data, strings.Join(paperbench.Builtin, ", "))
	}
	err := firstError(
		pf.dataFlags.check(labeledFormats),
		checkAtLeast("min-freq", pf.minFreq, 0),
		checkFraction("scale", pf.scale),
		checkPositive("alpha", pf.Alpha),
		checkRange("betas", pf.Betas, 1, maxBetas),
		checkFraction("min-ratio", pf.MinRatio),
		checkPositive("epsilon", pf.Epsilon),
		checkNonNegative("gamma", pf.Gamma),
		checkThreads(pf.Threads),
		checkAtLeast("max-iter", pf.MaxIter, 1),
	)
	if err != nil {
		return err
	}
	op := train.Options{Screen: train.ScreenRule(pf.Screen), Solver: train.Solver(pf.Solver)}
	if err := op.Validate(); err != nil {
		return usageError{err}
	}
	return nil
}
