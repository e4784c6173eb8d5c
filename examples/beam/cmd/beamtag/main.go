// Command beamtag runs the sparsetag Beam pipelines: batch tagging of
// sharded corpora (--mode tag) and training grids (--mode grid), on the
// local prism runner by default, or on Flink, Spark or Dataflow with
// Beam's own flags (--runner, --endpoint, --project, --region, ...).
//
//	beamtag --mode tag --model chunk.model --input 'corpus/*.txt' --output tagged
//	beamtag --mode grid --train train.txt --dev dev.txt --template chunking.template \
//	    --c1s 0.1,0.3,1 --c2s 1 --model best.model --report grid.txt
//	beamtag --mode grid --train train.txt --dev dev.txt --template chunking.template \
//	    --cache train.cache --c1s 0.1,0.3,1 --c2s 1 --model best.model --report grid.txt
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	beamtag "github.com/sparsetag/sparsetag/examples/beam"
)

var (
	mode = flag.String("mode", "tag", "pipeline: tag (batch tagging) or grid (training grid)")

	input      = flag.String("input", "", "tag: glob of input files (local or any Beam filesystem, e.g. gs://bucket/corpus/*.txt)")
	model      = flag.String("model", "", "tag: the model file (ours, CRFsuite, CRF++ or Wapiti); grid: where to write the best model")
	output     = flag.String("output", "", "tag: output directory (one file per input, plus dead-letter.txt and labels.tsv)")
	format     = flag.String("format", "", "input format: conll, crfsuite, conllu or text (tag: default conll, or the peer model's)")
	outFormat  = flag.String("out_format", "conll", "tag: output format: conll, slash or json (as tagger tag --output)")
	marginals  = flag.Bool("marginals", false, "tag: write marginals and sequence probabilities (json)")
	nbest      = flag.Int("nbest", 1, "tag: n-best lists (json)")
	deadLetter = flag.String("dead_letter", "", "tag: file of the bad records (default OUTPUT/dead-letter.txt)")

	train    = flag.String("train", "", "grid: labeled training file")
	dev      = flag.String("dev", "", "grid: labeled dev file (or --folds)")
	folds    = flag.Int("folds", 0, "grid: K-fold cross-validation of --train instead of --dev")
	template = flag.String("template", "", "grid: CRF++ template file for column formats (read here, shipped to the workers)")
	c1s      = flag.String("c1s", "0.1,0.3,1,3", "grid: comma-separated c1 values")
	c2s      = flag.String("c2s", "1", "grid: comma-separated c2 values")
	maxIter  = flag.Int("max_iter", 0, "grid: OWL-QN iterations per training (0: the library default)")
	report   = flag.String("report", "grid.txt", "grid: report file (one line per element and the choice)")
	cache    = flag.String("cache", "", "grid: corpus cache that tagger train --cache wrote for --train (the same --format and template): the trainings on the whole of --train read it")

	cpuprofile = flag.String("cpuprofile", "", "write a CPU profile of this process to `file` (local runner: the workers run in it)")
)

func main() {
	flag.Parse()
	beam.Init()
	p, s := beam.NewPipelineWithRoot()
	if err := build(s); err != nil {
		fmt.Fprintln(os.Stderr, "beamtag:", err)
		os.Exit(2)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatalf("beamtag: %v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatalf("beamtag: %v", err)
		}
		defer pprof.StopCPUProfile()
	}
	if err := beamx.Run(context.Background(), p); err != nil {
		log.Fatalf("beamtag: %v", err)
	}
}

func build(s beam.Scope) error {
	switch *mode {
	case "tag":
		if *input == "" || *model == "" || *output == "" {
			return fmt.Errorf("--mode tag needs --input, --model and --output")
		}
		beamtag.Tag(s, beamtag.TagConfig{Input: *input, Model: *model, Output: *output, Format: *format,
			OutFormat: *outFormat, Marginals: *marginals, NBest: *nbest, DeadLetter: *deadLetter})
		return nil
	case "grid":
		return buildGrid(s)
	}
	return fmt.Errorf("--mode %q: want tag or grid", *mode)
}

func buildGrid(s beam.Scope) error {
	if *train == "" || *model == "" || (*dev == "") == (*folds < 2) {
		return fmt.Errorf("--mode grid needs --train, --model and either --dev or --folds K (K >= 2)")
	}
	cfg := beamtag.GridConfig{Train: *train, Dev: *dev, Folds: *folds, Format: *format, MaxIter: *maxIter, Model: *model, Report: *report,
		Cache: *cache}
	if cfg.Format == "" {
		cfg.Format = "conll"
	}
	if *template != "" {
		b, err := os.ReadFile(*template)
		if err != nil {
			return err
		}
		cfg.Template = string(b)
	}
	var err error
	if cfg.C1s, err = floats("--c1s", *c1s); err != nil {
		return err
	}
	if cfg.C2s, err = floats("--c2s", *c2s); err != nil {
		return err
	}
	beamtag.Grid(s, cfg)
	return nil
}

func floats(name, s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%s: %q is not a non-negative number", name, f)
		}
		out = append(out, v)
	}
	return out, nil
}
