package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/clifile"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/paperbench"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/progress"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/online"
)

// paramFlag collects the repeatable -p name=value (crfsuite learn's -p).
type paramFlag []string

func (p *paramFlag) String() string { return strings.Join(*p, " ") }

func (p *paramFlag) Set(v string) error {
	name, _, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", v)
	}
	*p = append(*p, v)
	return nil
}

// algorithmUsage is the help of --algorithm: every algorithm's parameters
// with CRFsuite's defaults.
func algorithmUsage() string {
	var b strings.Builder
	b.WriteString("training `algorithm`: lbfgs (the certified elastic net; without --algorithm, its flags above alone) or CRFsuite's l2sgd, ap, pa, arow, " +
		"each with CRFsuite's parameters set by -p name=value, its default feature set (observed attribute-label pairs and transitions) and its order of the sequences (--seed N for another); " +
		"see docs/crfsuite-algorithms.md. Parameters:\n  lbfgs: CRFsuite's defaults c1 = 0, c2 = 1, observed pairs, delta 1e-5 over period 10; -p " +
		strings.Join(lbfgsParams, ", "))
	for _, a := range online.Algorithms {
		fmt.Fprintf(&b, "\n  %s: %s", a, strings.Join(online.Help(a), "; "))
	}
	return b.String()
}

// onlineOnly are the flags an online algorithm takes besides the data
// flags; any other train flag set on the command line is refused with
// --algorithm l2sgd|ap|pa|arow (its meaning is the elastic net's).
var onlineFlags = map[string]bool{
	"algorithm": true, "p": true, "format": true, "folds": true, "template": true, "model": true, "min-freq": true,
	"quiet": true, "report": true, "cpuprofile": true, "memprofile": true, "threads": true,
	"valid": true, "valid-folds": true, "label-column": true, "seed": true, "crfsuite-order": true, "sequence-weights": true, "model-format": true,
	"value-columns": true, "embeddings": true,
}

// checkAlgorithm validates --algorithm and -p before any data is read
// (the flags set on the command line are set).
func (tf *trainFlags) checkAlgorithm(set map[string]bool) error {
	switch tf.algorithm {
	case "":
		if len(tf.params) > 0 || set["seed"] || set["crfsuite-order"] {
			return usagef("-p, --seed and --crfsuite-order are for --algorithm (without it, train takes the flags above)")
		}
		return nil
	case "lbfgs":
		if set["seed"] || set["crfsuite-order"] {
			return usagef("--seed and --crfsuite-order are for --algorithm l2sgd, ap, pa or arow")
		}
		return tf.checkLBFGS(set)
	}
	p, err := online.NewParams(online.Algorithm(tf.algorithm))
	if err != nil {
		return usagef("--algorithm %q: want lbfgs, l2sgd, ap, pa or arow", tf.algorithm)
	}
	if set["seed"] && set["crfsuite-order"] {
		return usagef("--seed and --crfsuite-order choose the order each: give one")
	}
	if !tf.crfsuiteOrder {
		return usagef("--crfsuite-order=false: CRFsuite's order is the default; --seed N chooses another")
	}
	for _, kv := range tf.params {
		name, v, _ := strings.Cut(kv, "=")
		if err := p.Set(name, v); err != nil {
			return usagef("-p %s: %v", kv, strings.TrimPrefix(err.Error(), "online: "))
		}
	}
	var bad []string
	for f := range set {
		if !onlineFlags[f] {
			bad = append(bad, "--"+f)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return usagef("%s: not a flag of --algorithm %s (its parameters are set with -p name=value: %s)",
			strings.Join(bad, ", "), tf.algorithm, strings.Join(online.Names(p.Algorithm), ", "))
	}
	tf.onlineParams = p
	return nil
}

// sequenceWeights returns the weights of the n training sequences: those
// of the @weight lines of a CRFsuite file (w, nil when it has none) or
// from --sequence-weights (not both), nil when neither gives any.
func (tf *trainFlags) sequenceWeights(w []float64, n int) ([]float64, error) {
	if tf.seqWeights == "" {
		return w, nil
	}
	if w != nil {
		return nil, usagef("--sequence-weights %s: the training file gives weights with @weight lines already", tf.seqWeights)
	}
	return dataset.ReadSequenceWeights(tf.seqWeights, n)
}

// trainOnlineStreamed reads and encodes the training file one sequence at
// a time (dataset.ReadTrainingModel: the memory of the corpus, not of its
// text), then trains with the online algorithm of the flags.
func trainOnlineStreamed(e *env, path string, tf *trainFlags, t0 time.Time) (*chain.Model, error) {
	// The heap is the corpus, the dictionaries and a few vectors over the
	// features, allocated once: collecting at 25% growth instead of 100%
	// keeps the peak near the live size (as CRFsuite's, whose memory is
	// its data) for a few percent of time.
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	enc, err := tf.newEncoder()
	if err != nil {
		return nil, err
	}
	opts, err := tf.readOptions(true)
	if err != nil {
		return nil, err
	}
	rd, closer, err := clifile.OpenReader(e.ctx, path, e.stdin, opts)
	if err != nil {
		return nil, err
	}
	// Reading allocates as the corpus and the dictionaries double (the
	// text is not kept): collecting at Go's default 100% there instead of
	// 25% makes a third of the collections, each of which scans the
	// dictionary (CoNLL-2000: 11 instead of 35, 0.1 s less CPU), and the
	// heap while reading stays below its size while training and saving
	// (peak RSS unchanged: docs/crfsuite-algorithms.md, round 5, reading).
	gc := debug.SetGCPercent(100)
	m, c, weights, err := dataset.ReadTrainingModel(rd, enc)
	debug.SetGCPercent(gc)
	closer.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if tf.seqWeights != "" {
		if weights != nil {
			return nil, usagef("--sequence-weights %s: the training file gives weights with @weight lines already", tf.seqWeights)
		}
		if weights, err = dataset.ReadSequenceWeights(tf.seqWeights, c.Len()); err != nil {
			return nil, err
		}
	}
	if !tf.quiet {
		fmt.Fprintf(e.stderr, "read %d sequences, %d positions, %d labels, %d attributes, %d features (%.1fs)\n",
			c.Len(), c.Positions(), len(m.Labels), m.Layout.NumUnary+m.Layout.NumPair, m.Layout.Dim(), time.Since(t0).Seconds())
	}
	runtime.GC() // the text read is garbage now: the heap starts training from the corpus
	return trainOnline(e, path, tf, m, c, weights)
}

// compactModelBytes returns the model file bytes of the compact model of
// the layout m with the sparse weights of res (chain.MarshalCompact: no
// weight vector of either layout is made).
func compactModelBytes(m *chain.Model, res *online.Result) ([]byte, error) {
	return chain.MarshalCompact(m.Labels, m.Layout.Transitions, m.Encoder, res.Idx, res.Val)
}

// trainOnline trains m on c with the online algorithm of the flags and
// saves it under the interrupt rule; it returns the model (on the streamed
// path, a layout whose weights are only in the file written).
func trainOnline(e *env, path string, tf *trainFlags, m *chain.Model, c *sparse.Corpus, weights []float64) (*chain.Model, error) {
	p := tf.onlineParams
	st, holdoutErr, err := onlineSettings(e, tf, m)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := holdoutErr(); err != nil {
			fmt.Fprintf(e.stderr, "warning: holdout evaluation: %v\n", err)
		}
	}()
	res, err := online.Train(e.intr.Work(e.ctx), online.Problem{Model: m, Corpus: c, Weights: weights}, p, st)
	if err != nil {
		return nil, err
	}
	c = nil
	runtime.GC() // the corpus is garbage: saving (which compacts the model) reuses its memory
	save, err := onlineSaver(tf, m, res)
	if err != nil {
		return nil, err
	}
	if !tf.quiet {
		how := "max_iterations reached"
		switch {
		case res.Interrupted:
			how = "interrupted"
		case res.Converged:
			how = "stopping criterion met"
		}
		fmt.Fprintf(e.stderr, "%s: %d epochs (%s), %d features, %d non-zero weights, %.1fs\n",
			p.Algorithm, res.Epochs, how, res.Features, res.NonZero, res.Seconds)
	}
	if err := saveModelWith(tf.log(e, res.Interrupted), save, tf.model, res.Interrupted, res.Epochs > 0); err != nil {
		return nil, err
	}
	if tf.report != "" {
		if err := paperbench.WriteJSON(tf.report, struct {
			Train  string         `json:"train"`
			Params []string       `json:"params"`
			Result *online.Result `json:"result"`
		}{path, tf.params, res}); err != nil {
			return nil, fmt.Errorf("the model is saved, but the report is not: %w", err)
		}
	}
	if res.Interrupted {
		return nil, e.intr.Err()
	}
	return m, nil
}

// onlineSettings returns the online trainer's settings from the flags:
// the order (--seed; 0: CRFsuite's), the interrupt, the progress lines, the heap profile after each
// epoch and the holdout evaluation of --valid, whose first error (the
// evaluation stops at it; training goes on) holdoutErr returns once
// training is over.
func onlineSettings(e *env, tf *trainFlags, m *chain.Model) (st online.Settings, holdoutErr func() error, err error) {
	st = online.Settings{Seed: tf.seed, Interrupt: e.intr.Done()}
	if !tf.quiet {
		fmt.Fprintf(e.stderr, "%s: %s\n", tf.onlineParams.Algorithm, strings.Join(tf.params, " "))
		st.Progress = func(ep online.Epoch) {
			extra := ""
			if ep.Eta != 0 {
				extra = fmt.Sprintf(" eta %.4g", ep.Eta)
			}
			if ep.Improve != 0 {
				extra += fmt.Sprintf(" improvement %.3g", ep.Improve)
			}
			fmt.Fprintf(e.stderr, "epoch %4d  loss %-14.8g norm %-10.5g updates %d%s  %.1fs\n", ep.Epoch, ep.Loss, ep.Norm, ep.Updates, extra, ep.Seconds)
		}
	}
	if tf.memprof != "" { // the heap at its largest after an epoch
		heap, show := progress.HeapProfiler(tf.memprof), st.Progress
		st.Progress = func(ep online.Epoch) {
			if show != nil {
				show(ep)
			}
			heap()
		}
	}
	var herr error
	holdoutErr = func() error { return herr }
	if tf.valid == "" {
		return st, holdoutErr, nil
	}
	score, err := fileScorer(e, tf, m, tf.valid)
	if err != nil {
		return st, holdoutErr, err
	}
	st.Holdout = func(epoch int, w []float64) {
		if herr != nil {
			return
		}
		var f1 float64
		if f1, herr = score(w); herr == nil && !tf.quiet {
			fmt.Fprintf(e.stderr, "holdout at epoch %d: %.4f\n", epoch, f1)
		}
	}
	return st, holdoutErr, nil
}

// onlineSaver returns how to save the trained model: m in the flags'
// format, or for a layout (streamed reading: m.W is nil) the compact
// model's file bytes from the sparse weights of res, without a weight
// vector of the layout's size or of the compact one, validated by the
// tag-only reader.
func onlineSaver(tf *trainFlags, m *chain.Model, res *online.Result) (func(dest string) error, error) {
	if m.W != nil {
		return func(dest string) error { return tf.modelFormat.save(dest, m) }, nil
	}
	data, err := compactModelBytes(m, res)
	if err != nil {
		return nil, err
	}
	return func(dest string) error { return chain.SaveFileBytes(dest, data) }, nil
}
