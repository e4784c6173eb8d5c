package paperbench

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sparsetag/sparsetag/cmd/tagger/internal/flagcheck"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/train"
)

// The configurations of tagger demo, path and bench keep their flags
// beside their fields: Flags registers each field on a flag set with its
// default and help, and returns the function to call once the command line
// is parsed. That function completes the configuration from the flags that
// are not fields (comma-separated lists) and checks every value; its errors
// name the flags, and the command reports them as usage errors.

// MaxBetas bounds the number of penalties of a regularization path
// (--betas): each is a full solve, so a longer path never ends, and the
// path's arrays are sized by it.
const MaxBetas = 10000

// Flags registers the flags of tagger bench paper. The function it returns
// reads --data and --rules into c and checks the numbers; Check, called
// after it, checks the lists.
func (c *PaperConfig) Flags(fs *flag.FlagSet) (parsed func() error) {
	var data, rules string
	fs.StringVar(&data, "data", "syn1,syn2,syn3,ocr,ocr-letters", "comma-separated data sets: syn1, syn2, syn3, ocr (chain over words), ocr-letters (letter by letter, T = 1)")
	fs.StringVar(&rules, "rules", "none,paper,pinsker,pinsker-ws", "comma-separated runs to time: screening rules with the paper's full solver (none, paper, pinsker, both; paper and both are skipped on chains) and pinsker-ws, the working-set path with the Pinsker rule (the best solver); every speedup is against none")
	fs.Float64Var(&c.Scale, "scale", 1, "multiply n and d of syn1-3 by `S` and keep the fraction S of the OCR words (1: the paper's sizes)")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of the synthetic data sets")
	fs.Float64Var(&c.Alpha, "alpha", 1, "L2/L1 mix of the paper's objective")
	fs.IntVar(&c.Betas, "betas", 100, "number `K` of beta values, log-spaced from beta_max to min-ratio*beta_max")
	fs.Float64Var(&c.MinRatio, "min-ratio", 0.1, "smallest beta as a fraction of beta_max")
	fs.Float64Var(&c.Epsilon, "epsilon", 1e-6, "target duality gap at every beta")
	fs.Float64Var(&c.Gamma, "gamma", 0.5, "for the paper's rule (and both): screen only when the gap has fallen by this factor since the last check (the paper's 0.5; 0: every iteration)")
	fs.Float64Var(&c.PGamma, "pinsker-gamma", 0, "the same for the Pinsker rule, whose check costs O(d): 0 checks at every iteration, as the design note recommends")
	fs.IntVar(&c.Threads, "threads", runtime.NumCPU(), "worker goroutines")
	fs.IntVar(&c.MaxIter, "max-iter", 1000, "maximum number of iterations per beta")
	fs.StringVar(&c.Out, "out", "", "write the paper's figures per data set as PNG into `dir`")
	fs.StringVar(&c.JSON, "json", "", "write one row per (data, rule) as JSON to `file` (rewritten after every data set)")
	return func() error {
		if err := flagcheck.First(
			flagcheck.Positive("alpha", c.Alpha),
			flagcheck.Range("betas", c.Betas, 1, MaxBetas),
			flagcheck.Positive("epsilon", c.Epsilon),
			flagcheck.NonNegative("gamma", c.Gamma),
			flagcheck.NonNegative("pinsker-gamma", c.PGamma),
			flagcheck.Threads(c.Threads),
			flagcheck.AtLeast("max-iter", c.MaxIter, 1),
		); err != nil {
			return err
		}
		c.Data, c.Rules = SplitList(data), SplitList(rules)
		return nil
	}
}

// Flags registers the flags of tagger bench screen; the function it
// returns reads the lists into c and checks every value.
func (c *ScreenConfig) Flags(fs *flag.FlagSet) (parsed func() error) {
	var data, rules, ratios string
	fs.StringVar(&data, "data", "ocr,conll,syn1", "comma-separated data sets: syn1, syn2, syn3, ocr, ocr-letters, conll (CoNLL-2000 train with the CRF++ chunking template)")
	fs.StringVar(&rules, "rules", "none,pinsker,paper,both", "screening rules; paper and both only run on T = 1 sets")
	fs.StringVar(&ratios, "ratios", "0.9,0.5,0.2,0.1", "values of beta/beta_max")
	fs.Float64Var(&c.Scale, "scale", 1, "size factor of the synthetic and OCR sets")
	fs.Float64Var(&c.Epsilon, "epsilon", 1e-6, "target duality gap")
	fs.IntVar(&c.Threads, "threads", runtime.NumCPU(), "worker goroutines")
	fs.IntVar(&c.MaxIter, "max-iter", 5000, "maximum iterations per solve")
	return func() error {
		c.Data, c.Rules = SplitList(data), SplitList(rules)
		if err := flagcheck.First(
			checkBenchData(c.Data),
			checkScreenRules(c.Rules),
			flagcheck.Fraction("scale", c.Scale),
			flagcheck.Positive("epsilon", c.Epsilon),
			flagcheck.Threads(c.Threads),
			flagcheck.AtLeast("max-iter", c.MaxIter, 1),
		); err != nil {
			return err
		}
		for _, s := range SplitList(ratios) {
			r, err := strconv.ParseFloat(s, 64)
			if err != nil || !(r > 0 && r <= 1) {
				return fmt.Errorf("bad ratio %q: want 0 < r <= 1", s)
			}
			c.Ratios = append(c.Ratios, r)
		}
		if len(c.Ratios) == 0 {
			return errors.New("--ratios must not be empty")
		}
		return nil
	}
}

// Flags registers the flags of tagger bench train; the function it returns
// reads the lists into c and checks every value.
func (c *TrainConfig) Flags(fs *flag.FlagSet) (parsed func() error) {
	var data, threads, certs string
	fs.StringVar(&data, "data", "conll,ocr,ocr-letters", "comma-separated data sets: conll (CoNLL-2000 train, CRF++ chunking template, all pairs), ocr (chain), ocr-letters (T = 1), syn1-3")
	fs.StringVar(&threads, "threads", "1,2", "comma-separated thread counts")
	fs.Float64Var(&c.Scale, "scale", 1, "size factor of the synthetic and OCR sets")
	fs.Float64Var(&c.C1, "c1", 1, "sum-form L1 penalty")
	fs.Float64Var(&c.C2, "c2", 1, "sum-form L2 penalty")
	fs.Float64Var(&c.Epsilon, "epsilon", 1e-4, "certified average-form gap to reach")
	fs.IntVar(&c.TargetIter, "target-iter", 28, "the target objective is the full solver's after this many iterations")
	fs.IntVar(&c.MaxIter, "max-iter", 5000, "maximum OWL-QN iterations per solve")
	fs.DurationVar(&c.Budget, "budget", 300*time.Second, "time budget of one solve (0: none)")
	fs.IntVar(&c.Runs, "runs", 1, "repetitions of each (full, working-set) pair")
	fs.StringVar(&certs, "certificates", "mixture", "comma-separated certificates of the working-set solves of each run: mixture, model (one solve each)")
	fs.StringVar(&c.JSON, "json", "", "write the rows as JSON to `file`")
	return func() error {
		for _, s := range SplitList(threads) {
			t, err := strconv.Atoi(s)
			if err != nil {
				return fmt.Errorf("bad thread count %q", s)
			}
			if err := flagcheck.Threads(t); err != nil {
				return err
			}
			c.Threads = append(c.Threads, t)
		}
		c.Data = SplitList(data)
		c.Certificates = SplitList(certs)
		for _, ct := range c.Certificates {
			if err := (train.Options{Method: train.Method{Certificate: train.Certificate(ct)}}).Validate(); err != nil {
				return fmt.Errorf("--certificates: %w", err)
			}
		}
		if len(c.Certificates) == 0 {
			return errors.New("--certificates must not be empty")
		}
		if err := flagcheck.First(
			checkBenchData(c.Data),
			flagcheck.Fraction("scale", c.Scale),
			flagcheck.NonNegative("c1", c.C1),
			flagcheck.Positive("c2", c.C2),
			flagcheck.Positive("epsilon", c.Epsilon),
			flagcheck.AtLeast("target-iter", c.TargetIter, 1),
			flagcheck.AtLeast("max-iter", c.MaxIter, 1),
			flagcheck.AtLeast("runs", c.Runs, 1),
		); err != nil {
			return err
		}
		if len(c.Threads) == 0 {
			return errors.New("--threads must not be empty")
		}
		if c.Budget < 0 {
			return fmt.Errorf("--budget %v: want >= 0 (0: none)", c.Budget)
		}
		return nil
	}
}

// PathData chooses the data of tagger path: a built-in set (Name, Scale,
// Seed; LoadBuiltin) or a training file read in Format (Folds, Template,
// MinFreq; FromFile).
type PathData struct {
	Name     string  // built-in data set (see Builtin), "" for a training file
	Scale    float64 // size factor of the built-in set, in (0, 1]
	Seed     uint64  // seed of the synthetic sets
	Format   dataset.Format
	Folds    string // OCR folds of the file, as dataset.ParseFolds reads them ("": all)
	Template string // CRF++ template file for column formats ("": the default)
	MinFreq  int    // drop attributes seen fewer than this many times
}

// Flags registers the flags of tagger path that choose its data; the
// function it returns checks them.
func (d *PathData) Flags(fs *flag.FlagSet) (parsed func() error) {
	fs.StringVar((*string)(&d.Format), "format", "conll", "input `format` of TRAIN-FILE: conll, crfsuite, conllu or ocr")
	fs.StringVar(&d.Folds, "folds", "", "OCR folds to use, e.g. `1-9` or 0,3 (default all)")
	fs.StringVar(&d.Template, "template", "", "CRF++ feature template `file` for column formats")
	fs.IntVar(&d.MinFreq, "min-freq", 1, "drop attributes seen fewer than this many times")
	fs.StringVar(&d.Name, "data", "", "built-in data set instead of TRAIN-FILE: "+strings.Join(Builtin, ", ")+" (ocr = chain over words, ocr-letters = letter by letter, T = 1)")
	fs.Float64Var(&d.Scale, "scale", 1, "with --data: multiply n and d of syn1-3 by `S` (0 < S <= 1); keep the fraction S of the OCR words")
	fs.Uint64Var(&d.Seed, "seed", 1, "seed of the synthetic data sets")
	return func() error {
		if d.Name != "" && !slices.Contains(Builtin, d.Name) {
			return fmt.Errorf("unknown --data %q (want %s)", d.Name, strings.Join(Builtin, ", "))
		}
		return flagcheck.First(
			flagcheck.OneOf("format", d.Format, dataset.LabeledFormats),
			flagcheck.Parses("folds", d.Folds, dataset.ParseFolds),
			flagcheck.AtLeast("min-freq", d.MinFreq, 0),
			flagcheck.Fraction("scale", d.Scale),
		)
	}
}

// FromFile reads and encodes the training file path (standard input for
// "-") as d says (see the package function FromFile).
func (d *PathData) FromFile(path string, stdin io.Reader) (*Data, error) {
	folds, err := dataset.ParseFolds(d.Folds)
	if err != nil {
		return nil, err
	}
	return FromFile(path, stdin, dataset.Options{Format: d.Format, Folds: folds}, d.Template, d.MinFreq)
}

// Flags registers the flags of tagger path that configure the path (not
// those that choose the data, PathData); the function it returns checks
// them.
func (c *PathConfig) Flags(fs *flag.FlagSet) (parsed func() error) {
	fs.Float64Var(&c.Alpha, "alpha", 1, "L2/L1 mix of the paper's objective beta*(alpha/2 ||w||^2 + ||w||_1)")
	fs.IntVar(&c.Betas, "betas", 100, "number `K` of beta values, log-spaced from beta_max down to min-ratio*beta_max")
	fs.Float64Var(&c.MinRatio, "min-ratio", 0.1, "smallest beta as a fraction of beta_max")
	fs.Float64Var(&c.Epsilon, "epsilon", 1e-6, "target duality gap at every beta")
	fs.StringVar(&c.Screen, "screen", "pinsker", "safe screening rule: none, pinsker, paper or both (paper and both need T = 1)")
	fs.StringVar(&c.Solver, "solver", "working-set", "`solver` at each beta: working-set (warm-started from the strong rule's set and the previous beta's curvature; needs --screen pinsker, else full) or full (the paper's Algorithm 1)")
	fs.Float64Var(&c.Gamma, "gamma", 0, "screen only when the gap has fallen by this factor since the last check (paper: 0.5; 0: at every iteration)")
	fs.IntVar(&c.Threads, "threads", runtime.NumCPU(), "worker goroutines (the solutions do not depend on it)")
	fs.IntVar(&c.MaxIter, "max-iter", 1000, "maximum number of iterations per beta")
	fs.StringVar(&c.Report, "report", "", "write the training report of every beta as JSON to `file`")
	fs.StringVar(&c.Out, "out", "", "write the paper's figures (rejection and reservation ratios over iterations) as PNG into `dir`")
	return func() error {
		if err := flagcheck.First(
			flagcheck.Positive("alpha", c.Alpha),
			flagcheck.Range("betas", c.Betas, 1, MaxBetas),
			flagcheck.Fraction("min-ratio", c.MinRatio),
			flagcheck.Positive("epsilon", c.Epsilon),
			flagcheck.NonNegative("gamma", c.Gamma),
			flagcheck.Threads(c.Threads),
			flagcheck.AtLeast("max-iter", c.MaxIter, 1),
		); err != nil {
			return err
		}
		return train.Options{Method: train.Method{Screen: train.ScreenRule(c.Screen), Solver: train.Solver(c.Solver)}}.Validate()
	}
}

// Flags registers the flags of tagger demo; the function it returns checks
// them and reads the folds into c.
func (c *DemoConfig) Flags(fs *flag.FlagSet) (parsed func() error) {
	fs.StringVar(&c.FoldNames[0], "train-folds", "1-9", "OCR folds to train on")
	fs.StringVar(&c.FoldNames[1], "test-folds", "0", "OCR folds to test on")
	fs.IntVar(&c.Betas, "betas", 7, "number of beta values on the path")
	fs.Float64Var(&c.MinRatio, "min-ratio", 0.003, "last beta as a fraction of beta_max")
	fs.Float64Var(&c.Epsilon, "epsilon", 1e-5, "target duality gap at each beta")
	fs.IntVar(&c.Show, "show", 3, "number of test words to draw")
	fs.BoolVar(&c.Quiet, "quiet", false, "no per-beta progress")
	return func() error {
		if c.Betas < 1 || c.Betas > MaxBetas || !(c.MinRatio > 0 && c.MinRatio <= 1) || !(c.Epsilon > 0) || math.IsInf(c.Epsilon, 1) || c.Show < 0 {
			return fmt.Errorf("want 1 <= --betas <= %d, 0 < --min-ratio <= 1, finite --epsilon > 0, --show >= 0", MaxBetas)
		}
		var err error
		if c.TrainFolds, err = dataset.ParseFolds(c.FoldNames[0]); err != nil {
			return err
		}
		c.TestFolds, err = dataset.ParseFolds(c.FoldNames[1])
		return err
	}
}

// checkBenchData refuses an empty list or a name that LoadBenchData does
// not know.
func checkBenchData(names []string) error {
	if len(names) == 0 {
		return errors.New("--data must not be empty")
	}
	for _, n := range names {
		if n != "conll" && !slices.Contains(Builtin, n) {
			return fmt.Errorf("unknown --data %q (want %s or conll)", n, strings.Join(Builtin, ", "))
		}
	}
	return nil
}

// checkScreenRules refuses an empty list or an unknown screening rule.
func checkScreenRules(rules []string) error {
	if len(rules) == 0 {
		return errors.New("--rules must not be empty")
	}
	for _, r := range rules {
		if err := (train.Options{Method: train.Method{Screen: train.ScreenRule(r)}}).Validate(); err != nil || r == "" {
			return fmt.Errorf("unknown --rules entry %q (want none, pinsker, paper or both)", r)
		}
	}
	return nil
}
