// Package clifile holds the command line's conventions for naming inputs,
// which the library does not know: "-" for standard input and
// "embedded:NAME" for a file built into the binary (the corpora of package
// corpora and the models of package models). It resolves such names into
// the io.Reader, path or bytes that the library packages take.
package clifile

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/internal/ctxio"
	"github.com/sparsetag/sparsetag/models"
	"github.com/sparsetag/sparsetag/tagging"
)

// EmbeddedPrefix marks the name of a file built into the binary:
// "embedded:models/NAME" opens models.Open(NAME) (the pretrained English
// models), any other "embedded:NAME" corpora.OpenEmbedded(NAME).
const EmbeddedPrefix = "embedded:"

// embeddedModels is the directory of the models' embedded names.
const embeddedModels = "models/"

// EmbeddedNames lists the NAMEs of "embedded:NAME": the corpora's files
// and the models.
func EmbeddedNames() []string {
	names := corpora.EmbeddedNames()
	for _, n := range models.Names() {
		names = append(names, embeddedModels+n)
	}
	return names
}

// Open opens a file, "-" for stdin, or "embedded:NAME" for a file
// embedded in the binary (see EmbeddedNames).
func Open(path string, stdin io.Reader) (io.ReadCloser, error) {
	switch {
	case path == "-":
		if stdin == nil {
			return nil, errors.New("dataset: no standard input to read")
		}
		return io.NopCloser(stdin), nil
	case strings.HasPrefix(path, EmbeddedPrefix+embeddedModels):
		return models.Open(strings.TrimPrefix(path, EmbeddedPrefix+embeddedModels))
	case strings.HasPrefix(path, EmbeddedPrefix):
		return corpora.OpenEmbedded(strings.TrimPrefix(path, EmbeddedPrefix))
	}
	return os.Open(path)
}

// Name is the name of path in error messages: "stdin" for "-".
func Name(path string) string {
	if path == "-" {
		return "stdin"
	}
	return path
}

// ReadAll returns the contents of path (see Open; stdin is not available),
// decompressing gzip data transparently.
func ReadAll(path string) ([]byte, error) {
	rc, err := Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	br := bufio.NewReader(rc)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return io.ReadAll(zr)
	}
	return io.ReadAll(br)
}

// ReadExamples reads every sequence of path (see Open) with dataset.Read.
func ReadExamples(path string, stdin io.Reader, opts dataset.Options) ([]dataset.Example, error) {
	rc, err := Open(path, stdin)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return dataset.Read(Name(path), rc, opts)
}

// OpenReader opens path (see Open) and returns a dataset.Reader of it
// whose reads fail with ctx's error once ctx is done (an interrupt: a
// streaming command then flushes what is complete). The caller closes the
// returned Closer when it is done with the Reader.
func OpenReader(ctx context.Context, path string, stdin io.Reader, opts dataset.Options) (*dataset.Reader, io.Closer, error) {
	rc, err := Open(path, stdin)
	if err != nil {
		return nil, nil, err
	}
	r, err := dataset.NewReader(Name(path), ctxio.Reader{Ctx: ctx, R: rc}, opts)
	if err != nil {
		rc.Close()
		return nil, nil, err
	}
	return r, rc, nil
}

// NewEncoder is dataset.NewEncoder with the template of --template: the
// CRF++ template in the file templatePath (see Open; "" for
// dataset.DefaultTemplate), which only column formats take.
func NewEncoder(format dataset.Format, templatePath string) (*features.Encoder, error) {
	if templatePath == "" {
		return dataset.NewEncoder(format, nil)
	}
	switch format {
	case dataset.CRFsuite:
		return nil, errors.New("--template applies to column formats, not to crfsuite attribute files")
	case dataset.OCR:
		return nil, errors.New("--template applies to column formats, not to ocr")
	}
	if _, ok := format.Kind(); !ok {
		return nil, fmt.Errorf("unknown format %q", format)
	}
	b, err := ReadAll(templatePath)
	if err != nil {
		return nil, err
	}
	t, err := features.Compile(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", templatePath, err)
	}
	enc, err := dataset.NewEncoder(format, t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", templatePath, err)
	}
	return enc, nil
}

// LoadTagger is tagging.Load, with "embedded:NAME" for a model built into
// the binary (embedded:models/en-pos.model, embedded:models/en-chunk.model).
func LoadTagger(path string) (tagging.Tagger, error) {
	if !strings.HasPrefix(path, EmbeddedPrefix) {
		return tagging.Load(path)
	}
	rc, err := Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return tagging.Read(path, rc)
}

// LoadWeights is tagging.LoadWeights, with "embedded:NAME" as in
// LoadTagger.
func LoadWeights(path string) (tagging.Weighted, error) {
	if !strings.HasPrefix(path, EmbeddedPrefix) {
		return tagging.LoadWeights(path)
	}
	rc, err := Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return tagging.ReadWeights(path, rc)
}
