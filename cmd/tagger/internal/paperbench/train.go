package paperbench

import (
	"context"
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"

	"github.com/sparsetag/sparsetag/train"
)

// TrainConfig configures the solver benchmark (tagger bench train): the
// working-set and full solvers on the same sum-form problem, interleaved
// in one process, per data set and thread count.
type TrainConfig struct {
	Data       []string // LoadBenchData names
	Scale      float64
	C1, C2     float64
	Threads    []int
	Epsilon    float64 // certified average-form gap to reach (e.g. 1e-4)
	TargetIter int     // the target objective is the full solver's after this many iterations
	MaxIter    int
	Budget     time.Duration // per solve; a solve that exceeds it stops ("monitor")
	Runs       int           // repetitions of each (full, working-set) pair
	// Certificates are the working-set solves of each run, one per
	// certificate (train.Certificate names; empty: the default only).
	Certificates []string
	JSON         string // file of the rows as JSON, written at the end ("": none)
	// Log, when not nil, gets the number of solves and a bound on the
	// total time up front, then a line per finished solve (trainProgress).
	Log io.Writer
}

// TrainRow is one solve of the benchmark.
type TrainRow struct {
	Data           string  `json:"data"`
	Threads        int     `json:"threads"`
	Solver         string  `json:"solver"`
	Certificate    string  `json:"certificate"` // the working set's dual point ("" for the full solver)
	Run            int     `json:"run"`
	Iterations     int     `json:"iterations"`      // OWL-QN iterations
	Passes         int     `json:"passes"`          // logged passes (full passes for the working-set solver)
	Evaluations    int     `json:"evaluations"`     // passes over the data (objective evaluations)
	SecPerIter     float64 `json:"sec_per_iter"`    // training seconds / OWL-QN iterations
	SecToTarget    float64 `json:"sec_to_target"`   // first OWL-QN iteration with primal <= target, since the solve started (-1: not reached)
	SecToEpsilon   float64 `json:"sec_to_epsilon"`  // first logged point with gap <= epsilon (-1: not reached)
	Seconds        float64 `json:"seconds"`         // whole solve
	FinalGap       float64 `json:"final_gap"`       // average form
	Primal         float64 `json:"primal"`          // average form
	NonZero        int     `json:"nonzero"`         // final model
	StaticRemoved  int     `json:"static_removed"`  // by the static range rule
	PinskerRemoved int     `json:"pinsker_removed"` // by the Pinsker rule (and Rnorm 0)
	StopReason     string  `json:"stop_reason"`
	// Distance to the other solver's model of the same run and the bound
	// sqrt(2 G1/(alpha beta)) + sqrt(2 G2/(alpha beta)) it must respect.
	Dist      float64 `json:"dist"`
	DistBound float64 `json:"dist_bound"`
	// Curve is the certified gap against time and passes over the data:
	// one point per full pass.
	Curve []GapPoint `json:"curve"`

	log   []train.Iteration
	steps []stepPoint
	bound float64 // sqrt(2 G / (alpha beta)) of this solve
}

// GapPoint is the certified average-form gap at a full pass, with the
// seconds since the solve started and the passes over the data so far.
type GapPoint struct {
	Seconds     float64 `json:"seconds"`
	Evaluations int     `json:"evaluations"`
	Iter        int     `json:"iter"`
	Gap         float64 `json:"gap"`
}

// firstBelow returns the first point of the curve whose gap is at most
// eps, and whether there is one.
func (r TrainRow) firstBelow(eps float64) (GapPoint, bool) {
	for _, p := range r.Curve {
		if p.Gap <= eps {
			return p, true
		}
	}
	return GapPoint{}, false
}

// stepPoint is the objective after one OWL-QN iteration and the seconds
// since the solve started (set-up included).
type stepPoint struct {
	iter    int
	primal  float64
	seconds float64
}

// timeTo returns the seconds (since the solve started) of the first OWL-QN
// iteration whose objective is at most target, or -1.
func timeTo(r TrainRow, target float64) float64 {
	for _, p := range r.steps {
		if p.primal <= target {
			return p.seconds
		}
	}
	return -1
}

// Train runs the solver benchmark and prints one table per data set; it
// returns the rows, which it also writes to cfg.JSON.
func Train(ctx context.Context, cfg TrainConfig, w io.Writer) ([]TrainRow, error) {
	var rows []TrainRow
	tp := newTrainProgress(cfg)
	for _, name := range cfg.Data {
		ds, err := LoadBenchData(name, cfg.Scale)
		if err != nil {
			return rows, err
		}
		fmt.Fprintf(w, "data %s: %s\n", ds.Name, ds.Desc)
		for _, th := range cfg.Threads {
			target := math.Inf(-1)
			for run := 0; run < max(cfg.Runs, 1); run++ {
				var group []TrainRow
				var models [][]float64
				for k, s := range cfg.solves() {
					row, wts, tgt, err := trainOnce(ctx, ds, cfg, s, th, target)
					if err != nil {
						return rows, err
					}
					tp.done(row, run)
					if k == 0 && run == 0 {
						target = tgt
						row.SecToTarget = timeTo(row, target)
					}
					row.Run = run
					group, models = append(group, row), append(models, wts)
				}
				rows = append(rows, withDistances(group, models)...)
			}
			fmt.Fprintf(w, "threads %d, target objective %.6g (the full solver's after %d iterations), epsilon %g\n", th, target, cfg.TargetIter, cfg.Epsilon)
		}
		printTrainTable(w, rows, ds.Name)
		printGapTable(w, rows, ds.Name, cfg.Epsilon)
	}
	if cfg.JSON != "" {
		return rows, WriteJSON(cfg.JSON, map[string]any{"rows": rows})
	}
	return rows, nil
}

// solve is one solver configuration of a run.
type solve struct {
	solver train.Solver
	cert   train.Certificate
}

// solves returns the configurations of a run: the full solver, then the
// working set with each certificate.
func (cfg TrainConfig) solves() []solve {
	out := []solve{{solver: train.SolverFull}}
	if len(cfg.Certificates) == 0 {
		return append(out, solve{train.SolverWorkingSet, train.CertificateMixture})
	}
	for _, c := range cfg.Certificates {
		out = append(out, solve{train.SolverWorkingSet, train.Certificate(c)})
	}
	return out
}

// withDistances sets, in the rows of one run, the distance of each
// working-set model to the full solver's (the first), and of the full
// solver's to the first working-set model, with the bound the two gaps
// allow.
func withDistances(rows []TrainRow, models [][]float64) []TrainRow {
	for k := range rows {
		o := 0
		if k == 0 {
			o = min(1, len(rows)-1)
		}
		dist := 0.0
		for j := range models[k] {
			d := models[k][j] - models[o][j]
			dist += d * d
		}
		rows[k].Dist, rows[k].DistBound = math.Sqrt(dist), rows[k].bound+rows[o].bound
	}
	return rows
}

// trainOnce runs one solve and returns its row, its weights and (for the
// full solver) the objective after cfg.TargetIter iterations.
func trainOnce(ctx context.Context, ds *Data, cfg TrainConfig, s solve, threads int, target float64) (TrainRow, []float64, float64, error) {
	solver := s.solver
	m, err := ds.NewModel()
	if err != nil {
		return TrainRow{}, nil, 0, err
	}
	t0 := time.Now()
	var log []train.Iteration
	var steps []stepPoint
	op := train.Options{
		Problem:   train.Problem{SumForm: true, C1: cfg.C1, C2: cfg.C2},
		Stopping:  train.Stopping{Epsilon: cfg.Epsilon, MaxIter: cfg.MaxIter},
		Method:    train.Method{Solver: solver, Certificate: s.cert},
		Resources: train.Resources{Threads: threads},
		Hooks: train.Hooks{MonitorEvery: 5,
			Progress: func(it train.Iteration) {
				log = append(log, it)
				if n := len(steps); n == 0 || steps[n-1].iter != it.Iter { // a line per iteration
					steps = append(steps, stepPoint{it.Iter, it.Primal, time.Since(t0).Seconds()})
				}
			},
			Monitor: func(train.Iteration, []float64) (bool, error) {
				return cfg.Budget > 0 && time.Since(t0) > cfg.Budget, nil
			}},
	}
	res, err := train.Train(ctx, m, ds.Corpus, op)
	if err != nil {
		return TrainRow{}, nil, 0, fmt.Errorf("%s, %s solver: %w", ds.Name, solver, err)
	}
	last := log[len(log)-1]
	ran := string(solver) // the requested policy, and the one that took over if it changed
	if res.Solver != solver {
		ran += "->" + string(res.Solver)
	}
	row := TrainRow{Data: ds.Name, Threads: threads, Solver: ran, Certificate: string(s.cert), Iterations: last.Iter,
		Passes: res.NumPasses() + 1, Evaluations: res.Evaluations,
		Seconds: res.Seconds, FinalGap: res.Gap, Primal: res.Primal, NonZero: res.NonZero,
		StaticRemoved: res.ScreenedStatic, PinskerRemoved: res.Screened - res.ScreenedStatic, StopReason: string(res.StopReason),
		bound: math.Sqrt(2 * res.Gap / res.Lambda2), SecToEpsilon: -1}
	if last.Iter > 0 {
		row.SecPerIter = last.Seconds / float64(last.Iter)
	}
	for _, it := range log {
		if it.Pass {
			row.Curve = append(row.Curve, GapPoint{it.Seconds, it.Evaluations, it.Iter, it.Gap})
		}
	}
	if p, ok := row.firstBelow(cfg.Epsilon); ok {
		row.SecToEpsilon = p.Seconds
	}
	tgt := math.Inf(-1)
	for _, p := range steps {
		if p.iter >= cfg.TargetIter {
			tgt = p.primal
			break
		}
	}
	row.log, row.steps = log, steps
	row.SecToTarget = timeTo(row, target)
	return row, m.W, tgt, nil
}

// printTrainTable prints the rows of one data set.
func printTrainTable(w io.Writer, rows []TrainRow, data string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "threads\tsolver\tcert\trun\titers\tpasses\tevals\ts/iter\ts to target\ts to eps\ts total\tgap\tnonzero\tstatic\tpinsker\tstop\tdist/bound\t")
	for _, r := range rows {
		if r.Data != data {
			continue
		}
		ratio := math.NaN()
		if r.DistBound > 0 {
			ratio = r.Dist / r.DistBound
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d\t%d\t%.3f\t%s\t%s\t%.1f\t%.2e\t%d\t%d\t%d\t%s\t%.3f\t\n", r.Threads, r.Solver,
			orDash(r.Certificate), r.Run, r.Iterations, r.Passes, r.Evaluations, r.SecPerIter, secs(r.SecToTarget),
			secs(r.SecToEpsilon), r.Seconds, r.FinalGap, r.NonZero, r.StaticRemoved, r.PinskerRemoved, r.StopReason, ratio)
	}
	tw.Flush()
}

// printGapTable prints, for each solve of a data set, the seconds and the
// passes over the data at which the certified gap first fell to each power
// of ten from 1e-1 down to eps.
func printGapTable(w io.Writer, rows []TrainRow, data string, eps float64) {
	var levels []float64
	for e := 1e-1; e >= eps*(1-1e-9); e /= 10 {
		levels = append(levels, e)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "threads\tsolver\tcert\trun\tgap reached at\t")
	for _, e := range levels {
		fmt.Fprintf(tw, "%.0e: s/passes\t", e)
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		if r.Data != data {
			continue
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t\t", r.Threads, r.Solver, orDash(r.Certificate), r.Run)
		for _, e := range levels {
			if p, ok := r.firstBelow(e); ok {
				fmt.Fprintf(tw, "%.1f/%d\t", p.Seconds, p.Evaluations)
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func secs(s float64) string {
	if s < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", s)
}

// trainProgress reports the progress of Train on cfg.Log: up front, the
// number of solves and, with a budget, a bound on the total time (each
// solve stops at the first check after cfg.Budget, every 5 iterations,
// so a solve may overrun it by a few iterations; loading the data comes
// on top); then one line per finished solve with the time spent and the
// bound on the time left.
type trainProgress struct {
	w      io.Writer
	budget time.Duration
	total  int
	n      int
	t0     time.Time
}

func newTrainProgress(cfg TrainConfig) *trainProgress {
	tp := &trainProgress{w: cfg.Log, budget: cfg.Budget, total: len(cfg.Data) * len(cfg.Threads) * max(cfg.Runs, 1) * len(cfg.solves()), t0: time.Now()}
	if tp.w == nil {
		return tp
	}
	fmt.Fprintf(tp.w, "bench train: %d solves (%d data sets x %d thread counts x %d runs x %d solvers)",
		tp.total, len(cfg.Data), len(cfg.Threads), max(cfg.Runs, 1), len(cfg.solves()))
	if tp.budget > 0 {
		fmt.Fprintf(tp.w, ", each stopped after --budget %v: at most about %v, plus loading the data\n", tp.budget, time.Duration(tp.total)*tp.budget)
	} else {
		fmt.Fprintf(tp.w, " without --budget: no bound on the time (each runs to --epsilon or --max-iter)\n")
	}
	return tp
}

// done reports a finished solve.
func (tp *trainProgress) done(r TrainRow, run int) {
	tp.n++
	if tp.w == nil {
		return
	}
	elapsed := time.Since(tp.t0).Round(time.Second)
	solver := r.Solver
	if r.Certificate != "" {
		solver += "/" + r.Certificate
	}
	fmt.Fprintf(tp.w, "bench train: solve %d/%d: %s, %d threads, %s solver, run %d: %.1fs, %d iterations, gap %.2e (%s); %v elapsed",
		tp.n, tp.total, r.Data, r.Threads, solver, run, r.Seconds, r.Iterations, r.FinalGap, r.StopReason, elapsed)
	if left := tp.total - tp.n; left > 0 && tp.budget > 0 {
		fmt.Fprintf(tp.w, ", at most about %v left", time.Duration(left)*tp.budget)
	}
	fmt.Fprintln(tp.w)
}
