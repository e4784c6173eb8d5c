// Command tagger trains, applies and inspects sparse linear-chain CRF
// taggers: elastic-net CRFs trained with OWL-QN and safe screening.
//
// Usage:
//
//	tagger <command> [flags] [files]
//
// Commands:
//
//	demo    train a chain CRF on the embedded OCR data and report accuracy
//	train   train a model from a labeled corpus
//	tag     label a corpus with a model
//	eval    tag a labeled corpus and report accuracy and chunk F1
//	dump    list the non-zero weights of a model as TSV
//	explain show the features and transitions behind each predicted label
//	convert write a CRFsuite model (or an old model file) as a model of this toolkit
//	path    solve a regularization path over beta with safe screening
//	bench   timing suites: tagger bench paper (the paper's table), tagger bench screen, tagger bench train (working-set vs full solver)
//	version print the module version and the Go version (also tagger --version)
//
// Examples:
//
//	$ tagger demo
//	$ tagger train --format conll --template embedded:conll2000/chunking.template \
//	      --c1 1 --c2 1 --model chunk.model embedded:conll2000/train.txt.gz
//	$ tagger eval --format conll --model chunk.model embedded:conll2000/test.txt.gz
//	$ tagger train --format ocr --folds 1-9 --model ocr.model embedded:ocr/letter.data.gz
//	$ tagger dump --model chunk.model | head
//	$ tagger path --data syn1 --scale 0.1 --betas 20 --report syn1.json --out figures
//	$ tagger bench paper --scale 0.1 --betas 10 --json bench.json --out figures
//
// tag and eval stream their input (memory is bounded by a batch of
// sequences, output is in input order, --threads N tags in parallel) and
// read standard input when no file is given. --model also accepts models
// trained by CRFsuite, CRF++ and Wapiti (see tagger tag -h); dump lists
// their weights in the same layout and explain explains their labels, with
// features named as each tool names them; convert turns a CRFsuite model
// into one of ours (to train on from it with train --init, among others).
//
// Inputs are files, "-" for standard input, or "embedded:NAME" for a corpus
// built into the binary: embedded:ocr/letter.data.gz,
// embedded:conll2000/train.txt.gz, embedded:conll2000/test.txt.gz and the
// CRF++ chunking template embedded:conll2000/chunking.template.
// Gzip-compressed files are read transparently. Two English models are
// built in too, a part-of-speech tagger over words and a chunker over words
// and POS tags, which tag plain text as a pipeline (repeated --model):
//
//	$ echo 'The pound fell.' | tagger tag --format text \
//	      --model embedded:models/en-pos.model --model embedded:models/en-chunk.model
//
// Running text, one document per line, becomes sentences and chunks, each
// a span of the text with its offsets (code points and bytes) and its
// confidence (--format document --output spans; --scheme and --posterior
// choose the decoding, see tagger tag -h and docs/raw-text.md):
//
//	$ echo 'Mr. Smith went to Washington on Tuesday. He paid $5.50 for it.' | tagger tag \
//	      --format document --output spans --model embedded:models/en-pos.model --model embedded:models/en-chunk.model
//
// Exit status: 0 on success, 1 on failure, 2 on a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sparsetag/sparsetag/cmd/tagger/internal/interrupt"
)

func main() {
	// The first SIGINT or SIGTERM cancels e.ctx and closes e.intr.Done():
	// train finishes its iteration and saves what it has, the streaming
	// commands stop reading and flush what is complete, and the command
	// exits with 128 + the signal's number; a second signal exits at once.
	intr := interrupt.Notify(os.Stderr, "tagger")
	e := &env{ctx: intr.Context(), intr: intr, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, tuneGC: true}
	code := runEnv(e, os.Args[1:])
	intr.Stop()
	os.Exit(code)
}

// env carries the streams and context of one invocation.
type env struct {
	// ctx is cancelled at the first SIGINT or SIGTERM.
	ctx context.Context
	// intr handles the signals (nil without signal handling, in tests):
	// intr.Done() is closed at the first signal.
	intr   *interrupt.Handler
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// tuneGC lets tag and eval bound the garbage collector's headroom
	// (memlimit.BoundHeap); only main sets it, so that tests leave the process's GC
	// settings alone.
	tuneGC bool
}

type command struct {
	name  string
	short string
	run   func(e *env, args []string) error
}

var commands = []command{
	{"demo", "train a chain CRF on the embedded OCR data and report accuracy", runDemo},
	{"train", "train a model from a labeled corpus", runTrain},
	{"tag", "label a corpus with a model", runTag},
	{"eval", "tag a labeled corpus and report accuracy and F1", runEval},
	{"dump", "list the non-zero weights of a model as TSV", runDump},
	{"explain", "show the features and transitions behind each predicted label", runExplain},
	{"convert", "write a CRFsuite model as a model of this toolkit that tags exactly as it does", runConvert},
	{"path", "solve a regularization path over beta with safe screening", runPath},
	{"bench", "timing suites: bench paper (the paper's table), bench screen (fixed beta), bench train (solvers)", runBench},
	{"version", "print the module version and the Go version (also --version)", runVersion},
}

// usageError marks errors that should exit with status 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// usage marks err (if not nil) as a usage error.
func usage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

func runEnv(e *env, args []string) int {
	stderr := e.stderr
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = append([]string{"version"}, args[1:]...)
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(e, args[1:])
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		}
		if s, ok := e.intr.Stopped(err); ok {
			fmt.Fprintf(stderr, "tagger %s: interrupted by %s\n", c.name, interrupt.Name(s))
			return interrupt.ExitCode(s)
		}
		fmt.Fprintf(stderr, "tagger %s: %v\n", c.name, err)
		var u usageError
		if errors.As(err, &u) {
			return 2
		}
		return 1
	}
	fmt.Fprintf(stderr, "tagger: unknown command %q\n", args[0])
	printUsage(stderr)
	return 2
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: tagger <command> [flags] [files]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-7s %s\n", c.name, c.short)
	}
	fmt.Fprintln(w, "\nRun 'tagger <command> -h' for the flags of a command.")
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints usage with an example to stderr.
func newFlagSet(e *env, name, usage, example string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: tagger %s %s\n\nexample:\n  %s\n\nflags:\n", name, usage, example)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, turning flag errors into usage errors. Flags may
// come before or after the positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
