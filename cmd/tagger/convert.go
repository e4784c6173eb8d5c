package main

import (
	"fmt"
	"os"

	"github.com/sparsetag/sparsetag/cmd/tagger/internal/flagcheck"
	"github.com/sparsetag/sparsetag/peer"
	"github.com/sparsetag/sparsetag/tagging"
)

// runConvert writes a CRFsuite model (or one of ours, compacted) as a model
// file of this toolkit that tags exactly as the original
// (tagging.ConvertFile), or with --to crfsuite either kind as a CRFsuite
// model (peer.SaveCRFsuite).
func runConvert(e *env, args []string) error {
	var in, out string
	to := formatOurs
	fs := newFlagSet(e, "convert", "[flags]", "tagger convert --model conll.crfsuite --out conll.model; tagger convert --to crfsuite --model chunk.model --out chunk.crfsuite")
	fs.StringVar(&in, "model", "", "model `file` to convert: a CRFsuite model, or this toolkit's")
	fs.StringVar(&out, "out", "", "model `file` to write, in the --to format whatever its name (atomically; an existing file is replaced only by a complete, validated model)")
	fs.StringVar((*string)(&to), "to", string(formatOurs), "`format` of the --out file: ours (this toolkit's, compact) or crfsuite (CRFsuite's, for crfsuite tag and python-crfsuite; only models trained on attributes, --format crfsuite, can be written)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || in == "" || out == "" {
		return usagef("convert needs --model FILE and --out FILE, and no positional arguments")
	}
	if err := to.check("--to"); err != nil {
		return err
	}
	if err := usage(flagcheck.Outputs(flagcheck.Output{Flag: "--out", Path: out})); err != nil {
		return err
	}
	if to == formatCRFsuite {
		return convertToCRFsuite(e, in, out)
	}
	cv, err := tagging.ConvertFile(in, out)
	if err != nil {
		return err
	}
	m := cv.Model
	fmt.Fprintf(e.stdout, "converted %s model %s: %d labels, %d attributes, %d non-zero weights -> %s (%d bytes)\n",
		cv.From, in, len(m.Labels), m.Layout.NumUnary, m.NonZero(), out, cv.Size)
	return nil
}

// convertToCRFsuite writes the model file in (ours or CRFsuite's) as a
// CRFsuite model file out.
func convertToCRFsuite(e *env, in, out string) error {
	w, err := tagging.LoadWeights(in)
	if err != nil {
		return err
	}
	m, err := tagging.Convert(w)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if err := peer.SaveCRFsuite(out, m); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	st, err := os.Stat(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "converted %s model %s: %d labels, %d attributes, %d non-zero weights -> CRFsuite model %s (%d bytes)\n",
		w.Format(), in, len(m.Labels), m.Layout.NumUnary, m.NonZero(), out, st.Size())
	return nil
}
