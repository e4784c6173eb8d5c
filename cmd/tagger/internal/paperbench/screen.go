package paperbench

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/sparsetag/sparsetag/train"
)

// ScreenConfig are the settings of the fixed-beta benchmark (tagger bench
// screen).
type ScreenConfig struct {
	Data    []string  // data sets: see LoadBenchData
	Rules   []string  // screening rules; paper and both only run on T = 1 sets
	Ratios  []float64 // values of beta/beta_max, each in (0, 1]
	Scale   float64   // size factor of the synthetic and OCR sets
	Epsilon float64
	Threads int
	MaxIter int
}

// Screen runs single solves at fixed beta/beta_max, with and without
// screening, on the same data, interleaved, and prints one line per solve
// on w.
func Screen(ctx context.Context, cfg ScreenConfig, w io.Writer) error {
	eps, threads, maxIter, rs := cfg.Epsilon, cfg.Threads, cfg.MaxIter, cfg.Ratios
	fmt.Fprintf(w, "tagger bench screen: alpha 1, epsilon %g, %d threads; %s/%s\n", eps, threads, runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "%-12s %6s %-8s %6s %9s %9s %10s %10s %10s %9s\n",
		"data", "ratio", "rule", "iters", "seconds", "speedup", "rejection", "max|dw|", "tolerance", "nonzero")
	for _, name := range cfg.Data {
		ds, err := LoadBenchData(name, cfg.Scale)
		if err != nil {
			return err
		}
		T1 := ds.Corpus.MaxLen() <= 1
		for _, ratio := range rs {
			var ref []float64
			var refSecs float64
			for _, rule := range cfg.Rules {
				if (rule == "paper" || rule == "both") && !T1 {
					continue
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				m, err := ds.NewModel()
				if err != nil {
					return err
				}
				runtime.GC()
				t0 := time.Now()
				res, err := train.Train(ctx, m, ds.Corpus, train.Options{
					Problem:   train.Problem{Alpha: 1, BetaRatio: ratio},
					Stopping:  train.Stopping{Epsilon: eps, MaxIter: maxIter},
					Method:    train.Method{Screen: train.ScreenRule(rule)},
					Resources: train.Resources{Threads: threads},
				})
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
				fmt.Fprintf(w, "%-12s %6.2f %-8s %6d %9.2f %9s %10s %10s %10s %9d\n",
					name, ratio, rule, res.NumIterations(), secs, speed, rej, dw, tol, res.NonZero)
			}
		}
	}
	fmt.Fprintln(w, "speedup = seconds without screening / with; rejection = screened / zeros of the unscreened solution;")
	fmt.Fprintln(w, "max|dw| = largest weight difference to the unscreened model; tolerance = sqrt(2 eps/(alpha beta)).")
	return nil
}
