package main

import (
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/clifile"
	"github.com/sparsetag/sparsetag/tagging"
)

func runDump(e *env, args []string) error {
	var modelPath string
	var top int
	fs := newFlagSet(e, "dump", "[flags]", "tagger dump --model chunk.model --top 10")
	fs.StringVar(&modelPath, "model", "tagger.model", "model `file`: this toolkit's, or CRFsuite, CRF++ or Wapiti")
	fs.IntVar(&top, "top", 0, "only the `N` largest state weights (by absolute value) per label; 0 lists all")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("dump takes no positional arguments")
	}
	if top < 0 {
		return usagef("--top must be >= 0")
	}
	am, err := clifile.LoadWeights(modelPath)
	if err != nil {
		return err
	}
	return tagging.Dump(e.stdout, am, top)
}
