// Command adapt trains a model on new data in the three ways an old model
// can be reused (docs/prior.md), through the Go API:
//
//	-mode prior    the old model as prior (train.Problem.Prior: w = w0 + v, the penalty on v);
//	-mode init     the old model as starting point only (train.Method.Init), on the same layout
//	               as prior (the old model's labels and attributes kept), so that it runs when
//	               the new data lacks some of the old labels, which tagger train --init refuses;
//	-mode scratch  the new data alone.
//
// The penalty is CRFsuite's sum form (-c1, -c2; default 1 and 1) and the
// stopping rule the library's default. From the repository root:
//
//	go run ./examples/adapt -old A.model -train B.txt -mode init -out Binit.model
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/train"
)

func main() {
	oldPath := flag.String("old", "", "the old model `file`")
	data := flag.String("train", "", "labeled CoNLL training `file` (the new data)")
	tmpl := flag.String("template", "embedded:conll2000/chunking.template", "CRF++ feature template `file`")
	mode := flag.String("mode", "prior", "prior, init or scratch")
	c1 := flag.Float64("c1", 1, "L1 penalty of the sum form")
	c2 := flag.Float64("c2", 1, "L2 penalty of the sum form")
	out := flag.String("out", "adapted.model", "model `file` to write")
	flag.Parse()
	if err := run(*oldPath, *data, *tmpl, *mode, *c1, *c2, *out); err != nil {
		fmt.Fprintln(os.Stderr, "adapt:", err)
		os.Exit(1)
	}
}

func run(oldPath, data, tmpl, mode string, c1, c2 float64, out string) error {
	exs, err := dataset.ReadFile(data, dataset.Options{Format: dataset.CoNLL, Labeled: true})
	if err != nil {
		return err
	}
	t, err := template(tmpl)
	if err != nil {
		return err
	}
	enc, err := dataset.NewEncoder(dataset.CoNLL, t)
	if err != nil {
		return err
	}
	m, c, err := dataset.NewTrainingModel(enc, exs, 1)
	if err != nil {
		return err
	}
	op := train.Options{Problem: train.Problem{SumForm: true, C1: c1, C2: c2}}
	if mode != "scratch" {
		old, err := chain.LoadFile(oldPath)
		if err != nil {
			return err
		}
		var w0 []float64
		if m, w0, err = m.WithPrior(old); err != nil {
			return err
		}
		switch mode {
		case "prior":
			op.Prior = w0
		case "init":
			op.Init = w0
		default:
			return fmt.Errorf("unknown mode %q (want prior, init or scratch)", mode)
		}
	}
	res, err := train.Train(context.Background(), m, c, op)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d iterations, stopped on %s, gap %.3g, %d non-zeros, %.1fs\n", mode, res.NumIterations(), res.StopReason, res.Gap, res.NonZero, res.Seconds)
	return m.SaveFile(out)
}

// template compiles a template file, or "embedded:NAME" from package
// corpora.
func template(path string) (*features.Template, error) {
	var r io.ReadCloser
	var err error
	if name, ok := strings.CutPrefix(path, "embedded:"); ok {
		r, err = corpora.OpenEmbedded(name)
	} else {
		r, err = os.Open(path)
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return features.Compile(string(src))
}
