package main

import "github.com/sparsetag/sparsetag/cmd/tagger/internal/paperbench"

// runDemo is the README's main command: with no files it trains a chain CRF
// on the embedded OCR words along a short screened regularization path,
// evaluates it and draws a few test words (paperbench.Demo).
func runDemo(e *env, args []string) error {
	var cfg paperbench.DemoConfig
	fs := newFlagSet(e, "demo", "[flags]", "tagger demo")
	parsed := cfg.Flags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("demo takes no files: it uses the embedded OCR data")
	}
	if err := parsed(); err != nil {
		return usageError{err}
	}
	return paperbench.Demo(e.ctx, cfg, e.stdout)
}
