package beamtag

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/dataset/corpuscache"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
	"github.com/sparsetag/sparsetag/train/selection"
)

func init() {
	register.DoFn6x1[context.Context, GridPoint, []byte, []byte, []byte, func(GridResult), error](&trainFn{})
	register.DoFn6x1[context.Context, int, func(*GridResult) bool, []byte, []byte, func(string), error](&bestFn{})
	register.Function1x1[GridResult, string](formatResult)
	register.Emitter1[GridResult]()
	register.Iter1[GridResult]()
}

// GridConfig configures Grid.
type GridConfig struct {
	Train    string    // labeled training file (any Beam filesystem)
	Dev      string    // labeled dev file; "" with Folds >= 2
	Folds    int       // K-fold cross-validation of Train (sequence i in fold i mod K) instead of Dev
	Format   string    // conll, crfsuite or conllu
	Template string    // CRF++ template text for column formats ("": the default template)
	C1s, C2s []float64 // the grid: every (c1, c2) pair
	MaxIter  int       // OWL-QN iterations per training (0: the library's default)
	Model    string    // where to write the best model
	Report   string    // where to write one line per element (and the choice)
	// Cache, when not "", is a corpus cache that tagger train --cache wrote
	// for Train (the same file, --format and template, the default
	// --label-column and --min-freq): the elements that train on the whole
	// of Train (every element with Dev, the refit with Folds) read the
	// encoded corpus from it instead of parsing and encoding the text. A
	// cache written for other data or options, or corrupt, fails the
	// element (it is never rebuilt here, nor trusted blindly); a fold's
	// part is encoded from the text, as tagger train --select-folds does.
	Cache string
}

// GridPoint is one element of the grid: a penalty pair and a fold (-1: the
// whole training file, scored on the dev file).
type GridPoint struct {
	C1, C2 float64
	Fold   int
}

// GridResult is what one element's training produced.
type GridResult struct {
	GridPoint
	Score      float64 // chunk F1 or token accuracy on the held-out data
	NonZero    int
	Iterations int
	Seconds    float64
	Model      []byte // the model file, dev mode only (folds refit at the end)
}

// Grid adds the training-grid pipeline to s: every (c1, c2, fold) element
// trains independently; the best mean score wins and its model is written
// to cfg.Model (with folds, refit on the whole training file). It returns
// the per-element results.
func Grid(s beam.Scope, cfg GridConfig) beam.PCollection {
	s = s.Scope("sparsetag.Grid")
	if cfg.Format == "" {
		cfg.Format = string(dataset.CoNLL)
	}
	var pts []GridPoint
	folds := []int{-1}
	if cfg.Folds >= 2 {
		folds = folds[:0]
		for f := range cfg.Folds {
			folds = append(folds, f)
		}
	}
	for _, c1 := range cfg.C1s {
		for _, c2 := range cfg.C2s {
			for _, f := range folds {
				pts = append(pts, GridPoint{C1: c1, C2: c2, Fold: f})
			}
		}
	}
	trainSet := readWhole(s, cfg.Train)
	dev := trainSet // unused with folds, but a side input must exist
	if cfg.Folds < 2 {
		dev = readWhole(s, cfg.Dev)
	}
	cache := trainSet // unused without a cache, but a side input must exist
	if cfg.Cache != "" {
		cache = readWhole(s, cfg.Cache)
	}
	tf := &trainFn{Format: cfg.Format, Template: cfg.Template, Folds: cfg.Folds, MaxIter: cfg.MaxIter, UseCache: cfg.Cache != ""}
	results := beam.ParDo(s, tf, beam.Reshuffle(s, beam.CreateList(s, pts)), beam.SideInput{Input: trainSet}, beam.SideInput{Input: dev},
		beam.SideInput{Input: cache})
	grouped := beam.GroupByKey(s, beam.AddFixedKey(s, results))
	choice := beam.ParDo(s, &bestFn{trainFn: *tf, Model: cfg.Model}, grouped, beam.SideInput{Input: trainSet}, beam.SideInput{Input: cache})
	lines := beam.Flatten(s, beam.ParDo(s, formatResult, results), choice)
	textio.Write(s, cfg.Report, lines)
	return results
}

func readWhole(s beam.Scope, glob string) beam.PCollection {
	return beam.ParDo(s, &readFileFn{}, fileio.ReadMatches(s, fileio.MatchFiles(s, glob)))
}

func formatResult(r GridResult) string {
	return fmt.Sprintf("c1 %g\tc2 %g\tfold %d\tscore %.4f\tnonzero %d\titerations %d\tseconds %.2f",
		r.C1, r.C2, r.Fold, r.Score, r.NonZero, r.Iterations, r.Seconds)
}

// examples caches parsed training files by digest, per worker.
var examples struct {
	sync.Mutex
	m map[[32]byte][]dataset.Example
}

func cachedExamples(data []byte, format string) ([]dataset.Example, error) {
	key := sha256.Sum256(append([]byte(format+"\x00"), data...))
	examples.Lock()
	defer examples.Unlock()
	if exs, ok := examples.m[key]; ok {
		return exs, nil
	}
	exs, err := dataset.Read("training data", bytes.NewReader(data), dataset.Options{Format: dataset.Format(format), Labeled: true})
	if err != nil {
		return nil, err
	}
	if examples.m == nil {
		examples.m = make(map[[32]byte][]dataset.Example)
	}
	examples.m[key] = exs
	return exs, nil
}

// trainFn trains and scores one grid element.
type trainFn struct {
	Format, Template string
	Folds, MaxIter   int
	UseCache         bool // the side input cache is GridConfig.Cache's bytes
}

func (fn *trainFn) ProcessElement(ctx context.Context, pt GridPoint, trainSet, dev, cache []byte, emit func(GridResult)) error {
	r, m, held, err := fn.element(ctx, pt, trainSet, dev, cache)
	if err != nil {
		return err
	}
	ev, err := dataset.EvaluateAll(chain.NewTagger(m), held, 1)
	if err != nil {
		return err
	}
	r.Score = ev.F1()
	if pt.Fold < 0 {
		var b bytes.Buffer
		if _, err := m.WriteTo(&b); err != nil {
			return err
		}
		r.Model = b.Bytes()
	}
	emit(r)
	return nil
}

// element trains the model of pt and returns it with its held-out data:
// the fold's part of the training file, or the whole of it (fitAll) and
// the dev file.
func (fn *trainFn) element(ctx context.Context, pt GridPoint, trainSet, dev, cache []byte) (GridResult, *chain.Model, []dataset.Example, error) {
	if pt.Fold < 0 {
		held, err := cachedExamples(dev, fn.Format)
		if err != nil {
			return GridResult{}, nil, nil, fmt.Errorf("dev: %w", err)
		}
		r, m, err := fn.fitAll(ctx, trainSet, cache, pt)
		return r, m, held, err
	}
	all, err := cachedExamples(trainSet, fn.Format)
	if err != nil {
		return GridResult{}, nil, nil, err
	}
	tr, held := selection.Fold(all, fn.Folds, pt.Fold)
	r, m, err := fn.fit(ctx, tr, pt)
	return r, m, held, err
}

// fit trains a model on exs at the penalties of pt (one thread: the
// runner's parallelism is the elements).
func (fn *trainFn) fit(ctx context.Context, exs []dataset.Example, pt GridPoint) (GridResult, *chain.Model, error) {
	t0 := time.Now()
	enc, err := newEncoder(fn.Format, fn.Template)
	if err != nil {
		return GridResult{}, nil, err
	}
	m, c, err := dataset.NewTrainingModel(enc, exs, 1)
	if err != nil {
		return GridResult{}, nil, err
	}
	return fn.train(ctx, m, c, dataset.SequenceWeights(exs), pt, t0)
}

// train trains the model layout m on its corpus c (sequence weights w,
// nil: none) at the penalties of pt, with one thread; t0 is when the
// element started.
func (fn *trainFn) train(ctx context.Context, m *chain.Model, c *sparse.Corpus, w []float64, pt GridPoint, t0 time.Time) (GridResult, *chain.Model, error) {
	op := train.Options{Problem: train.Problem{SumForm: true, C1: pt.C1, C2: pt.C2, Weights: w}, Stopping: train.Stopping{MaxIter: fn.MaxIter},
		Resources: train.Resources{Threads: 1}}
	res, err := train.Train(ctx, m, c, op)
	if err != nil {
		return GridResult{}, nil, fmt.Errorf("c1 %g, c2 %g, fold %d: %w", pt.C1, pt.C2, pt.Fold, err)
	}
	return GridResult{GridPoint: pt, NonZero: res.NonZero, Iterations: res.NumIterations(),
		Seconds: time.Since(t0).Seconds()}, m, nil
}

// fitAll trains on the whole training file at pt: from the corpus cache
// when there is one, else from the text.
func (fn *trainFn) fitAll(ctx context.Context, trainSet, cache []byte, pt GridPoint) (GridResult, *chain.Model, error) {
	if !fn.UseCache {
		all, err := cachedExamples(trainSet, fn.Format)
		if err != nil {
			return GridResult{}, nil, err
		}
		return fn.fit(ctx, all, pt)
	}
	t0 := time.Now()
	key := corpuscache.TrainKey(fn.Format, "", -1, 1, []byte(fn.Template), trainSet)
	ent, err := corpuscache.Decode("corpus cache", cache, key)
	if err != nil {
		return GridResult{}, nil, fmt.Errorf("%w (write it with tagger train --cache for the same training file, --format and template)", err)
	}
	m, c, err := ent.Model()
	if err != nil {
		return GridResult{}, nil, fmt.Errorf("corpus cache: %w", err)
	}
	return fn.train(ctx, m, c, ent.Weights, pt, t0)
}

// newEncoder is dataset.NewEncoder with the template given as text (the
// workers of a cluster need not see the launcher's files).
func newEncoder(format, template string) (*features.Encoder, error) {
	f := dataset.Format(format)
	if template == "" || (f != dataset.CoNLL && f != dataset.CoNLLU) {
		return dataset.NewEncoder(f, nil)
	}
	t, err := features.Compile(template)
	if err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	return dataset.NewEncoder(f, t)
}

// bestFn chooses the penalty pair with the best mean score and writes its
// model (with folds, refit on all the training data).
type bestFn struct {
	trainFn
	Model string
}

func (fn *bestFn) ProcessElement(ctx context.Context, _ int, iter func(*GridResult) bool, trainSet, cache []byte, emit func(string)) error {
	type agg struct {
		sum  float64
		n    int
		best *GridResult
	}
	by := map[GridPoint]*agg{}
	var keys []GridPoint
	var r GridResult
	for iter(&r) {
		k := GridPoint{C1: r.C1, C2: r.C2}
		a := by[k]
		if a == nil {
			a = &agg{}
			by[k] = a
			keys = append(keys, k)
		}
		a.sum, a.n = a.sum+r.Score, a.n+1
		if r.Fold < 0 {
			rr := r
			a.best = &rr
		}
	}
	if len(keys) == 0 {
		return fmt.Errorf("grid: no results")
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].C1 != keys[j].C1 {
			return keys[i].C1 < keys[j].C1
		}
		return keys[i].C2 < keys[j].C2
	})
	best := keys[0]
	for _, k := range keys[1:] {
		if by[k].sum/float64(by[k].n) > by[best].sum/float64(by[best].n) {
			best = k
		}
	}
	model, err := fn.bestModel(ctx, by[best].best, best, trainSet, cache)
	if err != nil {
		return err
	}
	if err := writeFile(ctx, fn.Model, model); err != nil {
		return err
	}
	emit(fmt.Sprintf("best: c1 %g\tc2 %g\tmean score %.4f\tmodel %s", best.C1, best.C2, by[best].sum/float64(by[best].n), fn.Model))
	return nil
}

// bestModel returns the model file of the chosen pair: the dev-mode
// element's, or a refit on all of train.
func (fn *bestFn) bestModel(ctx context.Context, r *GridResult, pt GridPoint, trainSet, cache []byte) ([]byte, error) {
	if r != nil {
		return r.Model, nil
	}
	pt.Fold = -1
	_, m, err := fn.fitAll(ctx, trainSet, cache, pt)
	if err != nil {
		return nil, fmt.Errorf("refit: %w", err)
	}
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeFile writes data to path on its Beam filesystem (see createFile).
func writeFile(ctx context.Context, path string, data []byte) error {
	f, err := createFile(ctx, path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.abort()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.commit(ctx)
}
