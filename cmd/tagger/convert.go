package main

import (
	"fmt"

	"github.com/sparsetag/sparsetag/cmd/tagger/internal/flagcheck"
	"github.com/sparsetag/sparsetag/tagging"
)

// runConvert writes a CRFsuite model (or one of ours, compacted) as a model
// file of this toolkit that tags exactly as the original
// (tagging.ConvertFile).
func runConvert(e *env, args []string) error {
	var in, out string
	fs := newFlagSet(e, "convert", "[flags]", "tagger convert --model conll.crfsuite --out conll.model")
	fs.StringVar(&in, "model", "", "model `file` to convert: a CRFsuite model, or this toolkit's (rewritten in the current, compact format)")
	fs.StringVar(&out, "out", "", "model `file` to write (atomically; an existing file is replaced only by a complete, validated model)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || in == "" || out == "" {
		return usagef("convert needs --model FILE and --out FILE, and no positional arguments")
	}
	if err := usage(flagcheck.Outputs(flagcheck.Output{Flag: "--out", Path: out})); err != nil {
		return err
	}
	cv, err := tagging.ConvertFile(in, out)
	if err != nil {
		return err
	}
	m := cv.Model
	fmt.Fprintf(e.stdout, "converted %s model %s: %d labels, %d attributes, %d non-zero weights -> %s (%d bytes)\n",
		cv.From, in, len(m.Labels), m.NumUnary, m.NonZero(), out, cv.Size)
	return nil
}
