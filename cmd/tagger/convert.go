package main

import (
	"fmt"
	"os"

	"github.com/sparsetag/sparsetag/tagging"
)

// runConvert writes a CRFsuite model (or one of ours, compacted) as a model
// file of this toolkit that tags exactly as the original.
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
	if err := checkOutputs(output{flag: "--out", path: out}); err != nil {
		return err
	}
	am, err := tagging.Load(in)
	if err != nil {
		return err
	}
	m, err := tagging.Convert(am)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if err := m.SaveFile(out); err != nil {
		return err
	}
	st, err := os.Stat(out)
	if err != nil {
		return err
	}
	from := "this toolkit's"
	if am.Peer != nil {
		from = am.Peer.Format().String()
	}
	fmt.Fprintf(e.stdout, "converted %s model %s: %d labels, %d attributes, %d non-zero weights -> %s (%d bytes)\n",
		from, in, len(m.Labels), m.NumUnary, m.NonZero(), out, st.Size())
	return nil
}
