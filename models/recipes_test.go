package models_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/eval"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/models"
	"github.com/sparsetag/sparsetag/train"
)

var update = flag.Bool("update", false, "retrain the embedded models by their recipes and rewrite the files (TestModelsCurrent)")

// options returns the training options of the recipes, L1 penalty c1: the
// sum-form elastic net (tagger train's --c1 c1 --c2 1), the default
// certified stopping rule plus CRFsuite's --delta 1e-5, and CRFsuite's
// feature set (observed attribute x label pairs, --observed-pairs), which
// trains in a fraction of the memory of every pair and keeps the files
// small. Training is deterministic whatever the number of threads, so the
// files are reproducible bit for bit.
func options(c1 float64) train.Options {
	return train.Options{Problem: train.Problem{SumForm: true, C1: c1, C2: 1, ObservedPairs: true}, Stopping: train.Stopping{Delta: 1e-5, MaxIter: 500}}
}

// A recipe trains one embedded model.
type recipe struct {
	file     string                                    // under models/, gzip-compressed
	template func() (string, error)                    // its template source
	example  func(s corpora.Sequence) corpora.Sequence // a CoNLL-2000 sentence as the model reads it
	c1       float64                                   // the L1 penalty
}

// The penalties trade accuracy for size (CoNLL-2000 test set, gzipped
// model files; chunk F1 from the POS tags of the c1 = 1 tagger, 92.35 for
// the chunker at c1 = 1 from those of the c1 = 0.3 tagger shipped):
//
//	POS    c1 = 1: 97.34% (280 KB)   0.3: 97.61% (917 KB)   0.1: 97.65% (1.6 MB)
//	chunk  c1 = 1: F1 92.18 (250 KB) 0.3: F1 92.24 (990 KB)
var recipes = []recipe{
	{"en-pos.model.gz", embedded("en-pos.template"), posSentence, 0.3},
	{"en-chunk.model.gz", embedded("en-chunk.template"), func(s corpora.Sequence) corpora.Sequence { return s }, 1},
}

// posSentence makes a CoNLL-2000 sentence (word, POS; chunk tag) one for
// the POS tagger: the word; its POS tag.
func posSentence(s corpora.Sequence) corpora.Sequence {
	words := make([][]string, len(s.Tokens))
	tags := make([]string, len(s.Tokens))
	for t, cols := range s.Tokens {
		words[t], tags[t] = cols[:1:1], cols[1]
	}
	return corpora.Sequence{Tokens: words, Labels: tags, Line: s.Line}
}

func embedded(name string) func() (string, error) {
	return func() (string, error) { return readAll(models.Open(name)) }
}

func corpus(name string) func() (string, error) {
	return func() (string, error) { return readAll(corpora.OpenEmbedded(name)) }
}

func readAll(rc io.ReadCloser, err error) (string, error) {
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	return string(b), err
}

// examples returns a CoNLL-2000 split as r's model reads it.
func (r recipe) examples(split string) ([]dataset.Example, error) {
	seqs, err := corpora.EmbeddedCoNLL2000(split)
	if err != nil {
		return nil, err
	}
	exs := make([]dataset.Example, len(seqs))
	for i, s := range seqs {
		exs[i] = dataset.FromSequence("embedded:conll2000/"+split+".txt.gz", r.example(s))
	}
	return exs, nil
}

// train trains r's model.
func (r recipe) train(ctx context.Context) (*chain.Model, *train.Result, error) {
	src, err := r.template()
	if err != nil {
		return nil, nil, err
	}
	tmpl, err := features.Compile(src)
	if err != nil {
		return nil, nil, err
	}
	exs, err := r.examples("train")
	if err != nil {
		return nil, nil, err
	}
	m, c, err := dataset.NewTrainingModel(features.NewTemplateEncoder(tmpl), exs, 1)
	if err != nil {
		return nil, nil, err
	}
	res, err := train.Train(ctx, m, c, options(r.c1))
	if err != nil {
		return nil, nil, fmt.Errorf("training %s: %w", r.file, err)
	}
	return m, res, nil
}

// TestModelsCurrent retrains every embedded model by its recipe and checks
// that the committed file holds exactly that model, so that the files are
// reproducible from the corpora and the code. With -update it rewrites
// them instead: after a change to a recipe or to training, run
//
//	go test ./models -run TestModelsCurrent -update
func TestModelsCurrent(t *testing.T) {
	if testing.Short() && !*update {
		t.Skip("retrains the embedded models (about a minute on 2 cores)")
	}
	for _, r := range recipes {
		t.Run(r.file, func(t *testing.T) {
			m, res, err := r.train(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d labels, %d non-zero weights, %s after %d iterations, %.1fs", r.file, len(m.Labels), res.NonZero, res.StopReason, res.NumIterations(), res.Seconds)
			want, err := m.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				b, err := m.MarshalGzip()
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(r.file, b, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s (%d bytes; %d uncompressed)", r.file, len(b), len(want))
				return
			}
			got, err := readAll(models.Open(r.file[:len(r.file)-len(".gz")]))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal([]byte(got), want) {
				t.Fatalf("%s is not the model its recipe trains (%d bytes, retrained %d): run go test ./models -run TestModelsCurrent -update", r.file, len(got), len(want))
			}
		})
	}
}

// The accuracy of the embedded models on the CoNLL-2000 test split (2,012
// sentences), as the README's "Command line" section reports it:
// TestAccuracy recomputes it.
const (
	wantPOSAccuracy = "0.9761" // POS tags, from the words alone
	wantChunkF1     = "0.9235" // chunks (conlleval), from the words and the predicted POS tags
	wantChunkGold   = "0.9348" // chunks from the words and the gold POS tags
)

// TestAccuracy tags the CoNLL-2000 test split with the embedded models, the
// chunker reading the POS tags the POS model predicts (the pipeline of
// tagger tag --model embedded:models/en-pos.model --model
// embedded:models/en-chunk.model), and checks the figures above.
func TestAccuracy(t *testing.T) {
	load := func(name string) *chain.Tagger {
		t.Helper()
		b, err := readAll(models.Open(name))
		if err != nil {
			t.Fatal(err)
		}
		tg, err := chain.ReadTagger(bytes.NewReader([]byte(b)))
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	pos, chunk := load("en-pos.model"), load("en-chunk.model")
	seqs, err := corpora.EmbeddedCoNLL2000("test")
	if err != nil {
		t.Fatal(err)
	}
	posEv, chunkEv, goldEv := eval.NewEvaluation(), eval.NewEvaluation(), eval.NewEvaluation()
	for _, s := range seqs {
		ps := posSentence(s)
		path, err := pos.Tag(nil, features.Columns(ps.Tokens))
		if err != nil {
			t.Fatal(err)
		}
		tags := pos.AppendLabels(nil, path)
		if err := posEv.Add(ps.Labels, tags); err != nil {
			t.Fatal(err)
		}
		predicted := make([][]string, len(s.Tokens))
		for i, cols := range s.Tokens {
			predicted[i] = []string{cols[0], tags[i]}
		}
		for _, c := range []struct {
			ev   *eval.Evaluation
			cols [][]string
		}{{chunkEv, predicted}, {goldEv, s.Tokens}} {
			path, err := chunk.Tag(nil, features.Columns(c.cols))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.ev.Add(s.Labels, chunk.AppendLabels(nil, path)); err != nil {
				t.Fatal(err)
			}
		}
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(string(readme)), " ")
	for _, f := range []string{wantPOSAccuracy[2:4] + "." + wantPOSAccuracy[4:] + "%", "chunk F1 " + wantChunkF1[2:4] + "." + wantChunkF1[4:],
		wantChunkGold[2:4] + "." + wantChunkGold[4:] + " from the gold tags"} {
		if !strings.Contains(flat, f) {
			t.Errorf("README.md does not give the figure %q", f)
		}
	}
	for _, c := range []struct {
		what, got, want string
	}{
		{"POS accuracy", fmt.Sprintf("%.4f", posEv.Accuracy()), wantPOSAccuracy},
		{"chunk F1 with predicted POS", fmt.Sprintf("%.4f", chunkEv.F1()), wantChunkF1},
		{"chunk F1 with gold POS", fmt.Sprintf("%.4f", goldEv.F1()), wantChunkGold},
	} {
		t.Logf("%s: %s", c.what, c.got)
		if c.got != c.want {
			t.Errorf("%s: %s, want %s (update the README's figures with the constants)", c.what, c.got, c.want)
		}
	}
}

// TestChunkTemplate: en-chunk.template is the classic chunking template of
// package corpora under a header that names its columns, so that the two
// do not drift apart.
func TestChunkTemplate(t *testing.T) {
	ours, err := embedded("en-chunk.template")()
	if err != nil {
		t.Fatal(err)
	}
	classic, err := corpus("conll2000/chunking.template")()
	if err != nil {
		t.Fatal(err)
	}
	header, ok := strings.CutSuffix(ours, classic)
	if !ok {
		t.Fatal("en-chunk.template does not end with corpora's conll2000/chunking.template")
	}
	for _, line := range strings.Split(strings.TrimSpace(header), "\n") {
		if !strings.HasPrefix(line, "#") {
			t.Errorf("en-chunk.template's header has the rule %q: only comments go there", line)
		}
	}
	if got := features.MustCompile(ours).ColumnNames(); strings.Join(got, ",") != "word,POS" {
		t.Errorf("column names %q, want word, POS", got)
	}
}
