package main

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sparsetag/sparsetag/chain"
)

// runBenchScreen is "tagger bench screen": single solves at fixed
// beta/beta_max, with and without screening, on the same data, interleaved.
func runBenchScreen(e *env, args []string) error {
	var data, rules, ratios string
	var scale, eps float64
	var threads, maxIter int
	fs := newFlagSet(e, "bench screen", "[flags]",
		"tagger bench screen --data ocr,conll,syn1 --ratios 0.9,0.5,0.2,0.1")
	fs.StringVar(&data, "data", "ocr,conll,syn1", "comma-separated data sets: syn1, syn2, syn3, ocr, ocr-letters, conll (CoNLL-2000 train with the CRF++ chunking template)")
	fs.StringVar(&rules, "rules", "none,pinsker,paper,both", "screening rules; paper and both only run on T = 1 sets")
	fs.StringVar(&ratios, "ratios", "0.9,0.5,0.2,0.1", "values of beta/beta_max")
	fs.Float64Var(&scale, "scale", 1, "size factor of the synthetic and OCR sets")
	fs.Float64Var(&eps, "epsilon", 1e-6, "target duality gap")
	fs.IntVar(&threads, "threads", runtime.NumCPU(), "worker goroutines")
	fs.IntVar(&maxIter, "max-iter", 5000, "maximum iterations per solve")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("bench screen takes no files")
	}
	var rs []float64
	for _, s := range splitList(ratios) {
		r, err := strconv.ParseFloat(s, 64)
		if err != nil || !(r > 0 && r <= 1) {
			return usagef("bad ratio %q: want 0 < r <= 1", s)
		}
		rs = append(rs, r)
	}
	fmt.Fprintf(e.stdout, "tagger bench screen: alpha 1, epsilon %g, %d threads; %s/%s\n", eps, threads, runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(e.stdout, "%-12s %6s %-8s %6s %9s %9s %10s %10s %10s %9s\n",
		"data", "ratio", "rule", "iters", "seconds", "speedup", "rejection", "max|dw|", "tolerance", "nonzero")
	for _, name := range splitList(data) {
		ds, err := loadBenchData(name, scale)
		if err != nil {
			return err
		}
		T1 := ds.corpus.MaxLen() <= 1
		for _, ratio := range rs {
			var ref []float64
			var refSecs float64
			for _, rule := range splitList(rules) {
				if (rule == "paper" || rule == "both") && !T1 {
					continue
				}
				if err := e.ctx.Err(); err != nil {
					return err
				}
				m, err := ds.newModel()
				if err != nil {
					return err
				}
				runtime.GC()
				t0 := time.Now()
				res, err := chain.Train(e.ctx, m, ds.corpus, chain.Options{Alpha: 1, BetaRatio: ratio, Epsilon: eps,
					Screen: chain.ScreenRule(rule), Threads: threads, MaxIter: maxIter})
				if err != nil {
					return fmt.Errorf("%s ratio %g rule %s: %w", name, ratio, rule, err)
				}
				secs := time.Since(t0).Seconds()
				speed, rej, dw, tol := "-", "-", "-", "-"
				if rule == "none" {
					ref, refSecs = m.W, secs
				} else if ref != nil {
					zeros, maxDiff := 0, 0.0
					for j, v := range ref {
						if v == 0 {
							zeros++
						}
						maxDiff = math.Max(maxDiff, math.Abs(v-m.W[j]))
					}
					speed = fmt.Sprintf("%.2f", refSecs/secs)
					if zeros > 0 {
						rej = fmt.Sprintf("%.4f", float64(res.Screened)/float64(zeros))
					}
					dw = fmt.Sprintf("%.2e", maxDiff)
					tol = fmt.Sprintf("%.2e", math.Sqrt(2*eps/(res.Alpha*res.Beta)))
				}
				fmt.Fprintf(e.stdout, "%-12s %6.2f %-8s %6d %9.2f %9s %10s %10s %10s %9d\n",
					name, ratio, rule, len(res.Iterations)-1, secs, speed, rej, dw, tol, res.NonZero)
			}
		}
	}
	fmt.Fprintln(e.stdout, "speedup = seconds without screening / with; rejection = screened / zeros of the unscreened solution;")
	fmt.Fprintln(e.stdout, "max|dw| = largest weight difference to the unscreened model; tolerance = sqrt(2 eps/(alpha beta)).")
	return nil
}

// loadBenchData returns a built-in data set, or "conll": the embedded
// CoNLL-2000 training set with the CRF++ chunking template.
func loadBenchData(name string, scale float64) (*dataset, error) {
	if name != "conll" {
		if !slices.Contains(builtinData, name) {
			return nil, fmt.Errorf("unknown data set %q (want %s or conll)", name, strings.Join(builtinData, ", "))
		}
		return loadBuiltin(name, scale, 1)
	}
	exs, err := readExamples(embeddedPrefix+"conll2000/train.txt.gz", dataFlags{format: "conll"}, true, nil)
	if err != nil {
		return nil, err
	}
	enc, err := newEncoder("conll", embeddedPrefix+"conll2000/chunking.template")
	if err != nil {
		return nil, err
	}
	c, labels, err := trainingSet(enc, exs, 1)
	if err != nil {
		return nil, err
	}
	return &dataset{name: "conll", corpus: c, labels: labels, numUnary: enc.Unary().Len(), numPair: enc.Pair().Len(),
		transitions: enc.HasTransitions(), enc: enc}, nil
}
