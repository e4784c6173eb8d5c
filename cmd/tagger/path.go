package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/internal/paperbench"
	"github.com/sparsetag/sparsetag/train"
)

// pathFlags are the options of path.
type pathFlags struct {
	dataFlags
	template string
	data     string
	scale    float64
	seed     uint64
	alpha    float64
	betas    int
	minRatio float64
	epsilon  float64
	screen   string
	solver   string
	gamma    float64
	threads  int
	maxIter  int
	minFreq  int
	report   string
	out      string
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
	fs.Float64Var(&pf.alpha, "alpha", 1, "L2/L1 mix of the paper's objective beta*(alpha/2 ||w||^2 + ||w||_1)")
	fs.IntVar(&pf.betas, "betas", 100, "number `K` of beta values, log-spaced from beta_max down to min-ratio*beta_max")
	fs.Float64Var(&pf.minRatio, "min-ratio", 0.1, "smallest beta as a fraction of beta_max")
	fs.Float64Var(&pf.epsilon, "epsilon", 1e-6, "target duality gap at every beta")
	fs.StringVar(&pf.screen, "screen", "pinsker", "safe screening rule: none, pinsker, paper or both (paper and both need T = 1)")
	fs.StringVar(&pf.solver, "solver", "working-set", "`solver` at each beta: working-set (warm-started from the strong rule's set and the previous beta's curvature; needs --screen pinsker, else full) or full (the paper's Algorithm 1)")
	fs.Float64Var(&pf.gamma, "gamma", 0, "screen only when the gap has fallen by this factor since the last check (paper: 0.5; 0: at every iteration)")
	fs.IntVar(&pf.threads, "threads", runtime.NumCPU(), "worker goroutines (the solutions do not depend on it)")
	fs.IntVar(&pf.maxIter, "max-iter", 1000, "maximum number of iterations per beta")
	fs.StringVar(&pf.report, "report", "", "write the training report of every beta as JSON to `file`")
	fs.StringVar(&pf.out, "out", "", "write the paper's figures (rejection and reservation ratios over iterations) as PNG into `dir`")
	fs.StringVar(&pf.cpuprof, "cpuprofile", "", "write a CPU profile of the path to `file`")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	stop, err := startCPUProfile(pf.cpuprof)
	if err != nil {
		return err
	}
	defer stop()
	if pf.betas < 1 {
		return usagef("--betas must be >= 1")
	}
	if !(pf.minRatio > 0 && pf.minRatio <= 1) {
		return usagef("--min-ratio must be in (0, 1]")
	}
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
	m, err := ds.NewModel()
	if err != nil {
		return err
	}
	d := m.Dim()
	if !m.Transitions {
		d -= m.PairOffset() - m.TransOffset() // the transition block is always allocated
	}
	fmt.Fprintf(e.stdout, "data %s: %s; %d features; alpha %g, %d betas down to %g beta_max, epsilon %g, screen %s, gamma %g\n",
		ds.Name, ds.Desc, d, pf.alpha, pf.betas, pf.minRatio, pf.epsilon, pf.screen, pf.gamma)
	fmt.Fprintf(e.stdout, "%4s  %11s  %6s  %9s  %10s  %9s  %9s\n", "k", "beta/bmax", "iters", "seconds", "gap", "nonzero", "screened")
	op := train.Options{
		Alpha: pf.alpha, Epsilon: pf.epsilon, Screen: train.ScreenRule(pf.screen), Solver: train.Solver(pf.solver), Gamma: pf.gamma,
		Threads: pf.threads, MaxIter: pf.maxIter,
	}
	t0 := time.Now()
	results, err := train.Path(e.ctx, m, ds.Corpus, op, train.PathOptions{K: pf.betas, MinRatio: pf.minRatio},
		func(k int, res *train.Result, _ []float64) error {
			fmt.Fprintf(e.stdout, "%4d  %11.6f  %6d  %9.3f  %10.3e  %9d  %9d\n",
				k, res.Beta/res.BetaMax, res.NumIterations(), res.Seconds, res.Gap, res.NonZero, res.Screened)
			return nil
		})
	if err != nil {
		return err
	}
	total := time.Since(t0).Seconds()
	var iters int
	var screenSecs float64
	for _, r := range results {
		iters += r.NumIterations()
		screenSecs += r.SecondsScreening
	}
	fmt.Fprintf(e.stdout, "path: %d betas, %d iterations, %.3fs (screening %.3fs)\n", len(results), iters, total, screenSecs)
	if pf.report != "" {
		rep := paperbench.PathReport{Data: ds.Name, Alpha: pf.alpha, Features: results[0].Dimension, Screen: string(results[0].Screen),
			Epsilon: results[0].Epsilon, Gamma: pf.gamma, K: pf.betas, MinRatio: pf.minRatio, BetaMax: results[0].BetaMax,
			SecondsTotal: total}
		for _, r := range results {
			rep.Path = append(rep.Path, paperbench.NewTrainReport(ds.Name, r, pf.gamma))
		}
		if err := paperbench.WriteJSON(pf.report, rep); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s\n", pf.report)
	}
	if pf.out != "" {
		files, err := paperbench.WriteRatioFigures(pf.out, paperbench.FigurePrefix(ds.Name)+"-"+pf.screen, ds.Name, []paperbench.RuleRun{{Rule: pf.screen, Results: results}})
		if err != nil {
			return err
		}
		for _, f := range files {
			fmt.Fprintf(e.stdout, "wrote %s\n", f)
		}
	}
	return nil
}
