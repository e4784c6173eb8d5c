package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
)

func runTag(e *env, args []string) error {
	var df dataFlags
	var modelPath, output string
	fs := newFlagSet(e, "tag", "[flags] FILE",
		"tagger tag --format conll --model chunk.model test.txt")
	fs.StringVar(&df.format, "format", "conll", "input `format`: conll, crfsuite, conllu, ocr or text (raw text, one sentence per line)")
	fs.StringVar(&df.folds, "folds", "", "OCR folds to use, e.g. `0` (default all)")
	fs.StringVar(&modelPath, "model", "tagger.model", "model `file`")
	fs.StringVar(&output, "output", "conll", "output `format`: conll (input columns plus the predicted label) or slash (word/TAG)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one input file (or - for stdin), got %d", len(pos))
	}
	if output != "conll" && output != "slash" {
		return usagef("unknown --output %q (want conll or slash)", output)
	}
	m, err := chain.LoadFile(modelPath)
	if err != nil {
		return err
	}
	// Input may be labeled or not: labels, if present, are read as a column
	// for column formats only when the model is used for evaluation; here
	// every column is input.
	exs, err := readExamples(pos[0], df, df.format == "ocr", e.stdin)
	if err != nil {
		return err
	}
	pred, err := tagAll(chain.NewTagger(m), exs)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(e.stdout)
	for i := range exs {
		ex := &exs[i]
		for t := 0; t < ex.len(); t++ {
			switch {
			case output == "slash":
				if t > 0 {
					w.WriteByte(' ')
				}
				fmt.Fprintf(w, "%s/%s", ex.text[t], pred[i][t])
			case ex.tokens != nil:
				fmt.Fprintf(w, "%s %s\n", strings.Join(ex.tokens[t], " "), pred[i][t])
			default:
				fmt.Fprintf(w, "%s %s\n", ex.text[t], pred[i][t])
			}
		}
		w.WriteByte('\n')
	}
	return w.Flush()
}
