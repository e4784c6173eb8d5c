package paperbench

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/sparsetag/sparsetag/train"
)

// PaperConfig are the settings of the paper benchmark (tagger bench paper).
type PaperConfig struct {
	Data     []string // built-in data sets (see Builtin)
	Rules    []string // screening rules: none, paper, pinsker, both
	Scale    float64  // size factor of the data sets, in (0, 1]
	Seed     uint64   // seed of the synthetic sets
	Alpha    float64
	Betas    int     // K, the number of betas of each path
	MinRatio float64 // the smallest beta as a fraction of beta_max
	Epsilon  float64
	Gamma    float64 // screening trigger of the paper rule (and both)
	PGamma   float64 // screening trigger of the Pinsker rule
	Threads  int
	MaxIter  int
	Out      string // directory of the figures, "" for none
	JSON     string // file of the JSON report, "" for none
}

// paperRow is a row of the paper's timing table (Matlab, one core of an
// i7-5930K, 100 betas, full sizes): solver, screening, solver with screening
// (seconds) and speedup.
type paperRow struct{ solver, screening, with, speedup float64 }

var paperTable = map[string]paperRow{
	"syn1": {443, 12, 138, 2.95},
	"syn2": {1652, 16, 366, 4.30},
	"syn3": {3110, 30, 568, 5.20},
	"ocr":  {6723, 55, 1195, 5.4},
}

// benchRow is one (data, rule) line of bench paper --json. SolverS is the
// wall time of the path without screening (for a screening rule: of the
// "none" run of the same data set, the baseline of the speedup);
// WithScreeningS is the wall time of the path with the rule, screening
// included; ScreeningS the part of it spent in screening checks.
// RejectionFinal is the mean over the path of d_final/d* (betas that needed
// at least one iteration and have d* > 0). MaxWeightDiff is the largest
// |w_j - w_j'| between the rule's and the unscreened solution at any path
// beta; Tolerance is sqrt(2 epsilon/(alpha beta)) at that beta, and
// DiffOverBound the largest ratio over the path of ||w - w'||_2 to the
// rigorous bound sqrt(2 G/(alpha beta)) + sqrt(2 G'/(alpha beta)) from both
// runs' final gaps (<= 1 when both models are what the gaps certify).
type benchRow struct {
	Data   string `json:"data"`
	Rule   string `json:"rule"`
	Solver string `json:"solver"`
	// Ratio says what Speedup compares: "same-solver" (the full solver
	// with vs without screening) or "best-solver" (the working-set path
	// with screening vs the unscreened full solver).
	Ratio          string   `json:"ratio,omitempty"`
	SolverS        *float64 `json:"solver_s,omitempty"`
	ScreeningS     *float64 `json:"screening_s,omitempty"`
	WithScreeningS *float64 `json:"with_screening_s,omitempty"`
	Speedup        *float64 `json:"speedup,omitempty"`
	RejectionFinal *float64 `json:"rejection_final,omitempty"`
	MaxWeightDiff  *float64 `json:"max_weight_diff,omitempty"`
	Tolerance      *float64 `json:"tolerance,omitempty"`
	DiffOverBound  *float64 `json:"diff_over_bound,omitempty"`
	Model          string   `json:"model"`
	Sequences      int      `json:"n"`
	Features       int      `json:"d"`
	Betas          int      `json:"betas"`
	Iterations     int      `json:"iterations"`
	Unconverged    int      `json:"unconverged"`
}

// benchReport is the whole --json file.
type benchReport struct {
	Scale    float64    `json:"scale"`
	Alpha    float64    `json:"alpha"`
	Betas    int        `json:"betas"`
	MinRatio float64    `json:"min_ratio"`
	Epsilon  float64    `json:"epsilon"`
	Gamma    float64    `json:"gamma"`
	PGamma   float64    `json:"pinsker_gamma"`
	Threads  int        `json:"threads"`
	Seconds  float64    `json:"seconds_total"`
	Rows     []benchRow `json:"rows"`
}

// ruleOutcome is one timed path.
type ruleOutcome struct {
	rule      string
	wall      float64
	screening float64
	results   []*train.Result
	ws        [][]float64 // the solution at every beta
}

// Paper runs the paper benchmark: for every data set, one timed
// regularization path per rule, the table of times, speedups, rejection
// ratios and weight differences next to the paper's figures (on stdout),
// progress on stderr, and optionally the JSON report and the figures. The
// configuration must have been validated. It fails when a screened model
// differs from the unscreened one by more than both final gaps allow.
func Paper(ctx context.Context, cfg PaperConfig, stdout, stderr io.Writer) error {
	bf := &cfg
	datas, rules := cfg.Data, cfg.Rules
	t0 := time.Now()
	rep := benchReport{Scale: bf.Scale, Alpha: bf.Alpha, Betas: bf.Betas, MinRatio: bf.MinRatio, Epsilon: bf.Epsilon,
		Gamma: bf.Gamma, PGamma: bf.PGamma, Threads: bf.Threads}
	fmt.Fprintf(stdout, "tagger bench paper: alpha %g, %d betas from beta_max down to %g beta_max, epsilon %g, gamma %g (pinsker %g), %d threads, scale %g; %s/%s, %d CPUs\n",
		bf.Alpha, bf.Betas, bf.MinRatio, bf.Epsilon, bf.Gamma, bf.PGamma, bf.Threads, bf.Scale, runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	violations := 0
	for di, name := range datas {
		ds, err := LoadBuiltin(name, bf.Scale, bf.Seed)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s\n", name, ds.Desc)
		// The rules that apply, in an order that rotates with the data set.
		var order []string
		for k := range rules {
			r := rules[(k+di)%len(rules)]
			if rule, _, _ := ParseRun(r); (rule == train.ScreenPaper || rule == train.ScreenBoth) && ds.Corpus.MaxLen() > 1 {
				fmt.Fprintf(stdout, "%s: rule %s skipped: it needs T = 1 (the Pinsker rule is the chain-safe one)\n", name, r)
				continue
			}
			order = append(order, r)
		}
		outs := make(map[string]*ruleOutcome)
		for _, r := range order {
			o, err := benchPath(ctx, ds, r, bf)
			if err != nil {
				return fmt.Errorf("%s, rule %s: %w", name, r, err)
			}
			outs[r] = o
			fmt.Fprintf(stderr, "bench: %s %-7s %9.3fs (screening %.3fs)\n", name, r, o.wall, o.screening)
		}
		rows := benchRows(ds, rules, outs)
		for _, row := range rows {
			if row.DiffOverBound != nil && !(*row.DiffOverBound <= 1) {
				violations++
			}
		}
		rep.Rows = append(rep.Rows, rows...)
		rep.Seconds = time.Since(t0).Seconds()
		if bf.JSON != "" {
			if err := WriteJSON(bf.JSON, rep); err != nil {
				return err
			}
		}
		if bf.Out != "" {
			var runs []RuleRun
			for _, r := range rules {
				if o := outs[r]; o != nil && r != string(train.ScreenNone) {
					runs = append(runs, RuleRun{Rule: r, Results: o.results})
				}
			}
			if len(runs) > 0 {
				if _, err := WriteRatioFigures(bf.Out, name, name, runs); err != nil {
					return err
				}
			}
		}
	}
	fmt.Fprintln(stdout)
	printBenchTable(stdout, rep.Rows)
	fmt.Fprintf(stdout, "total %.1fs\n", time.Since(t0).Seconds())
	if bf.JSON != "" {
		fmt.Fprintf(stdout, "wrote %s\n", bf.JSON)
	}
	if bf.Out != "" {
		fmt.Fprintf(stdout, "figures in %s\n", bf.Out)
	}
	if violations > 0 {
		return fmt.Errorf("%d screened model(s) differ from the unscreened one by more than the final gaps allow", violations)
	}
	return nil
}

// WorkingSetSuffix marks a run of bench paper that uses the working-set
// solver (e.g. "pinsker-ws"); the other runs use the paper's full solver.
const WorkingSetSuffix = "-ws"

// ParseRun returns the screening rule and solver of a bench paper run name
// (a rule, or "pinsker-ws") and whether it is valid.
func ParseRun(name string) (train.ScreenRule, train.Solver, bool) {
	rule, ws := strings.CutSuffix(name, WorkingSetSuffix)
	switch r := train.ScreenRule(rule); {
	case ws && r == train.ScreenPinsker:
		return r, train.SolverWorkingSet, true
	case !ws && (r == train.ScreenNone || r == train.ScreenPaper || r == train.ScreenPinsker || r == train.ScreenBoth):
		return r, train.SolverFull, true
	}
	return "", "", false
}

// SplitList splits a comma-separated flag value, dropping empty items.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// benchPath runs and times one path: a fresh model, the whole train.Path
// call (beta_max and screening constants included), after a garbage
// collection so that no earlier run's garbage is charged to it.
func benchPath(ctx context.Context, ds *Data, rule string, bf *PaperConfig) (*ruleOutcome, error) {
	m, err := ds.NewModel()
	if err != nil {
		return nil, err
	}
	o := &ruleOutcome{rule: rule}
	screen, solver, _ := ParseRun(rule)
	gamma := bf.Gamma
	if screen == train.ScreenPinsker {
		gamma = bf.PGamma
	}
	op := train.Options{
		Problem:   train.Problem{Alpha: bf.Alpha},
		Stopping:  train.Stopping{Epsilon: bf.Epsilon, MaxIter: bf.MaxIter},
		Method:    train.Method{Screen: screen, Solver: solver, Gamma: gamma},
		Resources: train.Resources{Threads: bf.Threads},
	}
	runtime.GC()
	t0 := time.Now()
	res, err := train.Path(ctx, m, ds.Corpus, op, train.PathOptions{K: bf.Betas, MinRatio: bf.MinRatio},
		func(k int, _ *train.Result, w []float64) error {
			o.ws = append(o.ws, slices.Clone(w))
			return nil
		})
	o.wall = time.Since(t0).Seconds()
	if err != nil {
		return nil, err
	}
	o.results = res
	for _, r := range res {
		o.screening += r.SecondsScreening
	}
	return o, nil
}

// benchRows turns the outcomes of one data set into table rows, in the order
// of rules (not the order they ran in).
func benchRows(ds *Data, rules []string, outs map[string]*ruleOutcome) []benchRow {
	base := outs[string(train.ScreenNone)]
	var rows []benchRow
	for _, r := range rules {
		o := outs[r]
		if o == nil {
			continue
		}
		_, solver, _ := ParseRun(r)
		row := benchRow{Data: ds.Name, Rule: r, Solver: string(solver), Model: ds.Desc, Sequences: ds.Corpus.Len(), Betas: len(o.results)}
		for _, res := range o.results {
			row.Features = res.Dimension
			row.Iterations += res.NumIterations()
			if !res.Converged {
				row.Unconverged++
			}
		}
		if r == string(train.ScreenNone) {
			row.SolverS = ptr(o.wall)
			rows = append(rows, row)
			continue
		}
		row.ScreeningS = ptr(o.screening)
		row.WithScreeningS = ptr(o.wall)
		if rej, ok := meanRejection(o.results); ok {
			row.RejectionFinal = ptr(rej)
		}
		if base != nil {
			row.Ratio = "same-solver"
			if solver == train.SolverWorkingSet {
				row.Ratio = "best-solver"
			}
			row.SolverS = ptr(base.wall)
			row.Speedup = ptr(base.wall / o.wall)
			dmax, tol, ratio := compareSolutions(base, o)
			row.MaxWeightDiff, row.Tolerance, row.DiffOverBound = ptr(dmax), ptr(tol), ptr(ratio)
		}
		rows = append(rows, row)
	}
	return rows
}

func ptr(x float64) *float64 { return &x }

// meanRejection is the mean over the path of the final rejection ratio
// d_final/d*, over the betas that needed at least one iteration (at beta_max
// w = 0 is certified at once and nothing needs screening) and whose solution
// has a zero (d* > 0).
func meanRejection(results []*train.Result) (float64, bool) {
	sum, n := 0.0, 0
	for _, res := range results {
		dStar := res.Dimension - res.NonZero
		if res.NumIterations() == 0 || dStar == 0 {
			continue
		}
		sum += float64(res.Screened) / float64(dStar)
		n++
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// compareSolutions compares the path solutions of a screening rule with the
// unscreened ones, beta by beta: the largest |w_j - w'_j| over the path, the
// tolerance sqrt(2 eps/(alpha beta)) at the beta where it occurs, and the
// largest ratio of ||w - w'||_2 to the bound that both final gaps certify,
// sqrt(2 G/(alpha beta)) + sqrt(2 G'/(alpha beta)) (strong convexity of the
// primal with modulus alpha beta: ||w - w*||^2 <= 2 G/(alpha beta)).
func compareSolutions(base, o *ruleOutcome) (maxDiff, tol, maxRatio float64) {
	for k := range min(len(base.ws), len(o.ws)) {
		a, b := base.ws[k], o.ws[k]
		ra, rb := base.results[k], o.results[k]
		ab := ra.Alpha * ra.Beta
		inf, sq := 0.0, 0.0
		for j := range a {
			d := math.Abs(a[j] - b[j])
			inf = max(inf, d)
			sq += d * d
		}
		if inf > maxDiff || k == 0 {
			maxDiff = inf
			tol = math.Sqrt(2 * ra.Epsilon / ab)
		}
		bound := math.Sqrt(2*ra.Gap/ab) + math.Sqrt(2*rb.Gap/ab)
		ratio := 0.0
		switch {
		case math.IsNaN(sq) || ra.Beta != rb.Beta:
			ratio = math.Inf(1)
		case sq > 0:
			ratio = math.Sqrt(sq) / bound // +Inf when the bound is 0
		}
		maxRatio = max(maxRatio, ratio)
	}
	return maxDiff, tol, maxRatio
}

// printBenchTable prints our rows with the paper's row of each data set.
func printBenchTable(w io.Writer, rows []benchRow) {
	f := func(p *float64, format string) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf(format, *p)
	}
	fmt.Fprintf(w, "%-12s %-10s %10s %12s %17s %8s %9s %9s %9s %8s %7s\n",
		"data", "run", "solver(s)", "screening(s)", "with screening(s)", "speedup", "rejection", "max|dw|", "tolerance", "dw/bound", "iters")
	last := ""
	flushPaper := func(data string) {
		p, ok := paperTable[strings.TrimSuffix(data, "-letters")]
		if !ok {
			return
		}
		fmt.Fprintf(w, "%-12s %-10s %10.0f %12.0f %17.0f %8.2f %9s %9s %9s %8s %7s\n",
			data, "(paper)", p.solver, p.screening, p.with, p.speedup, "-", "-", "-", "-", "-")
	}
	for _, r := range rows {
		if last != "" && r.Data != last {
			flushPaper(last)
		}
		last = r.Data
		iters := fmt.Sprint(r.Iterations)
		if r.Unconverged > 0 {
			iters += fmt.Sprintf(" (%d unconverged)", r.Unconverged)
		}
		fmt.Fprintf(w, "%-12s %-10s %10s %12s %17s %8s %9s %9s %9s %8s %7s\n",
			r.Data, r.Rule, f(r.SolverS, "%.3f"), f(r.ScreeningS, "%.3f"), f(r.WithScreeningS, "%.3f"), f(r.Speedup, "%.2f"),
			f(r.RejectionFinal, "%.4f"), f(r.MaxWeightDiff, "%.2e"), f(r.Tolerance, "%.2e"), f(r.DiffOverBound, "%.3f"), iters)
	}
	if last != "" {
		flushPaper(last)
	}
	fmt.Fprintf(w, "solver = path without screening (full solver); with screening = the path with the rule, checks included; speedup = solver / with screening:\n"+
		"the same-solver ratio for none/paper/pinsker/both (the paper's Algorithm 1 throughout), the best-solver ratio for pinsker-ws (working-set path);\n"+
		"rejection = mean over the path of d_final/d*; max|dw| = largest weight difference to the unscreened model over the path;\n"+
		"tolerance = sqrt(2 eps/(alpha beta)) at that beta; dw/bound = worst ||dw||_2 / (sqrt(2G/(alpha beta)) + sqrt(2G'/(alpha beta))), must be <= 1.\n"+
		"(paper) = the paper's Matlab figures at full size, 100 betas, one core of an i7-5930K; ocr-letters is compared with the paper's OCR row.\n")
}
