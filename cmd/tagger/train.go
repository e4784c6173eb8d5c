package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/flagcheck"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/memlimit"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/paperbench"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/profile"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/progress"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/peer"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
	"github.com/sparsetag/sparsetag/train/online"
	"github.com/sparsetag/sparsetag/train/selection"
)

// maxLBFGSMemory bounds the L-BFGS memory (--memory): every pair costs two
// vectors over the features, and beyond a few dozen pairs the direction
// no longer improves (Nocedal and Wright suggest 3 to 20).
const maxLBFGSMemory = 1000

// trainFlags are the options of train.
type trainFlags struct {
	dataFlags
	valuedFlags
	// op holds the flags that set fields of the training options; the
	// others (c1, c2, memLimit) are set by trainOptions.
	op       train.Options
	template string
	model    string
	// modelFormat is --model-format: the format of the --model file.
	modelFormat modelFormat
	c1, c2      float64
	minFreq     int
	quiet       bool
	keepCkpt    bool
	cpuprof     string
	memprof     string
	memLimit    string
	report      string
	ckpt        string
	ckptEvery   int
	resume      bool
	init        string
	prior       string
	partial     bool
	unknown     string
	valid       string
	patience    int
	validEach   int
	validFold   string

	// --algorithm, -p and --seed (online.go); onlineParams is set by
	// checkAlgorithm for l2sgd, ap, pa and arow.
	algorithm     string
	params        paramFlag
	seed          uint64
	crfsuiteOrder bool
	onlineParams  *online.Params
	seqWeights    string // --sequence-weights

	selectDev   string
	selectEval  string
	selectFolds int
	selectFloor float64
	cache       string
	hardFloor   float64
	betas       int
}

func runTrain(e *env, args []string) error {
	var tf trainFlags
	fs := newFlagSet(e, "train", "[flags] TRAIN-FILE",
		"tagger train --format conll --template embedded:conll2000/chunking.template --c1 1 --c2 1 --delta 1e-5 --model chunk.model embedded:conll2000/train.txt.gz")
	d := train.DefaultOptions() // the library's defaults are the flags' defaults
	declareTrainFlags(fs, &tf, d)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := tf.checkAlgorithm(set); err != nil {
		return err
	}
	tf.checkNoL2(set)
	if _, err := tf.checkLabelColumn(fs); err != nil {
		return err
	}
	if err := tf.checkPartial(fs); err != nil {
		return err
	}
	if err := tf.validate(pos); err != nil {
		return err
	}
	if err := tf.checkOutputs(); err != nil {
		return err
	}
	if err := tf.checkValued(); err != nil {
		return err
	}
	stop, err := profile.StartCPU(tf.cpuprof)
	if err != nil {
		return err
	}
	defer stop()
	_, err = trainModel(e, pos[0], &tf)
	return err
}

// declareTrainFlags declares train's flags on fs, with the library's defaults d.
func declareTrainFlags(fs *flag.FlagSet, tf *trainFlags, d train.Options) {
	declareData(fs, tf)
	declarePenalty(fs, tf, d)
	declareSolver(fs, tf, d)
	declareOutputs(fs, tf, d)
	declareSelection(fs, tf, d)
	declareAdapt(fs, tf)
	tf.labelColumnFlag(fs)
	tf.addValuedFlags(fs)
}

// declareData declares the flags of the data and the model file.
func declareData(fs *flag.FlagSet, tf *trainFlags) {
	fs.StringVar(&tf.format, "format", "conll", "input `format`: conll, crfsuite, conllu or ocr")
	fs.StringVar(&tf.folds, "folds", "", "OCR folds to use, e.g. `1-9` or 0,3 (default all)")
	fs.StringVar(&tf.template, "template", "", "CRF++ feature template `file` for column formats (default: words in a +-2 window and label bigrams)")
	fs.StringVar(&tf.model, "model", "tagger.model", "model `file` to write")
	fs.StringVar((*string)(&tf.modelFormat), "model-format", string(formatOurs), "`format` of the --model file: ours, or crfsuite (CRFsuite's model file, read by crfsuite tag and python-crfsuite; needs --format crfsuite, whose attributes and transitions are all it holds)")
	fs.IntVar(&tf.minFreq, "min-freq", 1, "drop attributes seen fewer than this many times")
	fs.BoolVar(&tf.op.ObservedPairs, "observed-pairs", false, "use only (attribute, label) pairs seen in training (CRFsuite's feature set)")
	fs.StringVar(&tf.seqWeights, "sequence-weights", "", "side `file` of sequence weights: one weight (> 0) per line, one line per training sequence (CRFsuite files can give them with @weight:w lines instead)")
}

// declarePenalty declares the flags of the penalty and the stopping rules.
func declarePenalty(fs *flag.FlagSet, tf *trainFlags, d train.Options) {
	fs.Float64Var(&tf.op.Alpha, "alpha", 0, "L2/L1 mix of the paper's objective beta*(alpha/2 ||w||^2 + ||w||_1) (0: 1 in the paper's form; not with --c1/--c2)")
	fs.Float64Var(&tf.op.Beta, "beta", 0, "regularization strength beta of the paper's form (0: use --beta-ratio)")
	fs.Float64Var(&tf.op.BetaRatio, "beta-ratio", 0, "beta as a fraction `R` of beta_max, 0 < R < 1, when --beta is 0 (0: 0.1 when --alpha is given)")
	fs.Float64Var(&tf.c1, "c1", -1, fmt.Sprintf("L1 penalty of the sum form sum NLL + c1||w||_1 + c2||w||^2 (beta = c1/n, alpha = 2 c2/c1; -1: not used; with no penalty flag at all, --c1 %g --c2 %g)", train.DefaultC1, train.DefaultC2))
	fs.Float64Var(&tf.c2, "c2", -1, "L2 penalty of the sum form (with --c1; --c1 0 --c2 1 is pure L2; --c2 0 is pure L1, certified, and --c1 0 --c2 0 no penalty, uncertified: both without screening, docs/crfsuite-algorithms.md; -1: not used)")
	fs.Float64Var(&tf.op.Epsilon, "epsilon", 0, "stop when the certified duality gap of the average-form objective is at most this (0: use --rel-epsilon; the paper uses 1e-6; see README \"Stopping rule\")")
	fs.Float64Var(&tf.op.RelEpsilon, "rel-epsilon", 0, fmt.Sprintf("stop when the certified gap is at most this fraction of the objective (0: %g when --epsilon is 0 too)", train.DefaultRelEpsilon))
	fs.Float64Var(&tf.op.Delta, "delta", 0, "also stop when the objective improved by less than this fraction over 10 iterations (CRFsuite's rule; 0: off)")
	fs.IntVar(&tf.op.MaxIter, "max-iter", d.MaxIter, "maximum number of iterations")
}

// declareSolver declares the flags of the solver and its resources.
func declareSolver(fs *flag.FlagSet, tf *trainFlags, d train.Options) {
	fs.IntVar(&tf.op.Threads, "threads", d.Threads, "worker goroutines (the model does not depend on it)")
	fs.StringVar((*string)(&tf.op.Screen), "screen", string(d.Screen), "safe screening rule: none, pinsker, paper or both")
	fs.StringVar((*string)(&tf.op.Solver), "solver", string(d.Solver), "`solver`: working-set (full passes over every feature give the gap and screening; OWL-QN runs on a working set between them; same certified optimum) or full (the paper's Algorithm 1: OWL-QN on every unscreened feature)")
	fs.StringVar((*string)(&tf.op.Certificate), "certificate", string(d.Certificate), "dual point of the working set's certified gap: mixture (of the last full passes' model distributions; smaller gaps, more memory) or model (the model's own, the paper's)")
	fs.StringVar(&tf.memLimit, "memory-limit", "auto", "refuse up front a problem whose estimated memory exceeds `size` (e.g. 800M, 4G; 0: no limit; auto: half of the machine's RAM), and keep the Go heap under it")
	fs.IntVar(&tf.op.WarmEpochs, "warm-epochs", d.WarmEpochs, "start the solve from `N` epochs of SGD with the cumulative L1 penalty (0: from zero; ignored with --init, --resume, --select and --select-folds)")
	fs.IntVar(&tf.op.Memory, "memory", d.Memory, "L-BFGS memory (number of stored pairs); it costs 2*memory*features*8 bytes")
	fs.StringVar(&tf.algorithm, "algorithm", "", algorithmUsage())
	fs.Var(&tf.params, "p", "`name=value`: a parameter of --algorithm under CRFsuite's name (repeatable; see --algorithm)")
	fs.Uint64Var(&tf.seed, "seed", 0, "visit the sequences of --algorithm l2sgd, ap, pa and arow in a fresh permutation every epoch drawn from seed `N` instead of CRFsuite's order (0: CRFsuite's order, the default)")
	fs.BoolVar(&tf.crfsuiteOrder, "crfsuite-order", true, "visit the sequences of --algorithm l2sgd, ap, pa and arow in CRFsuite 0.12's order (its unseeded C-library rand() of glibc), so that the run follows CRFsuite's up to rounding and l2sgd stops at CRFsuite's epoch: the default, accepted for scripts that give it (not with --seed)")
}

// declareOutputs declares the flags of progress, reports, profiles, checkpoints and the cache.
func declareOutputs(fs *flag.FlagSet, tf *trainFlags, d train.Options) {
	fs.BoolVar(&tf.quiet, "quiet", false, "no progress on stderr")
	fs.StringVar(&tf.report, "report", "", "write the training report (settings, per-iteration log, final gap, timings) as JSON to `file`")
	fs.StringVar(&tf.cpuprof, "cpuprofile", "", "write a CPU profile of training to `file`")
	fs.StringVar(&tf.memprof, "memprofile", "", "write a heap profile (live objects at the end of training, before the model is freed) to `file`")
	fs.StringVar(&tf.ckpt, "checkpoint", "", "write a checkpoint to `file` every --checkpoint-every iterations (atomically)")
	fs.IntVar(&tf.ckptEvery, "checkpoint-every", d.CheckpointEvery, "iterations between checkpoints")
	fs.StringVar(&tf.cache, "cache", "", "keep the encoded training corpus in `file`: read it from there when it was written for the same data, template and options, else encode the text and write it (a corrupt file is an error; not with --select-folds)")
	fs.BoolVar(&tf.resume, "resume", false, "continue from the --checkpoint file (same data and options): reaches the same model as an uninterrupted run; without the file, start from the beginning")
	fs.BoolVar(&tf.keepCkpt, "keep-checkpoint", false, "keep the --checkpoint file after a finished run (it is removed unless the run was interrupted)")
}

// declareSelection declares the flags of validation and the choice of the penalty.
func declareSelection(fs *flag.FlagSet, tf *trainFlags, d train.Options) {
	fs.StringVar(&tf.valid, "valid", "", "labeled validation `file` (same format): evaluate every --valid-every iterations, keep the best model, stop after --patience checks without improvement")
	fs.StringVar(&tf.validFold, "valid-folds", "", "OCR folds of the --valid or --select file (default all)")
	fs.IntVar(&tf.patience, "patience", 3, "validation checks without improvement before stopping (with --valid); with --select, betas whose dev score is below the best before the path stops (counted once the score has risen above its first value; with --prior, from the first beta, which is the old model)")
	fs.StringVar(&tf.selectDev, "select", "", "select the penalty on this labeled development `file` (same format): solve a path of penalties from beta_max down to --select-floor beta_max (warm starts, screening, working sets; --c1/--c2 fix only the L1/L2 ratio), score each model (chunk F1, or token accuracy), stop when the score has peaked, save the best model and print the path table")
	fs.StringVar(&tf.selectEval, "select-eval", "", "also score every model of the --select path on this labeled `file` (reported in the table and JSON as eval; not used to choose)")
	fs.IntVar(&tf.selectFolds, "select-folds", 0, "select the penalty by `K`-fold cross-validation of the training file instead of --select (sequence i in fold i mod K), then refit on all of it")
	fs.Float64Var(&tf.selectFloor, "select-floor", 1e-5, "smallest penalty of the --select path, as a fraction of beta_max")
	fs.Float64Var(&tf.hardFloor, "select-hard-floor", 1e-8, "when the dev score still rises at --select-floor, the path goes on below it (same step) until the score has peaked (--patience), down to this fraction of beta_max at most (0, or not below --select-floor: no extension)")
	fs.IntVar(&tf.betas, "betas", 26, "number of penalties of the --select path, log-spaced from beta_max to --select-floor beta_max")
	fs.IntVar(&tf.validEach, "valid-every", d.MonitorEvery, "iterations between validation checks (with --valid)")
}

// declareAdapt declares the flags of starting points, priors and partial labels.
func declareAdapt(fs *flag.FlagSet, tf *trainFlags) {
	fs.StringVar(&tf.init, "init", "", "continue training from this model `file`: its weights (matched by label and attribute names) are the starting point; labels only the training data has start at zero, labels only the model has are dropped (both are named)")
	fs.StringVar(&tf.prior, "prior", "", "keep this model `file` as a prior: train w = w0 + v with the penalty on v only, so the new model departs from the old one only where the new data demands it (labels and attributes only the old model has are kept; same convex problem, certified gap and screening: docs/prior.md; with --select or --select-folds the path's penalties are on v; not with --init or --screen paper/both)")
	fs.BoolVar(&tf.partial, "partial", false, "partial labels: a token's label may be a set (`B-PER|I-PER`: any of them) or unknown (--unknown-label); training maximizes the likelihood of every labeling the sets allow. NOT CONVEX: no certified gap and no screening (--epsilon, --rel-epsilon, --screen, --solver, --certificate are refused); it stops on --delta (default 1e-5) or --max-iter, from zero or --init")
	fs.StringVar(&tf.unknown, "unknown-label", "?", "with --partial, the `marker` of a token whose label is unknown (any label)")
}

// trainModel reads, encodes, trains and saves; it returns the model. The
// model is saved before any secondary output, whose failure never loses
// it (runTrain checked every output before the data was read).
func trainModel(e *env, path string, tf *trainFlags) (*chain.Model, error) {
	t0 := time.Now()
	if tf.onlineParams != nil && tf.minFreq <= 1 && tf.modelFormat != formatCRFsuite && !tf.partial {
		return trainOnlineStreamed(e, path, tf, t0)
	}
	var (
		m       *chain.Model
		c       *sparse.Corpus
		exs     []dataset.Example
		from    string
		allowed *train.LabelSets
		weights []float64 // the data's @weight lines (nil: none)
		err     error
	)
	if tf.partial {
		m, c, exs, allowed, err = tf.readPartial(e, path)
		weights = dataset.SequenceWeights(exs)
	} else {
		m, c, exs, weights, from, err = tf.readTraining(e, path)
	}
	if err != nil {
		return nil, err
	}
	if tf.modelFormat == formatCRFsuite {
		// Refused before training, not after.
		if err := peer.CheckCRFsuite(m); err != nil {
			return nil, fmt.Errorf("--model-format crfsuite: %w", err)
		}
	}
	if !tf.quiet {
		fmt.Fprintf(e.stderr, "read %d sequences, %d positions, %d labels, %d attributes, %d features (%.1fs%s)\n",
			c.Len(), c.Positions(), len(m.Labels), m.Layout.NumUnary+m.Layout.NumPair, len(m.W), time.Since(t0).Seconds(), from)
	}
	weights, err = tf.sequenceWeights(weights, c.Len())
	if err != nil {
		return nil, err
	}
	if tf.onlineParams != nil {
		return trainOnline(e, path, tf, m, c, weights)
	}
	if err := tf.checkLBFGSWeights(weights); err != nil {
		return nil, err
	}
	op, err := tf.options()
	if err != nil {
		return nil, err
	}
	op.Allowed = allowed
	op.Weights = weights
	if tf.prior != "" {
		if m, err = withPrior(e, tf, m, &op); err != nil {
			return nil, err
		}
		if allowed != nil && len(m.Labels) > allowed.NumLabels() {
			return nil, usagef("--partial with --prior: the prior model has labels the training data lacks")
		}
	}
	if tf.selectDev != "" || tf.selectFolds > 0 {
		return selectModel(e, path, tf, op, m, c, exs)
	}
	res, err := fit(e, tf, op, m, c)
	if err != nil {
		return nil, err
	}
	if err := tf.save(e, path, m, res); err != nil {
		return nil, err
	}
	if res.StopReason == train.StopInterrupt {
		return nil, e.intr.Err()
	}
	return m, nil
}

// checkLBFGSWeights refuses sequence weights (nil: none) with what the
// elastic-net trainer does not weigh: partial labels, cross-validation
// folds (each fold is encoded and trained on its own) and the paper's
// screening rule.
func (tf *trainFlags) checkLBFGSWeights(weights []float64) error {
	if weights == nil {
		return nil
	}
	switch {
	case tf.partial:
		return usagef("sequence weights with --partial are not supported")
	case tf.selectFolds > 0:
		return usagef("sequence weights with --select-folds are not supported (use --select FILE)")
	case tf.op.Screen == train.ScreenPaper || tf.op.Screen == train.ScreenBoth:
		return usagef("--screen %s is not proven with sequence weights (use pinsker)", tf.op.Screen)
	}
	return nil
}

// checkNoL2 drops, for --c2 0 (pure L1, or no penalty with --c1 0), the
// defaults of the flags that need an L2 term (--screen, --solver,
// --certificate: the full solver runs without screening); set explicitly,
// they are refused by the library with its reason.
func (tf *trainFlags) checkNoL2(set map[string]bool) {
	if tf.c1 < 0 || tf.c2 != 0 {
		return
	}
	for name, v := range map[string]*string{"screen": (*string)(&tf.op.Screen), "solver": (*string)(&tf.op.Solver), "certificate": (*string)(&tf.op.Certificate)} {
		if !set[name] {
			*v = ""
		}
	}
}

// checkOutputs checks, before any work, that every file train will write
// can be written.
func (tf *trainFlags) checkOutputs() error {
	return usage(flagcheck.Outputs(flagcheck.Output{Flag: "--model", Path: tf.model}, flagcheck.Output{Flag: "--report", Path: tf.report},
		flagcheck.Output{Flag: "--checkpoint", Path: tf.ckpt}, flagcheck.Output{Flag: "--cpuprofile", Path: tf.cpuprof},
		flagcheck.Output{Flag: "--memprofile", Path: tf.memprof}))
}

// initFrom sets op.Init to the weights of the --init model mapped onto m by
// label and attribute names, and says which labels start at zero (only the
// training data has them) and which are dropped (only the old model has
// them).
func initFrom(e *env, tf *trainFlags, op *train.Options, m *chain.Model) error {
	old, err := chain.LoadFile(tf.init)
	if err != nil {
		return err
	}
	if err := m.CheckWeightsFrom(old); err != nil {
		return usagef("--init %s does not fit the training data: %v", tf.init, err)
	}
	if onlyNew, onlyOld := m.LabelChanges(old); len(onlyNew)+len(onlyOld) > 0 && !tf.quiet {
		fmt.Fprintf(e.stderr, "init %s: labels only the training data has start at zero: %s; labels only %s has are dropped: %s\n",
			tf.init, noneIfEmpty(onlyNew), tf.init, noneIfEmpty(onlyOld))
	}
	op.Init = m.WeightsFrom(old)
	return nil
}

// noneIfEmpty lists labels separated by commas, or says "none".
func noneIfEmpty(labels []string) string {
	if len(labels) == 0 {
		return "none"
	}
	return strings.Join(labels, ", ")
}

// fit trains m on c with the options of the flags (checkpoints, warm
// start, early stopping, progress, interrupts) and returns the result.
func fit(e *env, tf *trainFlags, op train.Options, m *chain.Model, c *sparse.Corpus) (*train.Result, error) {
	if err := tf.checkpoint(e, &op); err != nil {
		return nil, err
	}
	if tf.init != "" {
		if err := initFrom(e, tf, &op, m); err != nil {
			return nil, err
		}
	}
	early, err := tf.earlyStop(e, m)
	if err != nil {
		return nil, err
	}
	if early != nil {
		op.Monitor, op.MonitorEvery = early.Monitor, tf.validEach
	}
	progressFn, finish := progress.New(e.stderr, tf.quiet, tf.op.MaxIter, tf.op.Epsilon, tf.op.RelEpsilon)
	op.Progress = func(it train.Iteration) {
		if it.Warm != nil && !tf.quiet {
			printWarmStart(e.stderr, it.Warm) // before the log of the iterations it started
		}
		progressFn(it)
	}
	if tf.memprof != "" {
		op.Progress = progress.Chain(op.Progress, progress.HeapProfiler(tf.memprof))
	}
	// An interrupt ends training at the next full pass (the point reached
	// is saved); only the work context, which no first signal cancels,
	// can abort an evaluation.
	op.Interrupt = e.intr.Done()
	res, err := train.Train(e.intr.Work(e.ctx), m, c, op)
	finish()
	if err != nil {
		return nil, err
	}
	if early != nil {
		// Keep the best validated weights unless the final model is better.
		kept, f1, err := early.KeepBest(m.W)
		if err != nil {
			return nil, err
		}
		if _, best, iter := early.Best(); kept && !tf.quiet {
			fmt.Fprintf(e.stderr, "keeping the weights of iteration %d (validation f1 %.4f > final %.4f)\n", iter, best, f1)
		}
	}
	if !tf.quiet {
		progress.Summary(e.stderr, res)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	return res, nil
}

// printWarmStart writes the log line of the stochastic warm start.
func printWarmStart(w io.Writer, ws *train.WarmStart) {
	note := ""
	if ws.Discarded {
		note = " (not finite: discarded, the solve starts from zero)"
	}
	fmt.Fprintf(w, "warm start: %d SGD epochs (eta0 %g after %d calibration trials), average loss %.6g, %.1fs before the solve%s\n",
		ws.Epochs, ws.Eta0, ws.Trials, ws.Loss, ws.Seconds, note)
}

// save writes the model (under the interrupt rule of saveModel), then the
// report; a report that cannot be written is an error only after the model
// is safe. A finished run removes its
// checkpoint (unless --keep-checkpoint); an interrupted one keeps it.
func (tf *trainFlags) save(e *env, path string, m *chain.Model, res *train.Result) error {
	interrupted := res.StopReason == train.StopInterrupt
	if err := saveModel(tf.log(e, interrupted), m, tf.model, tf.modelFormat, interrupted, res.NumIterations() > 0); err != nil {
		return err
	}
	if tf.ckpt != "" && !tf.keepCkpt && res.StopReason != train.StopInterrupt {
		if err := (train.CheckpointFile{Path: tf.ckpt}).Remove(); err != nil {
			fmt.Fprintf(e.stderr, "warning: removing the checkpoint: %v\n", err)
		}
	}
	if tf.report != "" {
		if err := paperbench.WriteJSON(tf.report, paperbench.NewTrainReport(path, res, 0)); err != nil {
			return fmt.Errorf("the model is saved, but the report is not: %w", err)
		}
	}
	return nil
}

// log is where train says what it wrote: stderr unless --quiet, and
// stderr for an interrupted run, whose model file may not be --model.
func (tf *trainFlags) log(e *env, interrupted bool) io.Writer {
	if tf.quiet && !interrupted {
		return nil
	}
	return e.stderr
}

// checkpoint sets the checkpoints of op (--checkpoint, atomically; a
// failed write is a warning: training goes on) and the state it resumes
// from (--resume; without a checkpoint file the run starts fresh and says
// so).
func (tf *trainFlags) checkpoint(e *env, op *train.Options) error {
	if tf.ckpt == "" {
		return nil
	}
	f := train.CheckpointFile{Path: tf.ckpt, Warn: func(err error) {
		fmt.Fprintf(e.stderr, "warning: checkpoint not written (training goes on): %v\n", err)
	}}
	op.CheckpointEvery, op.Checkpoint = tf.ckptEvery, f.Save
	if !tf.resume {
		return nil
	}
	ck, err := f.Load()
	if err != nil {
		return err
	}
	if ck == nil {
		fmt.Fprintf(e.stderr, "no checkpoint %s yet: starting from the beginning\n", tf.ckpt)
		return nil
	}
	op.Resume = ck
	if last, ok := ck.Last(); ok {
		fmt.Fprintf(e.stderr, "resuming from %s: iteration %d, objective %.8g, gap %.3e\n", tf.ckpt, last.Iter, last.Primal, last.Gap)
	} else {
		fmt.Fprintf(e.stderr, "resuming from %s\n", tf.ckpt)
	}
	return nil
}

// earlyStop returns the early stopping on the --valid file (nil without
// it): selection.EarlyStop with the F1 of the weights on that file.
func (tf *trainFlags) earlyStop(e *env, m *chain.Model) (*selection.EarlyStop, error) {
	if tf.valid == "" {
		return nil, nil
	}
	if tf.patience < 1 || tf.validEach < 1 {
		return nil, usagef("--patience and --valid-every must be >= 1")
	}
	score, err := fileScorer(e, tf, m, tf.valid)
	if err != nil {
		return nil, err
	}
	es := &selection.EarlyStop{Score: score, Patience: tf.patience}
	if !tf.quiet {
		es.Checked = func(iter int, f1, best float64, bestIter int) {
			fmt.Fprintf(e.stderr, "validation at iteration %d: f1 %.4f (best %.4f at %d)\n", iter, f1, best, bestIter)
		}
	}
	return es, nil
}

// options returns the training options of the flags and tunes the
// garbage collector for training under --memory-limit.
func (tf *trainFlags) options() (train.Options, error) {
	op, err := tf.trainOptions()
	if err != nil {
		return op, err
	}
	memlimit.SetTrainingGC(op.MemoryLimit)
	return op, nil
}

// trainOptions returns the training options of the flags.
func (tf *trainFlags) trainOptions() (train.Options, error) {
	op := tf.op
	op.ColdStart = op.WarmEpochs == 0 // --warm-epochs 0: from zero
	if tf.c1 >= 0 {
		op.SumForm, op.C1, op.C2 = true, tf.c1, tf.c2
	}
	limit, err := memlimit.Parse(tf.memLimit)
	if err != nil {
		return op, usagef("--memory-limit: %v", err)
	}
	op.MemoryLimit = limit
	return op, nil
}

// validate checks the flags and arguments of train before any file is
// read or written: every value that makes no sense is a usage error that
// names its flag. The library checks the options themselves
// (train.Options.Validate: one form of the penalty, no absurd value); the
// flags whose 0 would silently mean the library's default (--max-iter)
// must be positive. --alpha and --beta-ratio at 0 are not given.
func (tf *trainFlags) validate(pos []string) error {
	if len(pos) != 1 {
		return usagef("want exactly one training file, got %d (see tagger train -h)", len(pos))
	}
	for _, c := range []struct {
		flag string
		x    float64
	}{{"c1", tf.c1}, {"c2", tf.c2}} {
		if c.x != -1 && flagcheck.NonNegative(c.flag, c.x) != nil {
			return usagef("--%s %v: want a finite number >= 0 (-1, the default: not used)", c.flag, c.x)
		}
	}
	if err := tf.modelFormat.check("--model-format"); err != nil {
		return err
	}
	if tf.modelFormat == formatCRFsuite && tf.format != "crfsuite" {
		what := "token columns expanded by a template"
		if k, _ := dataset.Format(tf.format).Kind(); k == features.KindPixels {
			what = "OCR pixels"
		}
		return usagef("--model-format crfsuite needs --format crfsuite: a CRFsuite model holds state features of named attributes and label transitions, and a --format %s model reads %s, which CRFsuite cannot", tf.format, what)
	}
	if (tf.c1 >= 0) != (tf.c2 >= 0) {
		return usagef("--c1 and --c2 go together")
	}
	if tf.resume && tf.ckpt == "" {
		return usagef("--resume needs --checkpoint FILE")
	}
	if err := flagcheck.First(
		tf.dataFlags.check(dataset.LabeledFormats),
		flagcheck.Parses("valid-folds", tf.validFold, dataset.ParseFolds),
		flagcheck.NonNegative("alpha", tf.op.Alpha),
		flagcheck.NonNegative("beta", tf.op.Beta),
		flagcheck.NonNegative("beta-ratio", tf.op.BetaRatio),
		flagcheck.NonNegative("epsilon", tf.op.Epsilon),
		flagcheck.NonNegative("rel-epsilon", tf.op.RelEpsilon),
		flagcheck.NonNegative("delta", tf.op.Delta),
		flagcheck.AtLeast("max-iter", tf.op.MaxIter, 1),
		flagcheck.AtLeast("warm-epochs", tf.op.WarmEpochs, 0),
		flagcheck.Threads(tf.op.Threads),
		flagcheck.AtLeast("min-freq", tf.minFreq, 0),
		flagcheck.Range("memory", tf.op.Memory, 1, maxLBFGSMemory),
		flagcheck.AtLeast("checkpoint-every", tf.ckptEvery, 1),
		flagcheck.AtLeast("patience", tf.patience, 1),
		flagcheck.AtLeast("valid-every", tf.validEach, 1),
	); err != nil {
		return usageError{err}
	}
	if tf.selectDev != "" || tf.selectFolds != 0 {
		if err := tf.checkSelect(); err != nil {
			return err
		}
	}
	if err := tf.checkPrior(); err != nil {
		return err
	}
	op, err := tf.trainOptions()
	if err != nil {
		return err
	}
	if err := op.Validate(); err != nil {
		return usageError{err}
	}
	return nil
}
