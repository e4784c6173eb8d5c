package main

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sparsetag/sparsetag/internal/paperbench"
	"github.com/sparsetag/sparsetag/train"
)

// benchSuites are the suites of tagger bench.
var benchSuites = []struct {
	name, short string
	run         func(e *env, args []string) error
}{
	{"paper", "the paper's table: regularization paths with and without each screening rule", runBenchPaper},
	{"screen", "single solves at fixed beta/beta_max, with and without screening", runBenchScreen},
	{"train", "the working-set and full solvers on the same sum-form problems", runBenchTrain},
}

func runBench(e *env, args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		printBenchUsage(e)
		return flag.ErrHelp
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usagef("want a suite name: tagger bench paper|screen|train [flags] (tagger bench -h lists them)")
	}
	for _, s := range benchSuites {
		if s.name == args[0] {
			return s.run(e, args[1:])
		}
	}
	return usagef("unknown suite %q (want paper, screen or train)", args[0])
}

// printBenchUsage lists the suites of bench, then the usage and flags of
// each.
func printBenchUsage(e *env) {
	fmt.Fprintf(e.stderr, "usage: tagger bench SUITE [flags]\n\nsuites:\n")
	for _, s := range benchSuites {
		fmt.Fprintf(e.stderr, "  %-7s %s\n", s.name, s.short)
	}
	for _, s := range benchSuites {
		fmt.Fprintf(e.stderr, "\n")
		_ = s.run(e, []string{"-h"}) // prints the suite's usage and flags
	}
}

// runBenchPaper is "tagger bench paper": the paper's table.
func runBenchPaper(e *env, args []string) error {
	var bf paperbench.PaperConfig
	var data, rules string
	fs := newFlagSet(e, "bench paper", "[flags]",
		"tagger bench paper --scale 0.1 --betas 10 --json bench.json --out figures")
	fs.StringVar(&data, "data", "syn1,syn2,syn3,ocr,ocr-letters", "comma-separated data sets: syn1, syn2, syn3, ocr (chain over words), ocr-letters (letter by letter, T = 1)")
	fs.StringVar(&rules, "rules", "none,paper,pinsker,pinsker-ws", "comma-separated runs to time: screening rules with the paper's full solver (none, paper, pinsker, both; paper and both are skipped on chains) and pinsker-ws, the working-set path with the Pinsker rule (the best solver); every speedup is against none")
	fs.Float64Var(&bf.Scale, "scale", 1, "multiply n and d of syn1-3 by `S` and keep the fraction S of the OCR words (1: the paper's sizes)")
	fs.Uint64Var(&bf.Seed, "seed", 1, "seed of the synthetic data sets")
	fs.Float64Var(&bf.Alpha, "alpha", 1, "L2/L1 mix of the paper's objective")
	fs.IntVar(&bf.Betas, "betas", 100, "number `K` of beta values, log-spaced from beta_max to min-ratio*beta_max")
	fs.Float64Var(&bf.MinRatio, "min-ratio", 0.1, "smallest beta as a fraction of beta_max")
	fs.Float64Var(&bf.Epsilon, "epsilon", 1e-6, "target duality gap at every beta")
	fs.Float64Var(&bf.Gamma, "gamma", 0.5, "for the paper's rule (and both): screen only when the gap has fallen by this factor since the last check (the paper's 0.5; 0: every iteration)")
	fs.Float64Var(&bf.PGamma, "pinsker-gamma", 0, "the same for the Pinsker rule, whose check costs O(d): 0 checks at every iteration, as the design note recommends")
	fs.IntVar(&bf.Threads, "threads", runtime.NumCPU(), "worker goroutines")
	fs.IntVar(&bf.MaxIter, "max-iter", 1000, "maximum number of iterations per beta")
	fs.StringVar(&bf.Out, "out", "", "write the paper's figures per data set as PNG into `dir`")
	fs.StringVar(&bf.JSON, "json", "", "write one row per (data, rule) as JSON to `file` (rewritten after every data set)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("bench paper takes no files")
	}
	if err := firstError(
		checkPositive("alpha", bf.Alpha),
		checkRange("betas", bf.Betas, 1, maxBetas),
		checkPositive("epsilon", bf.Epsilon),
		checkNonNegative("gamma", bf.Gamma),
		checkNonNegative("pinsker-gamma", bf.PGamma),
		checkThreads(bf.Threads),
		checkAtLeast("max-iter", bf.MaxIter, 1),
	); err != nil {
		return err
	}
	if err := checkOutputs(output{flag: "--out", path: bf.Out, dir: true}, output{flag: "--json", path: bf.JSON}); err != nil {
		return err
	}
	bf.Data, bf.Rules = paperbench.SplitList(data), paperbench.SplitList(rules)
	if err := bf.Check(); err != nil {
		return usageError{err}
	}
	return paperbench.Paper(e.ctx, bf, e.stdout, e.stderr)
}

// runBenchScreen is "tagger bench screen": single solves at fixed
// beta/beta_max, with and without screening, on the same data, interleaved.
func runBenchScreen(e *env, args []string) error {
	var cfg paperbench.ScreenConfig
	var data, rules, ratios string
	fs := newFlagSet(e, "bench screen", "[flags]",
		"tagger bench screen --data ocr,conll,syn1 --ratios 0.9,0.5,0.2,0.1")
	fs.StringVar(&data, "data", "ocr,conll,syn1", "comma-separated data sets: syn1, syn2, syn3, ocr, ocr-letters, conll (CoNLL-2000 train with the CRF++ chunking template)")
	fs.StringVar(&rules, "rules", "none,pinsker,paper,both", "screening rules; paper and both only run on T = 1 sets")
	fs.StringVar(&ratios, "ratios", "0.9,0.5,0.2,0.1", "values of beta/beta_max")
	fs.Float64Var(&cfg.Scale, "scale", 1, "size factor of the synthetic and OCR sets")
	fs.Float64Var(&cfg.Epsilon, "epsilon", 1e-6, "target duality gap")
	fs.IntVar(&cfg.Threads, "threads", runtime.NumCPU(), "worker goroutines")
	fs.IntVar(&cfg.MaxIter, "max-iter", 5000, "maximum iterations per solve")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("bench screen takes no files")
	}
	cfg.Data, cfg.Rules = paperbench.SplitList(data), paperbench.SplitList(rules)
	if err := firstError(
		checkBenchData(cfg.Data),
		checkScreenRules(cfg.Rules),
		checkFraction("scale", cfg.Scale),
		checkPositive("epsilon", cfg.Epsilon),
		checkThreads(cfg.Threads),
		checkAtLeast("max-iter", cfg.MaxIter, 1),
	); err != nil {
		return err
	}
	for _, s := range paperbench.SplitList(ratios) {
		r, err := strconv.ParseFloat(s, 64)
		if err != nil || !(r > 0 && r <= 1) {
			return usagef("bad ratio %q: want 0 < r <= 1", s)
		}
		cfg.Ratios = append(cfg.Ratios, r)
	}
	if len(cfg.Ratios) == 0 {
		return usagef("--ratios must not be empty")
	}
	return paperbench.Screen(e.ctx, cfg, e.stdout)
}

// runBenchTrain is "tagger bench train": the working-set and full solvers
// on the same sum-form problems, interleaved in one process.
func runBenchTrain(e *env, args []string) error {
	cfg := paperbench.TrainConfig{}
	var data, threads, jsonOut string
	var budget time.Duration
	fs := newFlagSet(e, "bench train", "[flags]",
		"tagger bench train --data conll,ocr,ocr-letters --threads 1,2 --epsilon 1e-4 --budget 300s --json train-bench.json")
	fs.StringVar(&data, "data", "conll,ocr,ocr-letters", "comma-separated data sets: conll (CoNLL-2000 train, CRF++ chunking template, all pairs), ocr (chain), ocr-letters (T = 1), syn1-3")
	fs.StringVar(&threads, "threads", "1,2", "comma-separated thread counts")
	fs.Float64Var(&cfg.Scale, "scale", 1, "size factor of the synthetic and OCR sets")
	fs.Float64Var(&cfg.C1, "c1", 1, "sum-form L1 penalty")
	fs.Float64Var(&cfg.C2, "c2", 1, "sum-form L2 penalty")
	fs.Float64Var(&cfg.Epsilon, "epsilon", 1e-4, "certified average-form gap to reach")
	fs.IntVar(&cfg.TargetIter, "target-iter", 28, "the target objective is the full solver's after this many iterations")
	fs.IntVar(&cfg.MaxIter, "max-iter", 5000, "maximum OWL-QN iterations per solve")
	fs.DurationVar(&budget, "budget", 300*time.Second, "time budget of one solve (0: none)")
	fs.IntVar(&cfg.Runs, "runs", 1, "repetitions of each (full, working-set) pair")
	fs.StringVar(&jsonOut, "json", "", "write the rows as JSON to `file`")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("bench train takes no files")
	}
	for _, s := range paperbench.SplitList(threads) {
		t, err := strconv.Atoi(s)
		if err != nil {
			return usagef("bad thread count %q", s)
		}
		if err := checkThreads(t); err != nil {
			return err
		}
		cfg.Threads = append(cfg.Threads, t)
	}
	cfg.Data, cfg.Budget = paperbench.SplitList(data), budget
	if err := firstError(
		checkBenchData(cfg.Data),
		checkFraction("scale", cfg.Scale),
		checkNonNegative("c1", cfg.C1),
		checkPositive("c2", cfg.C2),
		checkPositive("epsilon", cfg.Epsilon),
		checkAtLeast("target-iter", cfg.TargetIter, 1),
		checkAtLeast("max-iter", cfg.MaxIter, 1),
		checkAtLeast("runs", cfg.Runs, 1),
	); err != nil {
		return err
	}
	if len(cfg.Threads) == 0 {
		return usagef("--threads must not be empty")
	}
	if budget < 0 {
		return usagef("--budget %v: want >= 0 (0: none)", budget)
	}
	if err := checkOutputs(output{flag: "--json", path: jsonOut}); err != nil {
		return err
	}
	cfg.Log = e.stderr
	rows, err := paperbench.Train(e.ctx, cfg, e.stdout)
	if err != nil {
		return err
	}
	if jsonOut != "" {
		return paperbench.WriteJSON(jsonOut, map[string]any{"rows": rows})
	}
	return nil
}

// checkBenchData refuses an empty list or a name that
// paperbench.LoadBenchData does not know.
func checkBenchData(names []string) error {
	if len(names) == 0 {
		return usagef("--data must not be empty")
	}
	for _, n := range names {
		if n != "conll" && !slices.Contains(paperbench.Builtin, n) {
			return usagef("unknown --data %q (want %s or conll)", n, strings.Join(paperbench.Builtin, ", "))
		}
	}
	return nil
}

// checkScreenRules refuses an empty list or an unknown screening rule.
func checkScreenRules(rules []string) error {
	if len(rules) == 0 {
		return usagef("--rules must not be empty")
	}
	for _, r := range rules {
		if err := (train.Options{Screen: train.ScreenRule(r)}).Validate(); err != nil || r == "" {
			return usagef("unknown --rules entry %q (want none, pinsker, paper or both)", r)
		}
	}
	return nil
}
