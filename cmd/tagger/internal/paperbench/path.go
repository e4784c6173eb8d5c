package paperbench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/sparsetag/sparsetag/train"
)

// PathConfig configures Path (tagger path).
type PathConfig struct {
	Alpha    float64 // L2/L1 mix
	Betas    int     // number of betas, log-spaced from beta_max down to MinRatio beta_max
	MinRatio float64
	Epsilon  float64 // target gap at every beta
	Screen   string  // screening rule
	Solver   string
	Gamma    float64 // screening trigger (train.Options.Gamma)
	Threads  int
	MaxIter  int    // per beta
	Report   string // JSON report file ("": none)
	Out      string // directory of the ratio figures ("": none)
}

// Path solves the regularization path of cfg on ds (tagger path): a header,
// one line per beta and the totals on w, then the JSON report and the
// figures of cfg.
func Path(ctx context.Context, ds *Data, cfg PathConfig, w io.Writer) error {
	m, err := ds.NewModel()
	if err != nil {
		return err
	}
	d := m.Layout.Dim()
	if !m.Layout.Transitions {
		d -= m.Layout.PairOffset() - m.Layout.TransOffset() // the transition block is always allocated
	}
	fmt.Fprintf(w, "data %s: %s; %d features; alpha %g, %d betas down to %g beta_max, epsilon %g, screen %s, gamma %g\n",
		ds.Name, ds.Desc, d, cfg.Alpha, cfg.Betas, cfg.MinRatio, cfg.Epsilon, cfg.Screen, cfg.Gamma)
	fmt.Fprintf(w, "%4s  %11s  %6s  %9s  %10s  %9s  %9s\n", "k", "beta/bmax", "iters", "seconds", "gap", "nonzero", "screened")
	op := train.Options{
		Problem:   train.Problem{Alpha: cfg.Alpha},
		Stopping:  train.Stopping{Epsilon: cfg.Epsilon, MaxIter: cfg.MaxIter},
		Method:    train.Method{Screen: train.ScreenRule(cfg.Screen), Solver: train.Solver(cfg.Solver), Gamma: cfg.Gamma},
		Resources: train.Resources{Threads: cfg.Threads},
	}
	t0 := time.Now()
	results, err := train.Path(ctx, m, ds.Corpus, op, train.PathOptions{K: cfg.Betas, MinRatio: cfg.MinRatio},
		func(k int, res *train.Result, _ []float64) error {
			fmt.Fprintf(w, "%4d  %11.6f  %6d  %9.3f  %10.3e  %9d  %9d\n",
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
	fmt.Fprintf(w, "path: %d betas, %d iterations, %.3fs (screening %.3fs)\n", len(results), iters, total, screenSecs)
	return writePathOutputs(ds, cfg, results, total, w)
}

// writePathOutputs writes the JSON report and the figures of a path, if
// cfg asks for them, and names each file on w.
func writePathOutputs(ds *Data, cfg PathConfig, results []*train.Result, total float64, w io.Writer) error {
	if cfg.Report != "" {
		rep := PathReport{Data: ds.Name, Alpha: cfg.Alpha, Features: results[0].Dimension, Screen: string(results[0].Screen),
			Epsilon: results[0].Epsilon, Gamma: cfg.Gamma, K: cfg.Betas, MinRatio: cfg.MinRatio, BetaMax: results[0].BetaMax,
			SecondsTotal: total}
		for _, r := range results {
			rep.Path = append(rep.Path, NewTrainReport(ds.Name, r, cfg.Gamma))
		}
		if err := WriteJSON(cfg.Report, rep); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s\n", cfg.Report)
	}
	if cfg.Out != "" {
		files, err := WriteRatioFigures(cfg.Out, FigurePrefix(ds.Name)+"-"+cfg.Screen, ds.Name, []RuleRun{{Rule: cfg.Screen, Results: results}})
		if err != nil {
			return err
		}
		for _, f := range files {
			fmt.Fprintf(w, "wrote %s\n", f)
		}
	}
	return nil
}
