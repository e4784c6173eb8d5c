package main

import (
	"errors"
	"fmt"
	"github.com/sparsetag/sparsetag/features"
	"io"
	"io/fs"
	"runtime"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/clifile"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/dataset/corpuscache"
	"github.com/sparsetag/sparsetag/sparse"
)

// readTraining reads and encodes the training file path, or with --cache
// reads the encoded corpus from the cache when it was written for the
// same data, template and options (else encodes and writes it). exs is
// nil when the corpus came from the cache; weights are the sequence
// weights of the data's @weight lines (nil: none), kept in the cache; from
// notes where it came from for the log line.
func (tf *trainFlags) readTraining(e *env, path string) (m *chain.Model, c *sparse.Corpus, exs []dataset.Example, weights []float64, from string, err error) {
	encode := func() error {
		exs, err = readExamples(path, tf.dataFlags, true, e.stdin)
		if err != nil {
			return err
		}
		weights = dataset.SequenceWeights(exs)
		enc, err := tf.newEncoder()
		if err != nil {
			return err
		}
		if m, c, err = dataset.NewTrainingModelThreads(tf.denseVectors(enc), exs, tf.minFreq, tf.encodeThreads()); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		m.Encoder = enc // the same dictionaries; data to tag is encoded sparse
		return nil
	}
	if tf.cache == "" {
		err = encode()
		return m, c, exs, weights, "", err
	}
	key, err := tf.cacheKey(e, path)
	if err != nil {
		return nil, nil, nil, nil, "", err
	}
	ent, err := corpuscache.Read(tf.cache, key)
	switch {
	case err == nil:
		m, c, err = ent.Model()
		return m, c, nil, ent.Weights, ", from the cache " + tf.cache, err
	case errors.Is(err, corpuscache.ErrStale), errors.Is(err, fs.ErrNotExist):
	default:
		return nil, nil, nil, nil, "", err
	}
	if err := encode(); err != nil {
		return nil, nil, nil, nil, "", err
	}
	ent = corpuscache.NewEntry(m, c, weights)
	if err := corpuscache.Write(tf.cache, key, ent); err != nil {
		return nil, nil, nil, nil, "", fmt.Errorf("--cache: %w", err)
	}
	return m, c, exs, weights, ", wrote the cache " + tf.cache, nil
}

// cacheKey hashes what shapes the encoded corpus: the training file's
// bytes, the template's, the format and the options of reading and
// encoding.
func (tf *trainFlags) cacheKey(e *env, path string) (corpuscache.Key, error) {
	if path == "-" {
		return corpuscache.Key{}, usagef("--cache needs a training file, not stdin")
	}
	data, err := readAllOf(path, e)
	if err != nil {
		return corpuscache.Key{}, err
	}
	var tmpl []byte
	if tf.template != "" {
		if tmpl, err = clifile.ReadAll(tf.template); err != nil {
			return corpuscache.Key{}, err
		}
	}
	return corpuscache.TrainKey(tf.format, tf.folds, tf.labelColumn, tf.minFreq, tmpl, data), nil
}

// readAllOf returns the bytes of path (a file or "embedded:NAME").
func readAllOf(path string, e *env) ([]byte, error) {
	r, err := clifile.Open(path, e.stdin)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// encodeThreads is the number of goroutines that encode the training
// corpus: --threads (0: every CPU).
func (tf *trainFlags) encodeThreads() int {
	if tf.op.Threads <= 0 {
		return runtime.NumCPU()
	}
	return tf.op.Threads
}

// denseVectors returns enc with dense blocks for its pure %v lines
// (features.Encoder.DenseVectors) when the corpus goes to train.Train (the
// certified solve, --partial, and --select's path; the warm start,
// screening, --prior and --screen paper read the blocks too), else enc:
// the online trainers and --select-folds (whose folds are encoded apart)
// read the sparse encoding.
func (tf *trainFlags) denseVectors(enc *features.Encoder) *features.Encoder {
	if tf.onlineParams != nil || tf.selectFolds > 0 {
		return enc
	}
	return enc.DenseVectors()
}
