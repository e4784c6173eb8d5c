package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/sparsetag/sparsetag/cmd/tagger/internal/flagcheck"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/paperbench"
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

// parseSuite parses the flags of a bench suite, which takes no files, and
// completes the suite's configuration from them (parsed, of its Flags).
func parseSuite(fs *flag.FlagSet, args []string, parsed func() error) error {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("%s takes no files", fs.Name())
	}
	return usage(parsed())
}

// runBenchPaper is "tagger bench paper": the paper's table.
func runBenchPaper(e *env, args []string) error {
	var bf paperbench.PaperConfig
	fs := newFlagSet(e, "bench paper", "[flags]",
		"tagger bench paper --scale 0.1 --betas 10 --json bench.json --out figures")
	if err := parseSuite(fs, args, bf.Flags(fs)); err != nil {
		return err
	}
	if err := usage(flagcheck.Outputs(flagcheck.Output{Flag: "--out", Path: bf.Out, Dir: true},
		flagcheck.Output{Flag: "--json", Path: bf.JSON})); err != nil {
		return err
	}
	if err := bf.Check(); err != nil {
		return usageError{err}
	}
	return paperbench.Paper(e.ctx, bf, e.stdout, e.stderr)
}

// runBenchScreen is "tagger bench screen": single solves at fixed
// beta/beta_max, with and without screening, on the same data, interleaved.
func runBenchScreen(e *env, args []string) error {
	var cfg paperbench.ScreenConfig
	fs := newFlagSet(e, "bench screen", "[flags]",
		"tagger bench screen --data ocr,conll,syn1 --ratios 0.9,0.5,0.2,0.1")
	if err := parseSuite(fs, args, cfg.Flags(fs)); err != nil {
		return err
	}
	return paperbench.Screen(e.ctx, cfg, e.stdout)
}

// runBenchTrain is "tagger bench train": the working-set and full solvers
// on the same sum-form problems, interleaved in one process.
func runBenchTrain(e *env, args []string) error {
	var cfg paperbench.TrainConfig
	fs := newFlagSet(e, "bench train", "[flags]",
		"tagger bench train --data conll,ocr,ocr-letters --threads 1,2 --epsilon 1e-4 --budget 300s --json train-bench.json")
	if err := parseSuite(fs, args, cfg.Flags(fs)); err != nil {
		return err
	}
	if err := usage(flagcheck.Outputs(flagcheck.Output{Flag: "--json", Path: cfg.JSON})); err != nil {
		return err
	}
	cfg.Log = e.stderr
	_, err := paperbench.Train(e.ctx, cfg, e.stdout)
	return err
}
