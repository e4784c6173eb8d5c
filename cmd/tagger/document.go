package main

import (
	"fmt"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/clifile"
	"github.com/sparsetag/sparsetag/internal/ctxio"
	"github.com/sparsetag/sparsetag/rawtext"
	"github.com/sparsetag/sparsetag/rawtext/hftok"
	"github.com/sparsetag/sparsetag/tagging"
)

// tagDocuments tags the running text of input (--format document) with m.
func tagDocuments(e *env, input string, m tagging.Tagger, tf tagFlags, opt chain.DecodeOptions) error {
	var tok rawtext.Tokenizer = rawtext.PTB{}
	if tf.tokenizer != "ptb" {
		t, err := hftok.Load(tf.tokenizer)
		if err != nil {
			return fmt.Errorf("--tokenizer: %w", err)
		}
		tok = t
	}
	rc, err := clifile.Open(input, e.stdin)
	if err != nil {
		return err
	}
	defer rc.Close()
	r := rawtext.NewReader(clifile.Name(input), ctxio.Reader{Ctx: e.ctx, R: rc}, rawtext.Options{PerInput: tf.perFile})
	return tagging.TagDocuments(e.stdout, m, r, clifile.Name(input), tagging.DocumentOptions{
		Output: tf.output, Decode: opt, Marginals: tf.marginals, Threads: tf.threads, Tokenizer: tok,
	})
}
